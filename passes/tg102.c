/* TG102 base-not-frozen: LoRA layers are written by hand (an in-file module
 * that registers lora_* weights) and put into a model, but nothing freezes
 * the base and the optimizer takes every parameter: a full fine-tune at
 * LoRA's learning rate, with LoRA's memory savings gone. */
#include "analysis.h"
#include "../ir/params.h"


/* Does class cls1 register a lora_* weight or layer (`self.lora_A = ...`)? */
static bool is_lora_class(const RuleCtx *c, uint32_t cls1)
{
    const IrClass *k = &c->ir->classes.v[cls1 - 1];
    if (!k->is_module)
        return false;
    for (uint32_t m = 0; m < k->methods.n; m++) {
        const IrFunction *g = &c->ir->funcs.v[k->methods.v[m]];
        for (uint32_t i = 1; i < g->values.n; i++) {
            const IrValue *v = &g->values.v[i];
            if (v->op != IR_STORE_ATTR || v->nargs != 2 || !intern_has_prefix(&c->S->names, v->name, "lora"))
                continue;
            const IrValue *x = &g->values.v[ir_resolve(g, v->args[1])];
            if (params_module_has_parameters(c->ir, g, x))
                return true;
        }
    }
    return false;
}

/* Is a LoRA layer built in function fi (outside the LoRA class itself)? */
static bool builds_lora(const RuleCtx *c, uint32_t fi)
{
    const IrFunction *f = &c->ir->funcs.v[fi];
    for (uint32_t i = 1; i < f->values.n; i++) {
        const IrValue *v = &f->values.v[i];
        if (v->op == IR_CALL && v->cls && (int)v->cls - 1 != f->class_index && is_lora_class(c, v->cls))
            return true;
    }
    return false;
}

/* Is object site passed to an in-file function that builds LoRA layers
 * (a recursive replace_linear_with_lora(module, ...) whose parameter is no
 * one object)? */
static bool passed_to_lora_builder(const RuleCtx *c, const IrFunction *f, uint32_t site)
{
    for (uint32_t i = 1; i < f->values.n; i++) {
        const IrValue *v = &f->values.v[i];
        int g = v->op == IR_CALL && v->nargs ? ir_callee_function(c->ir, f, v->args[0]) : -1;
        for (uint32_t a = 1; g >= 0 && a < v->nargs; a++)
            if (f->values.v[ir_resolve(f, v->args[a])].origin == site && builds_lora(c, (uint32_t)g))
                return true;
    }
    return false;
}

/* Are LoRA layers put into object site: built in its class's methods, in a
 * function that sees the object (it is passed in or made there), or in a
 * helper it is passed to? */
static bool gets_lora(const RuleCtx *c, uint32_t site)
{
    const IrFunction *mf = &c->ir->funcs.v[ir_site_function(site)];
    uint32_t cls1 = mf->values.v[ir_site_value(site)].cls;
    for (uint32_t fi = 0; fi < c->ir->funcs.n; fi++) {
        const IrFunction *f = &c->ir->funcs.v[fi];
        bool related = cls1 && f->class_index == (int)cls1 - 1;
        for (uint32_t i = 1; i < f->values.n && !related; i++)
            related = f->values.v[i].origin == site;
        if (related && (builds_lora(c, fi) || passed_to_lora_builder(c, f, site)))
            return true;
    }
    return false;
}

/* Is anything frozen anywhere, or could it be (a PEFT call, a library call
 * that takes the model: loralib's mark_only_lora_as_trainable)? */
static bool may_freeze(const RuleCtx *c, const ParamFacts *P, uint32_t site)
{
    if (P->unknown_grad_write)
        return true;
    for (uint32_t k = 0; k < P->events.n; k++) {
        const ModelEvent *e = &P->events.v[k];
        if ((e->kind == ME_GRAD_WRITE && e->value != GV_TRUE) || e->kind == ME_ADAPTER ||
            e->kind == ME_KBIT_PREP)
            return true;
    }
    for (uint32_t fi = 0; fi < c->ir->funcs.n; fi++) {
        const IrFunction *f = &c->ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = &f->values.v[i];
            if (v->op != IR_CALL || !v->nargs || ir_callee_function(c->ir, f, v->args[0]) >= 0)
                continue;
            const IrValue *callee = &f->values.v[v->args[0]];
            /* torch and builtins do not freeze; a method of an object (accelerator.prepare)
             * neither, as far as we know; an imported function might */
            bool known = callee->qual ? intern_has_prefix(&c->S->names, callee->qual, "torch.") ||
                                            intern_has_prefix(&c->S->names, callee->qual, "builtins.")
                                      : callee->op == IR_ATTR;
            for (uint32_t a = 1; a < v->nargs && !known; a++)
                if (f->values.v[ir_resolve(f, v->args[a])].origin == site)
                    return true;
        }
    }
    return false;
}

void rule_tg102(RuleCtx *c)
{
    const ParamFacts *P = c->an->params;
    for (uint32_t i = 0; i < P->optimizers.n; i++) {
        const OptimizerFact *o = &P->optimizers.v[i];
        if (o->unknown)
            continue;
        for (uint32_t s = 0; s < o->nsrc; s++) {
            const ParamSource *src = &o->src[s];
            if (src->part || src->filter > PF_REQUIRES_GRAD || !gets_lora(c, src->site) ||
                may_freeze(c, P, src->site))
                continue;
            rule_report(c, c->ir->funcs.v[o->fn].values.v[o->at].node, SEV_ERROR,
                        "LoRA layers are added by hand, but nothing freezes the base model and "
                        "this optimizer takes every parameter: a full fine-tune at LoRA's "
                        "learning rate, without LoRA's memory savings",
                        "freeze the base before adding the adapters (`for p in "
                        "model.parameters(): p.requires_grad = False`), then optimize only the "
                        "parameters that require grad");
            break;
        }
    }
}
