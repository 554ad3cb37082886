/* pfc estimate SCRIPT [--gpu NAME] [--batch N] [--seq N] [--precision P]
 *                     [--world-size N] [--json]
 * The projected peak GPU memory of one step of the script, its breakdown,
 * the verdict against a GPU or instance, and what would make it fit. */
#include "../base/buf.h"
#include "../estimator/estimate.h"
#include "../estimator/remedy.h"
#include "../estimator/trace.h"
#include "cli.h"
#include "codes.h"
#include "modules.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct EstimateArgs {
    const char *path, *gpu;
    int64_t batch, seq, world_size;
    int precision;
    bool json, verbose, trace;
} EstimateArgs;

static double gib(uint64_t b) { return (double)b / (double)(1ull << 30); }

static void put_json_str(Buf *b, const char *s)
{
    buf_putc(b, '"');
    buf_put_escaped(b, s, strlen(s));
    buf_putc(b, '"');
}

static void put_u64(Buf *b, const char *name, uint64_t v, bool comma)
{
    buf_printf(b, "\"%s\": %llu%s", name, (unsigned long long)v, comma ? ", " : "");
}

typedef struct Report {
    const EstimateConfig *cfg;
    const Estimate *e;
    const Gpu *gpu;
    uint32_t count;
    const Remedies *rem;
    const char *error;
    bool verbose;
} Report;

static void json_breakdown(Buf *b, const Estimate *e)
{
    buf_puts(b, "  \"breakdown\": {");
    put_u64(b, "weights", e->weights + e->buffers, true);
    put_u64(b, "gradients", e->gradients, true);
    put_u64(b, "optimizer_state", e->optimizer_state, true);
    put_u64(b, "optimizer_step_temporaries", e->step_temp, true);
    put_u64(b, "autocast_cache", e->autocast_cache, true);
    put_u64(b, "activations", e->activations, true);
    put_u64(b, "logits_loss", e->logits_loss, true);
    put_u64(b, "retained_across_iterations", e->retained, true);
    put_u64(b, "allocator_slack", e->reserved_peak - e->allocated_peak, true);
    put_u64(b, "cuda_context", CUDA_CONTEXT_BYTES, false);
    buf_puts(b, "},\n  \"components\": {");
    put_u64(b, "weights", e->raw_weights, true);
    put_u64(b, "gradients", e->all_gradients, true);
    put_u64(b, "optimizer_state", e->all_state, false);
    buf_puts(b, "},\n");
}

static void json(Buf *b, const Report *r)
{
    const Estimate *e = r->e;
    buf_puts(b, "{\n");
    if (r->error) {
        buf_puts(b, "  \"allocated_peak_bytes\": null,\n  \"reserved_peak_bytes\": null,\n"
                    "  \"projected_peak_bytes\": null,\n  \"projected_low_bytes\": null,\n"
                    "  \"projected_high_bytes\": null,\n  \"params_total\": null,\n"
                    "  \"params_trainable\": null,\n  \"breakdown\": {},\n");
    } else {
        buf_printf(b, "  \"allocated_peak_bytes\": %llu,\n  \"reserved_peak_bytes\": %llu,\n"
                      "  \"projected_peak_bytes\": %llu,\n  \"projected_low_bytes\": %llu,\n"
                      "  \"projected_high_bytes\": %llu,\n  \"params_total\": %llu,\n"
                      "  \"params_trainable\": %llu,\n",
                   (unsigned long long)e->allocated_peak, (unsigned long long)e->reserved_peak,
                   (unsigned long long)e->projected_peak, (unsigned long long)e->projected_low,
                   (unsigned long long)e->projected_high, (unsigned long long)e->params_total,
                   (unsigned long long)e->params_trainable);
        json_breakdown(b, e);
        buf_puts(b, "  \"model\": ");
        put_json_str(b, e->model ? e->model : "");
        buf_printf(b, ",\n  \"batch\": %lld,\n  \"seq\": %lld,\n  \"training\": %s,\n  \"peak_phase\": ",
                   (long long)e->batch, (long long)e->seq, e->training ? "true" : "false");
        put_json_str(b, e->peak_phase ? e->peak_phase : "");
        buf_puts(b, ",\n");
    }
    if (r->gpu) {
        buf_puts(b, "  \"target\": {\"gpu\": ");
        put_json_str(b, r->gpu->id);
        buf_printf(b, ", \"name\": ");
        put_json_str(b, r->gpu->name);
        buf_printf(b, ", \"count\": %u, \"usable_bytes\": %llu},\n", r->count,
                   (unsigned long long)r->gpu->usable_bytes);
        buf_printf(b, "  \"fits\": %s,\n", r->error ? "null" : remedy_fits(e, r->gpu) ? "true" : "false");
    } else {
        buf_puts(b, "  \"target\": null,\n  \"fits\": null,\n");
    }
    buf_puts(b, "  \"assumptions\": [");
    uint32_t k = 0;
    for (uint32_t i = 0; r->cfg && i < r->cfg->assumptions.n; i++, k++) {
        buf_puts(b, k ? ", " : "");
        put_json_str(b, r->cfg->assumptions.v[i]);
    }
    for (uint32_t i = 0; !r->error && i < e->nnotes; i++, k++) {
        buf_puts(b, k ? ", " : "");
        put_json_str(b, e->notes[i]);
    }
    buf_printf(b, "],\n  \"ops_traced\": %u,\n  \"ops_assumed\": %u", e->ops_traced, e->ops_assumed);
    buf_puts(b, ",\n  \"remediation\": [");
    for (uint32_t i = 0; r->rem && i < r->rem->list.n; i++) {
        const Remedy *m = &r->rem->list.v[i];
        buf_puts(b, i ? ",\n    " : "\n    ");
        buf_puts(b, "{\"change\": ");
        put_json_str(b, m->change);
        buf_printf(b, ", \"projected_peak_bytes\": %llu, \"fits\": %s}", (unsigned long long)m->projected_peak,
                   r->gpu ? (m->fits ? "true" : "false") : "null");
    }
    buf_puts(b, r->rem && r->rem->list.n ? "\n  ],\n" : "],\n");
    buf_puts(b, "  \"smallest_fitting_gpu\": ");
    if (r->rem && r->rem->smallest_target)
        put_json_str(b, r->rem->smallest_target);
    else
        buf_puts(b, "null");
    buf_puts(b, ",\n  \"error\": ");
    if (r->error)
        put_json_str(b, r->error);
    else
        buf_puts(b, "null");
    buf_puts(b, "\n}\n");
}

static const char *dtype_word(int dt)
{
    return dt == DT_BF16 ? "bf16" : dt == DT_F16 ? "fp16" : "fp32";
}

/* "6.74 B", "124 M", "8.39 M" */
static void count(Buf *b, uint64_t n)
{
    if (n >= 1000000000ull)
        buf_printf(b, "%.3g B", (double)n / 1e9);
    else
        buf_printf(b, "%.3g M", (double)n / 1e6);
}

/* GiB, MiB below one GiB, KiB below one MiB (small scripts would read 0.00 GiB) */
static const char *size(char *out, size_t n, uint64_t bytes)
{
    if (!bytes)
        snprintf(out, n, "0");
    else if (bytes >= (1ull << 30))
        snprintf(out, n, "%.2f GiB", gib(bytes));
    else if (bytes >= (1u << 20))
        snprintf(out, n, "%.1f MiB", (double)bytes / (double)(1u << 20));
    else
        snprintf(out, n, "%.1f KiB", (double)bytes / 1024.0);
    return out;
}

static void cell(Buf *b, const char *name, uint64_t bytes, bool right)
{
    char s[32];
    buf_printf(b, "%s%-18s %13s%s", right ? "      " : "  ", name, size(s, sizeof s, bytes), right ? "\n" : "");
}

static void breakdown(Buf *b, const Estimate *e)
{
    struct { const char *name; uint64_t bytes; bool always; } left[] = {
        {"weights", e->weights + e->buffers, true}, {"gradients", e->gradients, true},
        {"optimizer state", e->optimizer_state, true}, {"step temporaries", e->step_temp, false},
    }, right[] = {
        {"activations", e->activations, true}, {"logits + loss", e->logits_loss, true},
        {"autocast copies", e->autocast_cache, false}, {"kept across iters", e->retained, false},
    };
    for (int i = 0; i < 4; i++) {
        bool l = left[i].always || left[i].bytes, r = right[i].always || right[i].bytes;
        if (!l && !r)
            continue;
        if (l)
            cell(b, left[i].name, left[i].bytes, false);
        else
            buf_printf(b, "%34s", "");
        if (r)
            cell(b, right[i].name, right[i].bytes, true);
        else
            buf_putc(b, '\n');
    }
    cell(b, "allocator slack", e->reserved_peak - e->allocated_peak, false);
    cell(b, "CUDA context", CUDA_CONTEXT_BYTES, true);
    buf_puts(b, "  ─────────────────────────────────────────────────────────────────────\n");
    char p[32], lo[32], hi[32], al[32];
    buf_printf(b, "  projected peak   %13s  (%s – %s)      allocated peak %s\n",
               size(p, sizeof p, e->projected_peak), size(lo, sizeof lo, e->projected_low),
               size(hi, sizeof hi, e->projected_high), size(al, sizeof al, e->allocated_peak));
}

static void header(Buf *b, const Report *r)
{
    const Estimate *e = r->e;
    const EstimateConfig *c = r->cfg;
    buf_printf(b, "Model      %s%s   ", e->model ? e->model : "?", e->builtin ? " (built-in)" : " (from the script)");
    count(b, e->params_total);
    buf_puts(b, " params   (trainable ");
    count(b, e->params_trainable);
    buf_puts(b, ")\n");
    buf_printf(b, "Config     %s weights", dtype_word(e->weight_dtype));
    if (e->autocast_dtype >= 0)
        buf_printf(b, " + %s autocast", dtype_word(e->autocast_dtype));
    if (e->training && c->optimizer_name)
        buf_printf(b, " · %s", c->optimizer_name);
    buf_printf(b, "%s", e->training ? "" : " · evaluation");
    if (e->batch)
        buf_printf(b, " · batch %lld", (long long)e->batch);
    if (e->seq)
        buf_printf(b, " · seq %lld", (long long)e->seq);
    if (c->accumulation > 1)
        buf_printf(b, " · accumulation %lld", (long long)c->accumulation);
    if (c->grad_checkpointing)
        buf_puts(b, " · gradient checkpointing");
    if (e->hf)
        buf_puts(b, c->eager_attention ? " · eager attention" : " · SDPA");
    if (c->lora_r)
        buf_printf(b, " · LoRA r=%u", c->lora_r);
    if (c->shard == SHARD_FSDP)
        buf_printf(b, " · FSDP x%lld", (long long)c->world_size);
    else if (c->shard == SHARD_DDP)
        buf_puts(b, " · DDP");
    else if (c->shard >= SHARD_ZERO1)
        buf_printf(b, " · ZeRO-%d x%lld", c->shard == SHARD_ZERO1 ? 1 : c->shard == SHARD_ZERO2 ? 2 : 3,
                   (long long)c->world_size);
    buf_printf(b, "\nPeak       %s\n\n", e->peak_phase);
}

static void verdict(Buf *b, const Report *r)
{
    const Estimate *e = r->e;
    bool fits = remedy_fits(e, r->gpu);
    buf_printf(b, "\nTarget     %s", r->gpu->name);
    if (r->count > 1)
        buf_printf(b, " x%u (per GPU)", r->count);
    buf_printf(b, " (%.2f GiB usable)  →  %.0f%% of capacity   %s\n", gib(r->gpu->usable_bytes),
               100.0 * (double)e->projected_peak / (double)r->gpu->usable_bytes, fits ? "✓ fits" : "✗ OOM");
    if (!r->rem || (!r->rem->list.n && !r->rem->smallest_target))
        return;
    buf_puts(b, "\nWhat would make it fit (each change re-estimated; cheapest first):\n");
    for (uint32_t i = 0; i < r->rem->list.n; i++) {
        const Remedy *m = &r->rem->list.v[i];
        double saved = gib(e->projected_peak) - gib(m->projected_peak);
        buf_printf(b, "  %s  %s%5.1f GiB → %6.2f GiB   %s%s\n", m->fits ? "✓" : "✗", saved >= 0 ? "−" : "+",
                   saved >= 0 ? saved : -saved, gib(m->projected_peak), m->combination ? "together: " : "",
                   m->change);
    }
    if (r->rem->smallest_target)
        buf_printf(b, "  nothing above fits; what holds it as written: %s\n", r->rem->smallest_target);
}

static void text(Buf *b, const Report *r)
{
    const Estimate *e = r->e;
    const EstimateConfig *c = r->cfg;
    header(b, r);
    breakdown(b, e);
    if (r->gpu)
        verdict(b, r);
    for (uint32_t i = 0; i < c->assumptions.n + e->nnotes; i++)
        buf_printf(b, "%s  assumed: %s\n", i ? "" : "\n",
                   i < c->assumptions.n ? c->assumptions.v[i] : e->notes[i - c->assumptions.n]);
    if (e->ops_assumed)
        buf_printf(b, "  graph: %u of the step's %u tensor ops are not modelled (taken as elementwise)\n",
                   e->ops_assumed, e->ops_traced);
    if (r->verbose) {
        buf_printf(b, "\nSaved for backward (and kept) when the forward returns: %.3f GiB\n",
                   gib(e->saved_end_of_forward));
        buf_puts(b, "Phases simulated (allocated bytes):\n");
        for (uint32_t i = 0; i < e->nphases; i++)
            buf_printf(b, "  %-45s %9.2f GiB\n", e->phases[i].name, gib(e->phases[i].total));
    }
}

static void print_line(void *ctx, const char *line)
{
    (void)ctx;
    printf("%s\n", line);
}

static bool parse_count(const char *s, int64_t *out)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || v <= 0 || v > (1ll << 30))
        return false;
    *out = v;
    return true;
}

static const char *const value_options[] = {"--gpu", "--batch", "--seq", "--world-size",
                                            "--precision"};

/* --gpu etc. with their value (NAME VALUE or NAME=VALUE); -1 when parsed. */
static int parse_value(EstimateArgs *a, const char *o, const char *v)
{
    if (strcmp(o, "--gpu") == 0) {
        a->gpu = v;
    } else if (strcmp(o, "--precision") == 0) {
        a->precision = strcmp(v, "fp32") == 0 ? 1 : strcmp(v, "bf16") == 0 ? 2
                     : strcmp(v, "amp") == 0 || strcmp(v, "amp-bf16") == 0 ? 3 : -1;
        if (a->precision < 0)
            return usage_error("estimate: --precision is fp32, bf16 (16-bit weights) or amp "
                               "(fp32 weights, bf16 autocast), not '%s'", v);
    } else {
        int64_t *slot = o[2] == 'b' ? &a->batch : o[2] == 's' ? &a->seq : &a->world_size;
        if (!parse_count(v, slot))
            return usage_error("estimate: %s expects a positive integer, not '%s'", o, v);
    }
    return -1;
}

static const char *value_option(const char *arg)
{
    for (size_t k = 0; k < sizeof value_options / sizeof value_options[0]; k++) {
        size_t n = strlen(value_options[k]);
        if (strncmp(arg, value_options[k], n) == 0 && (arg[n] == 0 || arg[n] == '='))
            return value_options[k];
    }
    return NULL;
}

static int parse_args(int argc, char **argv, EstimateArgs *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 0; i < argc; i++) {
        const char *o = argv[i], *name = value_option(o);
        if (strcmp(o, "--json") == 0) {
            a->json = true;
        } else if (strcmp(o, "--trace") == 0) {
            a->trace = true;
        } else if (strcmp(o, "--verbose") == 0 || strcmp(o, "-v") == 0) {
            a->verbose = true;
        } else if (name) {
            const char *v = o[strlen(name)] == '=' ? o + strlen(name) + 1 : NULL;
            if (!v && i + 1 >= argc)
                return usage_error("estimate: %s needs a value", name);
            int rc = parse_value(a, name, v ? v : argv[++i]);
            if (rc >= 0)
                return rc;
        } else if (o[0] == '-' && o[1]) {
            return usage_error("estimate: unknown option '%s' (pfc estimate --help lists them)", o);
        } else if (a->path) {
            return usage_error("estimate expects one script");
        } else {
            a->path = o;
        }
    }
    if (!a->path)
        return usage_error("estimate expects a script: pfc estimate SCRIPT [--gpu NAME] [--batch N] "
                           "[--seq N] [--precision fp32|bf16|amp] [--world-size N] [--json]");
    return 0;
}

/* " (did you mean 'a100-80gb'?)" for the GPU id or instance name near an
 * unknown --gpu, or "" when none is near enough to be a typo. */
static const char *nearest_gpu(const char *name, char *buf, size_t size)
{
    size_t n, best = (size_t)-1;
    const char *near = NULL;
    const Gpu *g = gpu_all(&n);
    for (size_t i = 0; i < n; i++)
        if (edit_distance(name, g[i].id) < best)
            best = edit_distance(name, g[i].id), near = g[i].id;
    const Instance *in = instance_all(&n);
    for (size_t i = 0; i < n; i++)
        if (edit_distance(name, in[i].name) < best)
            best = edit_distance(name, in[i].name), near = in[i].name;
    size_t limit = strlen(name) / 3 > 2 ? strlen(name) / 3 : 2;
    if (near && best <= limit)
        snprintf(buf, size, " (did you mean '%s'?)", near);
    else
        buf[0] = 0;
    return buf;
}

int cmd_estimate(int argc, char **argv)
{
    EstimateArgs args;
    int rc = parse_args(argc, argv, &args);
    if (rc)
        return rc;
    const Gpu *gpu = NULL;
    uint32_t count = 0;
    char near[96];
    if (args.gpu && !gpu_target(args.gpu, &gpu, &count))
        return usage_error("estimate: unknown GPU or instance '%s'%s; pfc gpus lists them",
                           args.gpu, nearest_gpu(args.gpu, near, sizeof near));
    char *src;
    Arena arena;
    Syntax s;
    if (cli_parse_file(args.path, &src, &arena, &s) >= 0)
        return EXIT_FINDINGS;   /* a script that cannot be read: 1, as documented */
    const char *why = NULL;
    ProjectModules *modules = NULL;
    EstimateConfig cfg;
    Estimate e;
    Remedies rem;
    memset(&cfg, 0, sizeof cfg);
    memset(&e, 0, sizeof e);
    memset(&rem, 0, sizeof rem);
    if (s.diags.n) {
        uint32_t line, col;
        syntax_line_col(&s, s.diags.v[0].start, &line, &col);
        why = arena_printf(&arena, "syntax error at %u:%u: %s (pfc lint shows them all)", line, col,
                           s.diags.v[0].msg);
    } else {
        Ir ir;
        ir_build(&ir, &s);
        estimate_read(&s, &ir, &cfg);
        modules = project_modules_new(args.path);
        cfg.modules = project_modules_source(modules);
        cfg.path = args.path;
        cfg.batch = args.batch;
        cfg.seq = args.seq;
        cfg.precision = args.precision;
        if (args.trace)
            cfg.trace_out = print_line;
        if (args.world_size)
            cfg.world_size = args.world_size;
        else if (cfg.shard != SHARD_NONE && count > 1)
            cfg.world_size = count;
        if (cfg.shard != SHARD_NONE && cfg.world_size <= 1)
            VEC_PUSH(s.arena, cfg.assumptions, "the script shards the model but the world size is "
                                               "unknown: one rank assumed (--world-size N)");
        /* changes are searched when the projection exceeds the target */
        if (estimate_run(&s, &ir, &cfg, &e, &why) && gpu && !remedy_fits(&e, gpu))
            remedy_search(&s, &ir, &cfg, &e, gpu, count, &rem);
        else if (why && e.error_line)   /* a refusal caused by a line of the script: file:line */
            why = arena_printf(&arena, "%s:%u: %s", args.path, e.error_line, why);
    }
    Report r = {&cfg, &e, gpu, count, &rem, why, args.verbose};
    Buf out = {0};
    if (args.json)
        json(&out, &r);
    else if (why && e.error_line)
        fprintf(stderr, "pfc: estimate: %s\n", why);
    else if (why)
        fprintf(stderr, "pfc: estimate: %s: %s\n", args.path, why);
    else
        text(&out, &r);
    buf_write(&out, stdout);
    buf_free(&out);
    project_modules_free(modules);
    arena_free(&arena);
    free(src);
    if (why)
        return EXIT_FINDINGS;
    return gpu && !remedy_fits(&e, gpu) ? EXIT_FINDINGS : EXIT_CLEAN;
}
