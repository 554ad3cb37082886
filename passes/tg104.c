/* TG104 checkpointing-without-input-grads: reentrant gradient checkpointing
 * enabled on a PEFT model after it was wrapped, without
 * enable_input_require_grads(): the frozen embeddings' output does not
 * require grad, reentrant checkpoint segments then record no graph, and no
 * gradient reaches the adapters. */
#include "analysis.h"
#include "../ir/params.h"

/* Does something enable input gradients on site: enable_input_require_grads(),
 * a hook on get_input_embeddings(), prepare_model_for_kbit_training? */
static bool input_grads(const ParamFacts *P, uint32_t site)
{
    for (uint32_t k = 0; k < P->events.n; k++)
        if ((P->events.v[k].kind == ME_INPUT_GRADS || P->events.v[k].kind == ME_KBIT_PREP) &&
            P->events.v[k].site == site)
            return true;
    return false;
}

/* The PEFT wrap of site in fn before pos, with no checkpointing enabled on
 * the base before it (PEFT then enables input gradients itself). */
static bool wrapped_before(const RuleCtx *c, const ParamFacts *P, const ModelEvent *gc)
{
    uint32_t site = gc->site, fn = gc->fn, pos = params_pos(c->ir, fn, gc->at);
    uint32_t wrap = UINT32_MAX;
    for (uint32_t k = 0; k < P->events.n; k++) {
        const ModelEvent *e = &P->events.v[k];
        uint32_t at = e->fn == fn ? params_pos(c->ir, fn, e->at) : UINT32_MAX;
        if (e->kind == ME_ADAPTER && e->value == ADAPTER_WRAPPED && e->site == site && at < pos &&
            (wrap == UINT32_MAX || at < wrap))
            wrap = at;
    }
    if (wrap == UINT32_MAX)
        return false;
    for (uint32_t k = 0; k < P->events.n; k++) {
        const ModelEvent *e = &P->events.v[k];
        if (e->kind == ME_CHECKPOINT && e->site == site && e->node != gc->node &&
            (e->fn != fn || params_pos(c->ir, fn, e->at) < wrap))
            return false;   /* enabled on the base first, or where the order is unknown */
    }
    return true;
}

void rule_tg104(RuleCtx *c)
{
    const ParamFacts *P = c->an->params;
    for (uint32_t k = 0; k < P->events.n; k++) {
        const ModelEvent *e = &P->events.v[k];
        if (e->kind != ME_CHECKPOINT || e->value != GV_TRUE || !e->site || input_grads(P, e->site) ||
            !wrapped_before(c, P, e))
            continue;
        rule_report(c, e->node, SEV_ERROR,
                    "reentrant gradient checkpointing is enabled on the PEFT model after its base "
                    "was frozen, and nothing enables input gradients: the checkpointed blocks "
                    "record no graph and no gradient reaches the adapters",
                    "call model.enable_input_require_grads() first, pass "
                    "gradient_checkpointing_kwargs={\"use_reentrant\": False}, or enable "
                    "checkpointing on the base model before get_peft_model");
    }
}
