/* Remediation (see remedy.h): single changes first, then the cheapest
 * combination that fits (greedily adding the change that saves most), or
 * the smallest GPU or instance that would hold the script as written. */
#include "remedy.h"
#include <string.h>

bool remedy_fits(const Estimate *e, const Gpu *gpu) { return gpu && e->projected_peak <= gpu->usable_bytes; }

Verdict remedy_verdict(const Estimate *e, const Gpu *gpu)
{
    if (!gpu)
        return VERDICT_NONE;
    if (e->projected_high <= gpu->usable_bytes)
        return VERDICT_FITS;
    return e->projected_low > gpu->usable_bytes ? VERDICT_NO_FIT : VERDICT_BORDERLINE;
}

/* In the order of what they cost the user: a flag, then a library, then a
 * change of the training recipe. Single changes are listed in this order
 * and the combination is built in it. */
typedef enum Change {
    CH_SDPA, CH_CHECKPOINT, CH_ADAM8BIT, CH_FUSED_CE, CH_HALF_BATCH, CH_BF16, CH_LORA, CH_FSDP, CH_HALF_SEQ,
    CH__COUNT
} Change;

static const char *const change_names[CH__COUNT] = {
    "SDPA attention (attn_implementation=\"sdpa\")",
    "gradient checkpointing (model.gradient_checkpointing_enable())",
    "8-bit AdamW (bitsandbytes.optim.AdamW8bit)",
    "fused linear cross-entropy (liger-kernel: no full logits)",
    "halve the micro-batch, double gradient accumulation",
    "bf16 weights instead of fp32 + autocast",
    "LoRA r=16 on the attention projections (peft)",
    "FSDP over the instance's GPUs",
    "halve the sequence length",
};

/* Whether a change applies to this configuration, and the changed copy. */
static bool apply(const EstimateConfig *base, const Estimate *e, Change c, uint32_t count,
                  EstimateConfig *out)
{
    *out = *base;
    out->assumptions.n = 0;
    bool hf = e->seq > 0;   /* token models: sequence-shaped inputs */
    switch (c) {
    case CH_CHECKPOINT:
        if (base->grad_checkpointing || !e->hf || !e->training)
            return false;
        out->grad_checkpointing = true;
        return true;
    case CH_SDPA:
        if (!base->eager_attention)
            return false;
        out->eager_attention = false;
        return true;
    case CH_BF16:
        if (base->weight_bytes == 2 || base->precision == 2)
            return false;
        out->precision = 2;
        return true;
    case CH_FUSED_CE:
        if (base->chunked_ce || !e->hf || !e->training || !hf)
            return false;
        out->chunked_ce = true;
        return true;
    case CH_ADAM8BIT:
        if (base->optimizer != OPT_ADAM || !e->training)
            return false;
        out->optimizer = OPT_ADAM8BIT;
        out->fused = false;
        return true;
    case CH_LORA:
        if (base->lora_r || !e->hf || !e->training || !hf)
            return false;
        out->lora_r = 16;
        out->lora_targets = 0;   /* q_proj and v_proj (or GPT-2's c_attn) */
        return true;
    case CH_FSDP:
        if (count < 2 || base->shard == SHARD_FSDP || !e->training)
            return false;
        out->shard = SHARD_FSDP;
        out->world_size = count;
        return true;
    case CH_HALF_BATCH: {
        int64_t b = base->batch ? base->batch : e->batch;
        if (b < 2)
            return false;
        out->batch = b / 2;
        out->accumulation = base->accumulation * 2;
        return true;
    }
    case CH_HALF_SEQ: {
        int64_t s = base->seq ? base->seq : e->seq;
        if (!hf || s < 64)
            return false;
        out->seq = s / 2;
        return true;
    }
    default:
        return false;
    }
}

static bool run(Syntax *s, const Ir *ir, const EstimateConfig *cfg, Estimate *e)
{
    const char *why = NULL;
    return estimate_run(s, ir, cfg, e, &why);
}

static void add(Syntax *s, Remedies *out, const char *change, const Estimate *e, const Gpu *gpu, bool combo)
{
    Remedy r = {change, e->projected_peak, remedy_fits(e, gpu), combo, remedy_verdict(e, gpu)};
    VEC_PUSH(s->arena, out->list, r);
}

/* The smallest catalog GPU that holds the script as written; when none
 * does, the instance with the least GPU memory in total whose GPUs hold it
 * with FSDP over all of them (each instance estimated again). */
static const char *smallest_target(Syntax *s, const Ir *ir, const EstimateConfig *cfg, const Estimate *e)
{
    size_t n;
    const Gpu *gpus = gpu_all(&n);
    const Gpu *best = NULL;
    for (size_t i = 0; i < n; i++)
        if (e->projected_peak <= gpus[i].usable_bytes && (!best || gpus[i].usable_bytes < best->usable_bytes))
            best = &gpus[i];
    if (best)
        return best->id;
    if (!e->training)
        return NULL;
    const Instance *inst = instance_all(&n);
    const Instance *pick = NULL;
    uint64_t pick_total = 0;
    for (size_t i = 0; i < n; i++) {
        const Gpu *g = gpu_find(inst[i].gpu_id);
        if (!g || inst[i].count < 2)
            continue;
        uint64_t total = g->usable_bytes * inst[i].count;
        if (pick && total >= pick_total)
            continue;
        EstimateConfig sharded = *cfg;
        sharded.assumptions.n = 0;
        sharded.shard = SHARD_FSDP;
        sharded.world_size = inst[i].count;
        Estimate se;
        if (run(s, ir, &sharded, &se) && remedy_fits(&se, g)) {
            pick = &inst[i];
            pick_total = total;
        }
    }
    return pick ? arena_printf(s->arena, "%s (%u x %s, FSDP over all of them)", pick->name, pick->count,
                               pick->gpu_id)
                : NULL;
}

void remedy_search(Syntax *s, const Ir *ir, const EstimateConfig *cfg, const Estimate *base,
                   const Gpu *gpu, uint32_t count, Remedies *out)
{
    memset(out, 0, sizeof *out);
    uint64_t saved_by[CH__COUNT] = {0};
    bool applies[CH__COUNT] = {0};
    for (int c = 0; c < CH__COUNT; c++) {
        EstimateConfig changed;
        Estimate e;
        if (!apply(cfg, base, (Change)c, count, &changed) || !run(s, ir, &changed, &e))
            continue;
        applies[c] = true;
        saved_by[c] = base->projected_peak > e.projected_peak ? base->projected_peak - e.projected_peak : 0;
        if (saved_by[c])
            add(s, out, change_names[c], &e, gpu, false);   /* a change that saves nothing is not advice */
    }
    if (!gpu || remedy_fits(base, gpu))
        return;
    for (uint32_t i = 0; i < out->list.n; i++)
        if (out->list.v[i].fits)
            return;   /* a single change is enough */
    /* the cheapest combination: changes in order of cost, each kept only
     * when it lowers the projection, until it fits */
    EstimateConfig combo = *cfg;
    combo.assumptions.n = 0;
    Estimate e = *base;
    const char *names = NULL;
    for (int c = 0; c < CH__COUNT && !remedy_fits(&e, gpu); c++) {
        EstimateConfig next;
        Estimate ne;
        if (!applies[c] || !saved_by[c] || !apply(&combo, &e, (Change)c, count, &next) ||
            !run(s, ir, &next, &ne) || ne.projected_peak >= e.projected_peak)
            continue;
        combo = next;
        e = ne;
        names = names ? arena_printf(s->arena, "%s + %s", names, change_names[c]) : change_names[c];
    }
    if (names && e.projected_peak < base->projected_peak)
        add(s, out, names, &e, gpu, true);
    if (!remedy_fits(&e, gpu)) {
        out->smallest_target = smallest_target(s, ir, cfg, base);
        if (!out->smallest_target)
            out->smallest_target = "no GPU or instance in the catalog, not even with FSDP over its GPUs";
    }
}
