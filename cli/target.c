/* TG901 projected-oom. The rule is registered in passes/rules.def like every
 * other (code, name, severity, explain text) but computed here, in the CLI:
 * passes/ must not call the estimator. The estimator is the heavier layer
 * (it interprets the script and re-runs itself per candidate change), the
 * pass manager runs every rule on every file, and only the CLI knows whether
 * a target GPU is configured; keeping the call here keeps its cost off every
 * lint run that has no target. */
#include "target.h"
#include "../base/buf.h"
#include "../estimator/estimate.h"
#include "../estimator/remedy.h"
#include "../passes/analysis.h"
#include <string.h>

bool lint_target_resolve(const char *name, int64_t world_size, LintTarget *out)
{
    memset(out, 0, sizeof *out);
    out->spelling = name;
    out->world_size = world_size;
    return name && gpu_target(name, &out->gpu, &out->count);
}

/* ---- where the training loop is -------------------------------------------------------- */

static bool trains(uint32_t effects, uint32_t want) { return (effects & want) == want; }

/* Is loop header h, or a loop nested in it, one that trains? Then h is not
 * the innermost training loop unless no nested loop trains. */
static bool has_training_child(const Analysis *an, const IrFunction *f, BlockId h, uint32_t want)
{
    for (BlockId b = 1; b < f->blocks.n; b++)
        if (b != h && f->blocks.v[b].loop_header == b && an_in_loop(f, b, h) &&
            trains(an_loop_effects(an, f, b), want))
            return true;
    return false;
}

/* The first (in source order) innermost loop that runs backward() and
 * optimizer.step() (or, failing that, backward() alone), outside tests and
 * model code: the loop one step of which the estimate is about. Returns its
 * CST node, or UINT32_MAX when the file holds no training loop. */
static uint32_t training_loop(Syntax *s, const Ir *ir, uint32_t want)
{
    Analysis an;
    analysis_init(&an, s, ir);
    uint32_t best = UINT32_MAX, best_start = UINT32_MAX;
    for (uint32_t fi = 0; fi < ir->funcs.n; fi++) {
        const IrFunction *f = &ir->funcs.v[fi];
        if (an_context(&an, f) != CTX_OTHER)
            continue;
        for (BlockId h = 1; h < f->blocks.n; h++) {
            const IrBlock *b = &f->blocks.v[h];
            if (b->loop_header != h || !trains(an_loop_effects(&an, f, h), want) ||
                has_training_child(&an, f, h, want))
                continue;
            uint32_t start = node_start(s, &s->nodes[b->loop_node]);
            if (start < best_start) {
                best = b->loop_node;
                best_start = start;
            }
        }
    }
    if (best == UINT32_MAX && want != EFF_BACKWARD)
        return training_loop(s, ir, EFF_BACKWARD);
    return best;
}

/* ---- is the estimate one to stand on ------------------------------------------------ */

/* What the estimator may say and still be trusted with an out-of-memory
 * verdict: a part it left out (the real peak is higher still), or a value the
 * script itself supplies when run as written. Any other note is a guess that
 * could have raised the estimate, and TG901 stays silent (an error that a
 * guess produced would fail a CI job for nothing; `pfc estimate` lists the
 * guesses). Matched as fragments of the estimator's notes: a note reworded
 * there makes TG901 silent, never wrong. */
static const char *const lower_bound_or_as_written[] = {
    "was not entered",                       /* a while loop with an unknown condition */
    "cannot enumerate ran once",             /* a loop over something unknown */
    "is not modelled: its parameters and activations are missing",
    "its state is not modelled",             /* an optimizer pfc does not know */
    "command-line arguments: argparse's defaults",
    "its default in the script",             /* os.environ.get(NAME, default) */
    "no model.train() call",                 /* the script's own mode */
    "the Trainer's optimizer is its default",
};

static bool tolerated(const char *note)
{
    for (size_t i = 0; i < sizeof lower_bound_or_as_written / sizeof *lower_bound_or_as_written; i++)
        if (strstr(note, lower_bound_or_as_written[i]))
            return true;
    return false;
}

static bool confident(const EstimateConfig *cfg, const Estimate *e)
{
    for (uint32_t i = 0; i < cfg->assumptions.n; i++)
        if (!tolerated(cfg->assumptions.v[i]))
            return false;
    for (uint32_t i = 0; i < e->nnotes; i++)
        if (!tolerated(e->notes[i]))
            return false;
    return true;
}

/* ---- the finding ---------------------------------------------------------------------- */

static double gib(uint64_t b) { return (double)b / (double)(1ull << 30); }

enum { MAX_LISTED_CHANGES = 3 };

/* The changes that fit, cheapest first (remedy_search's order), or the
 * smallest target that holds the script as written. */
static const char *remedy_help(Arena *a, const Remedies *rem, const char *path,
                               const LintTarget *t)
{
    Buf b = {0};
    uint32_t listed = 0;
    for (uint32_t i = 0; i < rem->list.n && listed < MAX_LISTED_CHANGES; i++) {
        const Remedy *m = &rem->list.v[i];
        if (!m->fits)
            continue;
        buf_printf(&b, "%s%s%s → %.2f GiB", listed ? "; " : "what would make it fit, cheapest first: ",
                   m->change, m->combination ? " together" : "", gib(m->projected_peak));
        listed++;
    }
    if (!listed && rem->smallest_target)
        buf_printf(&b, "no single change pfc tried makes it fit; what holds it as written: %s",
                   rem->smallest_target);
    else if (!listed)
        buf_puts(&b, "no change pfc tried makes it fit");
    buf_printf(&b, "; `pfc estimate %s --gpu %s` prints the breakdown", path, t->spelling);
    const char *help = arena_strndup(a, b.v, b.n);
    buf_free(&b);
    return help;
}

/* The loop's first line: where the finding's caret goes. */
static uint32_t first_line_end(const Syntax *s, uint32_t start, uint32_t end)
{
    const char *nl = memchr(s->src + start, '\n', end - start);
    uint32_t e = nl ? (uint32_t)(nl - s->src) : end;
    while (e > start && (s->src[e - 1] == '\r' || s->src[e - 1] == ' '))
        e--;
    return e;
}

static void report(Syntax *s, const char *path, uint32_t loop, const LintTarget *t,
                   const Estimate *e, const Remedies *rem, FindingVec *out)
{
    const Node *n = &s->nodes[loop];
    uint32_t start = node_start(s, n);
    const char *msg = arena_printf(
        s->arena, "projected peak %.2f GiB per GPU does not fit in a %s (%.2f GiB usable, %.0f%%): "
        "this training loop would run out of GPU memory",
        gib(e->projected_peak), t->gpu->name, gib(t->gpu->usable_bytes),
        100.0 * (double)e->projected_peak / (double)t->gpu->usable_bytes);
    Finding f = {"TG901", "projected-oom", SEV_ERROR, start,
                 first_line_end(s, start, node_end(s, n)), msg, remedy_help(s->arena, rem, path, t), NULL};
    VEC_PUSH(s->arena, *out, f);
}

void lint_target_check(Syntax *s, const char *path, const Ir *ir, const LintTarget *t,
                       FindingVec *out)
{
    uint32_t loop = training_loop(s, ir, EFF_BACKWARD | EFF_STEP);
    if (loop == UINT32_MAX)
        return;
    EstimateConfig cfg;
    Estimate e;
    Remedies rem;
    memset(&cfg, 0, sizeof cfg);
    memset(&e, 0, sizeof e);
    memset(&rem, 0, sizeof rem);
    estimate_read(s, ir, &cfg);
    /* as pfc estimate does: the instance's GPUs are the ranks of a sharded run */
    if (t->world_size)
        cfg.world_size = t->world_size;
    else if (cfg.shard != SHARD_NONE && t->count > 1)
        cfg.world_size = t->count;
    if (cfg.shard != SHARD_NONE && cfg.world_size <= 1 && !t->world_size)
        return;   /* one rank would be a guess, and the largest possible estimate */
    const char *why = NULL;
    if (!estimate_run(s, ir, &cfg, &e, &why) || !e.training || remedy_fits(&e, t->gpu) ||
        !confident(&cfg, &e))
        return;
    remedy_search(s, ir, &cfg, &e, t->gpu, t->count, &rem);
    report(s, path, loop, t, &e, &rem, out);
}
