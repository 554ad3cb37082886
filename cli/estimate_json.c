/* pfc estimate --json (see estimate_report.h): one object with the same
 * keys whether it estimated or failed; a failure has the numbers null and
 * an error object {"code", "message", "path", "line"}. The inputs the
 * estimate read are carried so that a script can check what was assumed. */
#include "cli.h"
#include "estimate_report.h"
#include "../estimator/hf_lora.h"
#include "../estimator/trace.h"
#include <string.h>

static void str(Buf *b, const char *s)
{
    buf_putc(b, '"');
    buf_put_escaped(b, s, strlen(s));
    buf_putc(b, '"');
}

static void str_or_null(Buf *b, const char *s)
{
    if (s)
        str(b, s);
    else
        buf_puts(b, "null");
}

static void key(Buf *b, const char *name, bool comma)
{
    buf_printf(b, "%s\"%s\": ", comma ? ", " : "", name);
}

static void put_u64(Buf *b, const char *name, uint64_t v, bool comma)
{
    buf_printf(b, "\"%s\": %llu%s", name, (unsigned long long)v, comma ? ", " : "");
}

static void count_or_null(Buf *b, int64_t v)
{
    if (v > 0)
        buf_printf(b, "%lld", (long long)v);
    else
        buf_puts(b, "null");
}

static const char *dtype_word(int dt)
{
    return dt == DT_BF16 ? "bf16" : dt == DT_F16 ? "fp16" : dt == DT_F32 ? "fp32" : NULL;
}

static void breakdown(Buf *b, const Estimate *e)
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
    if (e->paged_state) {   /* outside the allocator: see docs/estimator.md */
        buf_puts(b, ", ");
        put_u64(b, "paged_optimizer_state", e->paged_state, false);
    }
    buf_puts(b, "},\n");
}

static void numbers(Buf *b, const Estimate *e)
{
    buf_printf(b, "  \"allocated_peak_bytes\": %llu,\n  \"reserved_peak_bytes\": %llu,\n"
                  "  \"projected_peak_bytes\": %llu,\n  \"projected_low_bytes\": %llu,\n"
                  "  \"projected_high_bytes\": %llu,\n  \"params_total\": %llu,\n"
                  "  \"params_trainable\": %llu,\n",
               (unsigned long long)e->allocated_peak, (unsigned long long)e->reserved_peak,
               (unsigned long long)e->projected_peak, (unsigned long long)e->projected_low,
               (unsigned long long)e->projected_high, (unsigned long long)e->params_total,
               (unsigned long long)e->params_trainable);
    breakdown(b, e);
    buf_puts(b, "  \"model\": ");
    str(b, e->model ? e->model : "");
    buf_puts(b, ",\n  \"model_file\": ");
    str_or_null(b, e->model_file);
    buf_printf(b, ",\n  \"batch\": %lld,\n  \"seq\": %lld,\n  \"training\": %s,\n  \"peak_phase\": ",
               (long long)e->batch, (long long)e->seq, e->training ? "true" : "false");
    str(b, e->peak_phase ? e->peak_phase : "");
    buf_puts(b, ",\n");
}

static const char *const no_numbers =
    "  \"allocated_peak_bytes\": null,\n  \"reserved_peak_bytes\": null,\n"
    "  \"projected_peak_bytes\": null,\n  \"projected_low_bytes\": null,\n"
    "  \"projected_high_bytes\": null,\n  \"params_total\": null,\n"
    "  \"params_trainable\": null,\n  \"breakdown\": {},\n  \"inputs\": null,\n";

/* ---- the inputs the estimate read ------------------------------------------------------- */

/* PEFT's module names for the target bits (hf_lora.h), in the bits' order */
static const char *const lora_names[] = {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj",
                                         "up_proj", "down_proj", "c_attn", "c_proj", "c_fc"};

static void lora(Buf *b, const EstimateConfig *c)
{
    if (!c->lora_r) {
        buf_puts(b, "null");
        return;
    }
    buf_printf(b, "{\"rank\": %u, \"targets\": [", c->lora_r);
    uint32_t bits = c->lora_targets ? c->lora_targets : LORA_Q | LORA_V;   /* the reader's assumption */
    for (uint32_t i = 0, k = 0; i < sizeof lora_names / sizeof lora_names[0]; i++)
        if (bits & (1u << i)) {
            buf_puts(b, k++ ? ", " : "");
            str(b, lora_names[i]);
        }
    buf_printf(b, "], \"targets_read\": %s, \"dropout\": %g}", c->lora_targets ? "true" : "false",
               c->lora_dropout);
}

static void quantization(Buf *b, const EstimateConfig *c)
{
    if (!c->quant_bits) {
        buf_puts(b, "null");
        return;
    }
    buf_printf(b, "{\"library\": \"bitsandbytes\", \"bits\": %d", c->quant_bits);
    if (c->quant_bits == 4) {
        buf_printf(b, ", \"double_quant\": %s, \"compute_dtype\": ", c->quant_double ? "true" : "false");
        str(b, c->quant_compute >= 0 ? dtype_word(c->quant_compute) : "fp32");
    }
    buf_printf(b, ", \"prepared_for_kbit_training\": %s}", c->kbit_prepared ? "true" : "false");
}

static const char *const shard_words[] = {"none", "ddp", "fsdp", "zero1", "zero2", "zero3",
                                           "fsdp_shard_grad_op", "fsdp_hybrid", "fsdp_no_shard"};

static void inputs(Buf *b, const Estimate *e, const EstimateConfig *c)
{
    buf_puts(b, "  \"inputs\": {\"precision\": {\"weights\": ");
    str(b, dtype_word(e->weight_dtype) ? dtype_word(e->weight_dtype) : "fp32");
    buf_puts(b, ", \"autocast\": ");
    str_or_null(b, e->autocast_dtype >= 0 ? dtype_word(e->autocast_dtype) : NULL);
    buf_puts(b, "}");
    key(b, "optimizer", true);
    str_or_null(b, !e->training ? NULL : e->optimizer_name ? e->optimizer_name : c->optimizer_name);
    buf_printf(b, ", \"gradient_checkpointing\": %s", c->grad_checkpointing ? "true" : "false");
    key(b, "attention", true);
    str_or_null(b, !e->hf ? NULL : c->eager_attention ? "eager" : "sdpa");
    key(b, "lora", true);
    lora(b, c);
    key(b, "quantization", true);
    quantization(b, c);
    buf_printf(b, ", \"world_size\": %lld", (long long)(c->world_size > 0 ? c->world_size : 1));
    key(b, "sharding", true);
    str(b, shard_words[c->shard]);
    key(b, "batch", true);
    count_or_null(b, e->batch);
    key(b, "seq", true);
    count_or_null(b, e->seq);
    key(b, "image_size", true);
    count_or_null(b, e->image_size);
    int64_t acc = e->accumulation > c->accumulation ? e->accumulation : c->accumulation;
    buf_printf(b, ", \"gradient_accumulation\": %lld},\n", (long long)(acc > 0 ? acc : 1));
}

/* ---- verdict, assumptions, remedies, error -------------------------------------------- */

static const char *const verdict_words[] = {NULL, "fits", "borderline", "does_not_fit"};

static void target(Buf *b, const EstimateReport *r)
{
    bool failed = r->failure != NULL;
    if (!r->gpu) {
        buf_puts(b, "  \"target\": null,\n  \"fits\": null,\n  \"verdict\": null,\n");
        return;
    }
    buf_puts(b, "  \"target\": {\"gpu\": ");
    str(b, r->gpu->id);
    buf_puts(b, ", \"name\": ");
    str(b, r->gpu->name);
    buf_printf(b, ", \"count\": %u, \"usable_bytes\": %llu},\n", r->count, (unsigned long long)r->gpu->usable_bytes);
    buf_printf(b, "  \"fits\": %s,\n  \"verdict\": ", failed ? "null" : remedy_fits(r->e, r->gpu) ? "true" : "false");
    str_or_null(b, failed ? NULL : verdict_words[remedy_verdict(r->e, r->gpu)]);
    buf_puts(b, ",\n");
}

static void assumptions(Buf *b, const EstimateReport *r)
{
    buf_puts(b, "  \"assumptions\": [");
    uint32_t k = 0;
    for (uint32_t i = 0; r->cfg && i < r->cfg->assumptions.n; i++, k++) {
        buf_puts(b, k ? ", " : "");
        str(b, r->cfg->assumptions.v[i]);
    }
    for (uint32_t i = 0; !r->failure && i < r->e->nnotes; i++, k++) {
        buf_puts(b, k ? ", " : "");
        str(b, r->e->notes[i]);
    }
    buf_printf(b, "],\n  \"ops_traced\": %u,\n  \"ops_assumed\": %u", r->e->ops_traced, r->e->ops_assumed);
    if (r->cfg && r->cfg->compiled)
        buf_puts(b, ",\n  \"torch_compile\": \"unmeasured (estimated as eager)\"");
}

static void remediation(Buf *b, const EstimateReport *r)
{
    buf_puts(b, ",\n  \"remediation\": [");
    for (uint32_t i = 0; r->rem && i < r->rem->list.n; i++) {
        const Remedy *m = &r->rem->list.v[i];
        buf_puts(b, i ? ",\n    " : "\n    ");
        buf_puts(b, "{\"change\": ");
        str(b, m->change);
        buf_printf(b, ", \"projected_peak_bytes\": %llu, \"fits\": %s, \"verdict\": ",
                   (unsigned long long)m->projected_peak, r->gpu ? (m->fits ? "true" : "false") : "null");
        str_or_null(b, verdict_words[m->verdict]);
        buf_puts(b, "}");
    }
    buf_puts(b, r->rem && r->rem->list.n ? "\n  ],\n" : "],\n");
    buf_puts(b, "  \"smallest_fitting_gpu\": ");
    str_or_null(b, r->rem ? r->rem->smallest_target : NULL);
}

static void error(Buf *b, const EstimateReport *r)
{
    buf_puts(b, ",\n  \"error\": ");
    const EstimateFailure *f = r->failure;
    if (!f) {
        buf_puts(b, "null\n}\n");
        return;
    }
    buf_puts(b, "{\"code\": ");
    str(b, f->code);
    buf_puts(b, ", \"message\": ");
    str(b, f->message);
    buf_puts(b, ", \"path\": ");
    str_or_null(b, r->path);
    buf_puts(b, ", \"line\": ");
    count_or_null(b, f->line);
    buf_puts(b, "}\n}\n");
}

void estimate_report_json(Buf *b, const EstimateReport *r)
{
    buf_puts(b, "{\n  \"pfc_version\": \"" PFC_VERSION "\",\n  \"script\": ");
    str_or_null(b, r->path);
    buf_puts(b, ",\n");
    if (r->failure) {
        buf_puts(b, no_numbers);
    } else {
        numbers(b, r->e);
        inputs(b, r->e, r->cfg);
    }
    target(b, r);
    assumptions(b, r);
    remediation(b, r);
    error(b, r);
}
