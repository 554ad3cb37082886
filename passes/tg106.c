/* TG106 qlora-dtype-mismatch: a 4-bit quantised base whose compute dtype
 * disagrees with the training precision (bf16 training with float16
 * compute, or fp16 with bfloat16): every quantised layer casts its input
 * and output, slower and less stable, and nothing says so. */
#include "analysis.h"
#include "../ir/params.h"

static const char *dtype_name(uint8_t d)
{
    return d == DT_BF16 ? "bfloat16" : d == DT_FP16 ? "float16" : "float32";
}

/* The one training precision (bf16 or fp16) that the code around a
 * quantisation config in function fn asks for: in fn itself or at module
 * level (or anywhere, for a config at module level). DT_UNKNOWN when it asks
 * for none, for both, or for one pfc cannot read. Two unit tests of one file
 * are not one run. */
static uint8_t training_precision(const ParamFacts *P, uint32_t fn)
{
    uint8_t d = DT_UNKNOWN;
    for (uint32_t i = 0; i < P->precision.n; i++) {
        if (fn && P->precision.v[i].fn && P->precision.v[i].fn != fn)
            continue;
        uint8_t x = P->precision.v[i].dtype;
        if (x != DT_FP16 && x != DT_BF16)
            return DT_UNKNOWN;
        if (d != DT_UNKNOWN && d != x)
            return DT_UNKNOWN;
        d = x;
    }
    return d;
}

void rule_tg106(RuleCtx *c)
{
    const ParamFacts *P = c->an->params;
    for (uint32_t i = 0; i < P->quant_compute.n; i++) {
        uint8_t q = P->quant_compute.v[i].dtype;
        uint8_t train = training_precision(P, P->quant_compute.v[i].fn);
        if ((q != DT_FP16 && q != DT_BF16) || train == DT_UNKNOWN || q == train)
            continue;
        rule_report(c, P->quant_compute.v[i].node, SEV_WARNING,
                    arena_printf(c->A,
                                 "the 4-bit base computes in %s but training runs in %s: every "
                                 "quantised layer casts between the two, slower and less stable",
                                 dtype_name(q), dtype_name(train)),
                    arena_printf(c->A, "use bnb_4bit_compute_dtype=torch.%s", dtype_name(train)));
    }
}
