/* TG101 optimizer-before-adapter: the optimizer is built from a model's
 * parameters, then the model gets adapters (get_peft_model, LoraModel,
 * inject_adapter_in_model, add_adapter) or a replaced head, and the old
 * optimizer keeps being used: the new tensors, the only ones meant to
 * train, are not in it. */
#include "analysis.h"
#include "../ir/params.h"

/* Does optimizer o take parameters of object site? */
static bool takes_from(const OptimizerFact *o, uint32_t site)
{
    for (uint32_t s = 0; s < o->nsrc; s++)
        if (o->src[s].site == site)
            return true;
    return false;
}

/* Is `model.<part> = Module(...)` a replacement: the attribute existed? An
 * in-file class says; a library model (torchvision's fc, HF's classifier)
 * we take at its word. A brand-new attribute is TG302's. */
static bool replaces(const RuleCtx *c, const ModelEvent *e)
{
    const IrFunction *g = &c->ir->funcs.v[ir_site_function(e->site)];
    const IrValue *m = &g->values.v[ir_site_value(e->site)];
    return !m->cls || params_class_registers(c->ir, m->cls, e->part);
}

/* Is object site used by a method of fn's class other than fn? When fn is
 * __init__, those all run after it. */
static bool used_by_other_methods(const RuleCtx *c, uint32_t fn, uint32_t site)
{
    const IrFunction *f = &c->ir->funcs.v[fn];
    if (f->class_index < 0 || !f->name || !intern_is(&c->S->names, f->name, "__init__"))
        return false;
    const IrClass *k = &c->ir->classes.v[f->class_index];
    for (uint32_t m = 0; m < k->methods.n; m++)
        if ((uint32_t)k->methods.v[m] != fn && params_used_after(c->ir, k->methods.v[m], site, 0))
            return true;
    return false;
}

/* The object changed by e, after optimizer o was made, with o used after
 * the change: all as one function sees them (or its class, from __init__). */
static bool stale_after(const RuleCtx *c, const OptimizerFact *o, const ModelEvent *e)
{
    ValueId made = params_first_seen(c->ir, e->fn, o->site);
    if (!made)
        return false;
    uint32_t at = params_pos(c->ir, e->fn, e->at);
    return params_pos(c->ir, e->fn, made) < at &&
           (params_used_after(c->ir, e->fn, o->site, at) || used_by_other_methods(c, e->fn, o->site));
}

static void report(RuleCtx *c, const ModelEvent *e)
{
    if (e->kind == ME_ADAPTER) {
        rule_report(c, e->node, SEV_ERROR,
                    "the model gets its adapters after the optimizer was built from its "
                    "parameters, and that optimizer keeps being used: the adapter weights, the "
                    "only ones meant to train, are not in it",
                    "build the optimizer after adding the adapters (after get_peft_model)");
        return;
    }
    uint32_t len;
    const char *n = intern_str(&c->S->names, e->part, &len);
    rule_report(c, e->node, SEV_ERROR,
                arena_printf(c->A,
                             "`%.*s` is replaced after the optimizer was built from the model's "
                             "parameters, and that optimizer keeps being used: it still holds the "
                             "old layer, and the new one never trains",
                             (int)len, n),
                "replace the layer before building the optimizer, or add its parameters "
                "with optimizer.add_param_group()");
}

void rule_tg101(RuleCtx *c)
{
    const ParamFacts *P = c->an->params;
    for (uint32_t i = 0; i < P->optimizers.n; i++) {
        const OptimizerFact *o = &P->optimizers.v[i];
        for (uint32_t k = 0; k < P->events.n; k++) {
            const ModelEvent *e = &P->events.v[k];
            if ((e->kind != ME_ADAPTER && e->kind != ME_ATTR_STORE) || !e->site ||
                !takes_from(o, e->site))
                continue;
            /* a new layer some optimizer holds (add_param_group) is fine */
            if (e->kind == ME_ATTR_STORE && (!replaces(c, e) || params_held(P, e->added, 0)))
                continue;
            if (stale_after(c, o, e))
                report(c, e);
        }
    }
}
