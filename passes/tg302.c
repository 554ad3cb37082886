/* TG302 param-not-in-optimizer: a part of the model that trains is not in
 * any optimizer: the optimizers hold only some submodules of a model whose
 * forward also runs another one with grad enabled, or a module created
 * after the optimizer is used in training. It gets gradients every step and
 * is never updated. */
#include "analysis.h"
#include "../ir/params.h"


static const IrValue *site_value(const Ir *ir, uint32_t site)
{
    return &ir->funcs.v[ir_site_function(site)].values.v[ir_site_value(site)];
}

/* Is object site (or its attribute `part`, 0 for itself) called somewhere
 * with grad enabled, and does the output reach a backward()? */
static bool trained(const RuleCtx *c, uint32_t site, uint32_t part)
{
    for (uint32_t fi = 0; fi < c->ir->funcs.n; fi++) {
        const IrFunction *f = &c->ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = &f->values.v[i];
            if (v->op != IR_CALL || !v->nargs || v->grad == GRAD_DISABLED)
                continue;
            const IrValue *callee = &f->values.v[ir_resolve(f, v->args[0])];
            if (part) {
                if (callee->op != IR_ATTR || callee->name != part || !callee->nargs)
                    continue;
                callee = &f->values.v[ir_resolve(f, callee->args[0])];
            }
            if (callee->origin == site && (callee->roles & ROLE_MODEL) &&
                an_reaches_backward(c->an, f, i))
                return true;
        }
    }
    return false;
}

/* Is any requires_grad written on object site (it may be frozen on purpose)? */
static bool grad_written(const ParamFacts *P, uint32_t site)
{
    for (uint32_t k = 0; k < P->events.n; k++)
        if ((P->events.v[k].kind == ME_GRAD_WRITE || P->events.v[k].kind == ME_ADAPTER ||
             P->events.v[k].kind == ME_KBIT_PREP) && P->events.v[k].site == site)
            return true;
    return false;
}

/* Do the optimizers hold only parts of site? Sets *first to the first such optimizer. */
static bool only_parts(const ParamFacts *P, uint32_t site, const OptimizerFact **first)
{
    bool some = false;
    for (uint32_t i = 0; i < P->optimizers.n; i++)
        for (uint32_t s = 0; s < P->optimizers.v[i].nsrc; s++) {
            const ParamSource *src = &P->optimizers.v[i].src[s];
            if (src->site != site)
                continue;
            if (!src->part)
                return false;
            if (!some)
                *first = &P->optimizers.v[i];
            some = true;
        }
    return some;
}

/* The attribute of class cls1 that holds parameters, forward runs with grad,
 * and no optimizer holds: the first one __init__ registers, or 0. */
static uint32_t left_out_part(const RuleCtx *c, const ParamFacts *P, uint32_t site, uint32_t cls1)
{
    const IrClass *k = &c->ir->classes.v[cls1 - 1];
    for (uint32_t m = 0; m < k->methods.n; m++) {
        const IrFunction *g = &c->ir->funcs.v[k->methods.v[m]];
        if (!g->name || !intern_is(&c->S->names, g->name, "__init__"))
            continue;
        for (uint32_t i = 1; i < g->values.n; i++) {
            const IrValue *v = &g->values.v[i];
            if (v->op != IR_STORE_ATTR || v->nargs != 2)
                continue;
            const IrValue *x = &g->values.v[ir_resolve(g, v->args[1])];
            if (!(x->roles & ROLE_MODEL) || !params_module_has_parameters(c->ir, g, x) ||
                params_held(P, site, v->name) || params_class_patches(c->ir, cls1, v->name) ||
                !ir_forward_trains(&c->an->modules, (int)cls1 - 1, v->name))
                continue;
            return v->name;
        }
    }
    return 0;
}

static void check_parts(RuleCtx *c, const ParamFacts *P, uint32_t site)
{
    const OptimizerFact *o = NULL;
    const IrValue *model = site_value(c->ir, site);
    if (!model->cls || !only_parts(P, site, &o) || grad_written(P, site) || !trained(c, site, 0))
        return;
    uint32_t part = left_out_part(c, P, site, model->cls);
    if (!part)
        return;
    uint32_t len;
    const char *n = intern_str(&c->S->names, part, &len);
    const IrFunction *f = &c->ir->funcs.v[o->fn];
    rule_report(c, f->values.v[o->at].node, SEV_ERROR,
                arena_printf(c->A,
                             "the optimizers hold only some submodules of the model, but its "
                             "forward also runs `self.%.*s` with grad enabled: its parameters get "
                             "gradients every step and are never updated",
                             (int)len, n),
                arena_printf(c->A,
                             "pass model.parameters() (or add a parameter group for `%.*s`), or "
                             "freeze it with `requires_grad_(False)` if it is not meant to train",
                             (int)len, n));
}

/* The first optimizer of fn made before pos and used after it, or NULL. */
static const OptimizerFact *optimizer_around(const RuleCtx *c, const ParamFacts *P, uint32_t fn,
                                             uint32_t pos)
{
    for (uint32_t i = 0; i < P->optimizers.n; i++) {
        const OptimizerFact *o = &P->optimizers.v[i];
        ValueId made = params_first_seen(c->ir, fn, o->site);
        if (made && params_pos(c->ir, fn, made) < pos && params_used_after(c->ir, fn, o->site, pos))
            return o;
    }
    return NULL;
}

static void report_late(RuleCtx *c, uint32_t node)
{
    rule_report(c, node, SEV_ERROR,
                "this module is created after the optimizer and used in training, but no "
                "optimizer holds its parameters: they get gradients every step and are never "
                "updated",
                "create it before the optimizer, or add it with "
                "optimizer.add_param_group({\"params\": module.parameters()})");
}

/* A module built after the optimizer, trained, and held by none. */
static void check_late_module(RuleCtx *c, const ParamFacts *P, uint32_t fn, ValueId i)
{
    const IrFunction *f = &c->ir->funcs.v[fn];
    const IrValue *v = &f->values.v[i];
    if (v->op != IR_CALL || !(v->roles & ROLE_MODEL) || v->origin != ir_site(fn, i) ||
        !params_module_has_parameters(c->ir, f, v) || params_held(P, v->origin, 0) ||
        grad_written(P, v->origin))
        return;
    for (uint32_t k = 0; k < P->events.n; k++)
        if (P->events.v[k].kind == ME_ATTR_STORE && P->events.v[k].added == v->origin)
            return;   /* stored on a model: the attribute's case */
    if (optimizer_around(c, P, fn, params_pos(c->ir, fn, i)) && trained(c, v->origin, 0))
        report_late(c, v->node);
}

/* `model.extra = nn.Linear(...)` after the optimizer, on a class that does
 * not register `extra` itself (a replaced attribute is TG101's). */
static void check_new_attribute(RuleCtx *c, const ParamFacts *P, const ModelEvent *e)
{
    const IrValue *model = site_value(c->ir, e->site);
    if (!model->cls || params_class_registers(c->ir, model->cls, e->part) ||
        params_held(P, e->added, 0) || grad_written(P, e->added))
        return;
    const OptimizerFact *o = optimizer_around(c, P, e->fn, params_pos(c->ir, e->fn, e->at));
    bool takes = false;
    for (uint32_t s = 0; o && s < o->nsrc; s++)
        takes |= o->src[s].site == e->site;
    if (takes && (trained(c, e->site, e->part) ||
                  (ir_forward_trains(&c->an->modules, (int)model->cls - 1, e->part) &&
                   trained(c, e->site, 0))))
        report_late(c, e->node);
}

void rule_tg302(RuleCtx *c)
{
    const ParamFacts *P = c->an->params;
    if (!P->optimizers.n || params_any_unknown(P) || P->unknown_grad_write)
        return;
    for (uint32_t i = 0; i < P->optimizers.n; i++)
        for (uint32_t s = 0; s < P->optimizers.v[i].nsrc; s++)
            if (P->optimizers.v[i].src[s].part)
                check_parts(c, P, P->optimizers.v[i].src[s].site);
    for (uint32_t k = 0; k < P->events.n; k++)
        if (P->events.v[k].kind == ME_ATTR_STORE)
            check_new_attribute(c, P, &P->events.v[k]);
    for (uint32_t fi = 0; fi < c->ir->funcs.n; fi++)
        for (uint32_t i = 1; i < c->ir->funcs.v[fi].values.n; i++)
            check_late_module(c, P, fi, i);
}
