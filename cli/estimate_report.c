/* The text report of pfc estimate (see estimate_report.h): the verdict on
 * the first line, the model and configuration, the breakdown in two views
 * (what is resident at the peak, and each component's total over the
 * step), the range in one line, the cheapest changes that fit. */
#include "estimate_report.h"
#include "../estimator/trace.h"
#include <stdio.h>
#include <string.h>

static double gib(uint64_t b) { return (double)b / (double)(1ull << 30); }

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

static double percent(uint64_t part, uint64_t whole) { return whole ? 100.0 * (double)part / (double)whole : 0; }

/* ---- the first line: the verdict ---------------------------------------------------------- */

static const char *const verdict_marks[] = {"", "✓ fits", "~ borderline", "✗ does not fit"};

/* "per GPU" under a multi-GPU target or a run over several ranks */
static bool per_rank(const EstimateReport *r) { return r->count > 1 || r->cfg->world_size > 1; }

static void verdict_line(Buf *b, const EstimateReport *r)
{
    const Estimate *e = r->e;
    char p[32], lo[32], hi[32];
    size(p, sizeof p, e->projected_peak);
    if (!r->gpu) {
        buf_printf(b, "Projected peak %s%s (range %s – %s); --gpu NAME says whether it fits\n", p,
                   per_rank(r) ? " per GPU" : "", size(lo, sizeof lo, e->projected_low),
                   size(hi, sizeof hi, e->projected_high));
        return;
    }
    Verdict v = remedy_verdict(e, r->gpu);
    buf_printf(b, "%s on %s", verdict_marks[v], r->gpu->name);
    if (r->count > 1)
        buf_printf(b, " x%u", r->count);
    buf_printf(b, "%s: projected peak %s, %.0f%% of its %.2f GiB usable", per_rank(r) ? " (per GPU)" : "", p,
               percent(e->projected_peak, r->gpu->usable_bytes), gib(r->gpu->usable_bytes));
    if (v == VERDICT_BORDERLINE)
        buf_printf(b, "; the range %s – %s crosses it", size(lo, sizeof lo, e->projected_low),
                   size(hi, sizeof hi, e->projected_high));
    buf_putc(b, '\n');
}

/* ---- model and configuration -------------------------------------------------------------- */

/* DDP keeps a full replica on every rank; only FSDP and ZeRO shard. */
static void sharding(Buf *b, const EstimateConfig *c)
{
    long long ws = (long long)c->world_size;
    static const char *const zero_sharded[] = {"optimizer state", "gradients and optimizer state",
                                               "weights, gradients and optimizer state"};
    if (c->shard == SHARD_DDP)
        buf_puts(b, " · DDP: a full replica on each rank");
    else if (c->shard == SHARD_FSDP)
        buf_printf(b, " · FSDP: weights, gradients and optimizer state sharded over %lld rank%s", ws,
                   ws == 1 ? "" : "s");
    else if (c->shard == SHARD_FSDP_GRAD_OP)
        buf_printf(b, " · FSDP SHARD_GRAD_OP: gradients and optimizer state sharded over %lld rank%s", ws,
                   ws == 1 ? "" : "s");
    else if (c->shard == SHARD_FSDP_HYBRID)
        buf_printf(b, " · FSDP HYBRID_SHARD: sharded within each node, replicated across nodes (%lld rank%s)",
                   ws, ws == 1 ? "" : "s");
    else if (c->shard == SHARD_FSDP_NONE)
        buf_puts(b, " · FSDP NO_SHARD: a full replica on each rank");
    else if (c->shard >= SHARD_ZERO1 && c->shard <= SHARD_ZERO3)
        buf_printf(b, " · ZeRO-%d: %s sharded over %lld rank%s", c->shard - SHARD_ZERO1 + 1,
                   zero_sharded[c->shard - SHARD_ZERO1], ws, ws == 1 ? "" : "s");
}

static void config_line(Buf *b, const Estimate *e, const EstimateConfig *c)
{
    buf_printf(b, "Config     %s weights", dtype_word(e->weight_dtype));
    if (c->quant_bits)
        buf_printf(b, " (bitsandbytes %d-bit)", c->quant_bits);
    if (e->autocast_dtype >= 0)
        buf_printf(b, " + %s autocast", dtype_word(e->autocast_dtype));
    const char *optimizer = e->optimizer_name ? e->optimizer_name : c->optimizer_name;
    if (e->training && optimizer)
        buf_printf(b, " · %s", optimizer);
    buf_printf(b, "%s", e->training ? "" : " · evaluation");
    if (e->batch)
        buf_printf(b, " · batch %lld", (long long)e->batch);
    if (e->seq)
        buf_printf(b, " · seq %lld", (long long)e->seq);
    if (e->image_size)
        buf_printf(b, " · image %lld", (long long)e->image_size);
    int64_t acc = e->accumulation > c->accumulation ? e->accumulation : c->accumulation;
    if (acc > 1)
        buf_printf(b, " · accumulation %lld", (long long)acc);
    if (c->grad_checkpointing)
        buf_puts(b, " · gradient checkpointing");
    if (e->hf)
        buf_puts(b, c->eager_attention ? " · eager attention" : " · SDPA");
    if (c->lora_r)
        buf_printf(b, " · LoRA r=%u", c->lora_r);
    sharding(b, c);
    buf_putc(b, '\n');
}

static void header(Buf *b, const EstimateReport *r)
{
    const Estimate *e = r->e;
    buf_printf(b, "Model      %s", e->model ? e->model : "?");
    if (e->builtin)
        buf_puts(b, " (built-in)   ");
    else if (e->model_file)
        buf_printf(b, " (from %s)   ", e->model_file);
    else
        buf_puts(b, " (from the script)   ");
    count(b, e->params_total);
    buf_puts(b, " params   (trainable ");
    count(b, e->params_trainable);
    buf_puts(b, ")\n");
    config_line(b, e, r->cfg);
}

/* ---- the breakdown -------------------------------------------------------------------------- */

/* One row: the bytes resident at the peak, and the component's total over
 * the step where it has one (total_known). */
static void row(Buf *b, const char *name, uint64_t at_peak, bool total_known, uint64_t total)
{
    char s[32], t[32];
    buf_printf(b, "  %-18s %12s", name, size(s, sizeof s, at_peak));
    if (total_known)
        buf_printf(b, "  %12s", size(t, sizeof t, total));
    buf_putc(b, '\n');
}

static void breakdown(Buf *b, const Estimate *e)
{
    buf_printf(b, "\n  %-18s %12s  %12s   (the peak: %s)\n", "", "at the peak", "step total", e->peak_phase);
    row(b, "weights", e->weights + e->buffers, true, e->raw_weights + e->buffers);
    row(b, "gradients", e->gradients, true, e->all_gradients);
    row(b, "optimizer state", e->optimizer_state, true, e->all_state);
    struct { const char *name; uint64_t bytes; bool always; } rest[] = {
        {"step temporaries", e->step_temp, false}, {"activations", e->activations, true},
        {"logits + loss", e->logits_loss, true}, {"autocast copies", e->autocast_cache, false},
        {"kept across iters", e->retained, false},
        {"allocator slack", e->reserved_peak - e->allocated_peak, true},
        {"CUDA context", CUDA_CONTEXT_BYTES, true},
    };
    for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++)
        if (rest[i].always || rest[i].bytes)
            row(b, rest[i].name, rest[i].bytes, false, 0);
    buf_puts(b, "  ───────────────────────────────────────────────\n");
}

/* The projection and its range, each in one line: what they add to the
 * tensors (the allocated peak, the accuracy target) and why. */
static void projection(Buf *b, const Estimate *e)
{
    char p[32], al[32], lo[32], hi[32];
    uint64_t a = e->allocated_peak, ctx = CUDA_CONTEXT_BYTES;
    buf_printf(b, "  %-18s %12s   = tensors %s (allocated peak) + allocator slack + CUDA context\n",
               "projected peak", size(p, sizeof p, e->projected_peak), size(al, sizeof al, a));
    uint64_t slack_lo = e->projected_low > a + ctx ? e->projected_low - a - ctx : 0;
    uint64_t slack_hi = e->projected_high > a + ctx ? e->projected_high - a - ctx : 0;
    buf_printf(b, "  range  %s – %s: the allocator's slack from +%.1f%% (low) to +%.0f%% (high) of the tensors\n",
               size(lo, sizeof lo, e->projected_low), size(hi, sizeof hi, e->projected_high),
               percent(slack_lo, a), percent(slack_hi, a));
}

/* ---- what would make it fit ------------------------------------------------------------------ */

static const char *const remedy_marks[] = {" ", "✓", "~", "✗"};

/* Shown without --verbose: the single changes that fit outright (at most
 * three, cheapest first) or, when none does, those whose projection fits;
 * the combination always. */
static bool shown(const Remedy *m, bool any_fits, uint32_t *singles, bool verbose)
{
    if (verbose || m->combination)
        return true;
    bool good = any_fits ? m->verdict == VERDICT_FITS : m->fits;
    return good && (*singles)++ < 3;
}

static void remedies(Buf *b, const EstimateReport *r)
{
    const Remedies *rem = r->rem;
    if (!rem || (!rem->list.n && !rem->smallest_target))
        return;
    bool any_fits = false;
    for (uint32_t i = 0; i < rem->list.n; i++)
        any_fits |= !rem->list.v[i].combination && rem->list.v[i].verdict == VERDICT_FITS;
    buf_puts(b, "\nWhat would make it fit (each change re-estimated; cheapest first):\n");
    uint32_t singles = 0, hidden = 0;
    for (uint32_t i = 0; i < rem->list.n; i++) {
        const Remedy *m = &rem->list.v[i];
        if (!shown(m, any_fits, &singles, r->verbose)) {
            hidden++;
            continue;
        }
        uint64_t was = r->e->projected_peak, now = m->projected_peak;
        char d[32], p[32];
        buf_printf(b, "  %s  %s%10s → %10s   %s%s\n", remedy_marks[m->verdict], now <= was ? "−" : "+",
                   size(d, sizeof d, now <= was ? was - now : now - was), size(p, sizeof p, now),
                   m->combination ? "together: " : "", m->change);
    }
    if (hidden)
        buf_printf(b, "  (-v lists %u more change%s)\n", hidden, hidden == 1 ? "" : "s");
    if (rem->smallest_target)
        buf_printf(b, "  nothing above fits; what holds it as written: %s\n", rem->smallest_target);
}

/* ---- the rest ---------------------------------------------------------------------------------- */

static void assumptions(Buf *b, const EstimateReport *r)
{
    const Estimate *e = r->e;
    const EstimateConfig *c = r->cfg;
    for (uint32_t i = 0; i < c->assumptions.n + e->nnotes; i++)
        buf_printf(b, "%s  assumed: %s\n", i ? "" : "\n",
                   i < c->assumptions.n ? c->assumptions.v[i] : e->notes[i - c->assumptions.n]);
    if (e->ops_assumed)
        buf_printf(b, "  graph: %u of the step's %u tensor ops are not modelled (taken as elementwise)\n",
                   e->ops_assumed, e->ops_traced);
}

/* The paged state is not in the peak: resident beside it when both fit,
 * else the driver pages it to host memory (slower steps, not an OOM). */
static void paged_line(Buf *b, const EstimateReport *r)
{
    const Estimate *e = r->e;
    if (!e->paged_state)
        return;
    char st[32], all[32];
    buf_printf(b, "  paged optimizer state (managed memory, can spill to host) %s",
               size(st, sizeof st, e->paged_state));
    if (r->gpu)
        buf_printf(b, ": %s\n", e->projected_peak + e->paged_state <= r->gpu->usable_bytes
                                    ? "resident beside the peak"
                                    : "does not fit beside the peak, pages to host memory (slower, no OOM)");
    else
        buf_printf(b, ": %s with it resident\n", size(all, sizeof all, e->projected_peak + e->paged_state));
}

static void phases(Buf *b, const Estimate *e)
{
    buf_printf(b, "\nSaved for backward (and kept) when the forward returns: %.3f GiB\n",
               gib(e->saved_end_of_forward));
    buf_puts(b, "Phases simulated (allocated bytes):\n");
    for (uint32_t i = 0; i < e->nphases; i++)
        buf_printf(b, "  %-45s %9.2f GiB\n", e->phases[i].name, gib(e->phases[i].total));
}

void estimate_report_text(Buf *b, const EstimateReport *r)
{
    verdict_line(b, r);
    header(b, r);
    breakdown(b, r->e);
    paged_line(b, r);
    projection(b, r->e);
    remedies(b, r);
    assumptions(b, r);
    if (r->verbose)
        phases(b, r->e);
}
