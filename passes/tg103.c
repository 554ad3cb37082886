/* TG103 nothing-trains: every parameter of the model is frozen
 * (requires_grad_(False) on the whole model, a `p.requires_grad = False`
 * loop over all of them, prepare_model_for_kbit_training without adapters
 * after it), and then the optimizer, or the HF Trainer, takes the
 * parameters that require grad: none. */
#include "analysis.h"
#include "../ir/params.h"
#include <string.h>

/* Does e freeze every parameter of its object? */
static bool freezes_all(const ModelEvent *e)
{
    return (e->kind == ME_GRAD_WRITE && e->value == GV_FALSE && e->whole && !e->part) ||
           e->kind == ME_KBIT_PREP;
}

/* Can e make some parameter of its object trainable again? */
static bool may_unfreeze(const ModelEvent *e)
{
    return (e->kind == ME_GRAD_WRITE && e->value != GV_FALSE) || e->kind == ME_ADAPTER ||
           e->kind == ME_ATTR_STORE;
}

/* Is every event on site that happens outside fn seen by fn (lifted to a
 * call in fn)? Otherwise its order against fn's is not known. */
static bool all_seen_in(const ParamFacts *P, uint32_t site, uint32_t fn)
{
    for (uint32_t k = 0; k < P->events.n; k++) {
        const ModelEvent *e = &P->events.v[k];
        if (e->site != site || e->fn == fn || e->kind == ME_CHECKPOINT || e->kind == ME_INPUT_GRADS)
            continue;
        bool seen = false;
        for (uint32_t j = 0; j < P->events.n && !seen; j++)
            seen = P->events.v[j].fn == fn && P->events.v[j].node == e->node &&
                   P->events.v[j].site == site;
        if (!seen)
            return false;
    }
    return true;
}


static const char *const adding_methods[] = {
    "add_module", "register_module", "register_parameter", "load_adapter", NULL};

/* May function fi add modules or parameters (build a layer, setattr,
 * add_module), itself or through the in-file functions it calls? */
static bool adds_modules(const RuleCtx *c, int fi, int depth)
{
    if (fi < 0 || depth > 3)
        return fi >= 0;
    const IrFunction *g = &c->ir->funcs.v[fi];
    for (uint32_t i = 1; i < g->values.n; i++) {
        const IrValue *v = &g->values.v[i];
        if (v->op != IR_CALL || !v->nargs)
            continue;
        const IrValue *callee = &g->values.v[v->args[0]];
        if (((v->roles & ROLE_MODEL) && params_module_has_parameters(c->ir, g, v)) ||
            intern_is(&c->S->names, callee->qual, "builtins.setattr") ||
            (callee->op == IR_ATTR && callee->name && !callee->qual &&
             an_qual_is(c->an, callee->name, "add_module")) ||
            adds_modules(c, ir_callee_function(c->ir, g, v->args[0]), depth + 1))
            return true;
    }
    return false;
}

/* May call v of fn give object site new trainable parameters: site passed
 * to a helper that builds layers or to a library function pfc cannot read,
 * setattr on it, or one of its methods that adds modules? */
static bool may_add_to(const RuleCtx *c, const IrFunction *f, const IrValue *v, uint32_t site)
{
    const IrValue *callee = &f->values.v[v->args[0]];
    if (callee->op == IR_ATTR && callee->nargs && !callee->qual &&
        f->values.v[ir_resolve(f, callee->args[0])].origin == site)
        for (const char *const *m = adding_methods; *m; m++)
            if (an_qual_is(c->an, callee->name, *m))
                return true;
    bool takes = false;
    for (uint32_t a = 1; a < v->nargs; a++)
        takes |= f->values.v[ir_resolve(f, v->args[a])].origin == site;
    if (!takes)
        return false;
    int g = ir_callee_function(c->ir, f, v->args[0]);
    if (g >= 0)
        return adds_modules(c, g, 0);
    if (intern_is(&c->S->names, callee->qual, "builtins.setattr"))
        return true;
    return !callee->qual || !(intern_has_prefix(&c->S->names, callee->qual, "torch.") ||
                              intern_has_prefix(&c->S->names, callee->qual, "builtins.") ||
                              intern_has_prefix(&c->S->names, callee->qual, "peft."));
}

/* Does some call of fn between positions a and b possibly add parameters to site? */
static bool added_between(const RuleCtx *c, uint32_t fn, uint32_t site, uint32_t a, uint32_t b)
{
    const IrFunction *f = &c->ir->funcs.v[fn];
    for (uint32_t i = 1; i < f->values.n; i++) {
        const IrValue *v = &f->values.v[i];
        if (v->op != IR_CALL || !v->nargs)
            continue;
        uint32_t at = params_pos(c->ir, fn, i);
        if (at > a && at < b && may_add_to(c, f, v, site))
            return true;
    }
    return false;
}

/* Is every parameter of site frozen at pos of fn: the last event on it
 * before pos freezes it all, and nothing after it may add parameters?
 * Returns that event. */
static const ModelEvent *frozen_at(const RuleCtx *c, const ParamFacts *P, uint32_t site,
                                   uint32_t fn, uint32_t pos)
{
    const ModelEvent *last = NULL;
    uint32_t last_pos = 0;
    for (uint32_t k = 0; k < P->events.n; k++) {
        const ModelEvent *e = &P->events.v[k];
        if (e->site != site || e->fn != fn || (!freezes_all(e) && !may_unfreeze(e)))
            continue;
        uint32_t at = params_pos(c->ir, fn, e->at);
        if (at < pos && (!last || at >= last_pos))
            last = e, last_pos = at;
    }
    return last && freezes_all(last) && all_seen_in(P, site, fn) &&
                   !added_between(c, fn, site, last_pos, pos)
               ? last
               : NULL;
}

static void report(RuleCtx *c, uint32_t node, const ModelEvent *freeze)
{
    /* name the freeze by its text, not its line: the message stays the same
     * wherever the helper that does it is defined */
    uint32_t stmt = freeze->node;   /* `p.requires_grad` -> `p.requires_grad = False` */
    for (uint32_t up; (up = an_parent(c->an, stmt)) != UINT32_MAX &&
                      c->S->nodes[up].kind != N_BLOCK && an_parent(c->an, up) != UINT32_MAX;)
        stmt = up;
    const Node *n = &c->S->nodes[stmt];
    uint32_t a = node_start(c->S, n), len = node_end(c->S, n) - a;
    while (len && (c->S->src[a + len - 1] == '\n' || c->S->src[a + len - 1] == '\r' ||
                   c->S->src[a + len - 1] == ' '))
        len--;   /* the statement's NEWLINE */
    const char *what = len && len <= 60 && !memchr(c->S->src + a, '\n', len)
                           ? arena_printf(c->A, "`%.*s`", (int)len, c->S->src + a)
                           : "a freeze";
    rule_report(c, node, SEV_ERROR,
                arena_printf(c->A,
                             "every parameter of the model is frozen (%s) before this takes the "
                             "parameters that require grad: there are none, so nothing trains",
                             what),
                "add the adapters after freezing (get_peft_model), or unfreeze what should "
                "train before building the optimizer");
}

/* An optimizer whose every source selects by requires_grad from a frozen model. */
static void check_optimizer(RuleCtx *c, const ParamFacts *P, const OptimizerFact *o)
{
    if (o->unknown || !o->nsrc)
        return;
    for (uint32_t j = 0; j < P->optimizers.n; j++)   /* add_param_group() adds to it */
        if (&P->optimizers.v[j] != o && P->optimizers.v[j].site == o->site)
            return;
    const ModelEvent *freeze = NULL;
    for (uint32_t fn = 0; fn < c->ir->funcs.n && !freeze; fn++) {
        ValueId made = params_first_seen(c->ir, fn, o->site);
        if (!made)
            continue;
        uint32_t pos = params_pos(c->ir, fn, made);
        const ModelEvent *f0 = NULL;
        bool all = true;
        for (uint32_t s = 0; s < o->nsrc && all; s++) {
            const ModelEvent *f = o->src[s].filter == PF_REQUIRES_GRAD
                                      ? frozen_at(c, P, o->src[s].site, fn, pos)
                                      : NULL;
            all = f != NULL;
            f0 = f0 ? f0 : f;
        }
        freeze = all ? f0 : NULL;
    }
    if (freeze)
        report(c, c->ir->funcs.v[o->fn].values.v[o->at].node, freeze);
}

static bool is_trainer(const RuleCtx *c, const IrValue *callee)
{
    return callee->qual && (intern_is(&c->S->names, callee->qual, "transformers.Trainer") ||
                            intern_is(&c->S->names, callee->qual, "transformers.Seq2SeqTrainer") ||
                            intern_is(&c->S->names, callee->qual, "trl.SFTTrainer"));
}

/* Trainer(model=m) without optimizers=: it builds its optimizer from the
 * parameters of m that require grad. */
static void check_trainer(RuleCtx *c, const ParamFacts *P, uint32_t fn, ValueId i)
{
    const IrFunction *f = &c->ir->funcs.v[fn];
    const IrValue *v = &f->values.v[i];
    ValueId model = 0;
    bool own_optimizer = false, peft_config = false;
    for (uint32_t a = 1; a < v->nargs; a++) {
        uint32_t kw = ir_kwname(v, a);
        if (kw && intern_is(&c->S->names, kw, "model"))
            model = v->args[a];
        own_optimizer |= kw && intern_is(&c->S->names, kw, "optimizers");
        peft_config |= kw && intern_is(&c->S->names, kw, "peft_config");
    }
    const IrValue *m = model ? &f->values.v[ir_resolve(f, model)] : NULL;
    if (!m || !m->origin || !(m->roles & ROLE_MODEL) || own_optimizer || peft_config)
        return;
    const ModelEvent *freeze = frozen_at(c, P, m->origin, fn, params_pos(c->ir, fn, i));
    if (freeze)
        report(c, v->node, freeze);
}

void rule_tg103(RuleCtx *c)
{
    const ParamFacts *P = c->an->params;
    if (P->unknown_grad_write)
        return;
    for (uint32_t i = 0; i < P->optimizers.n; i++)
        check_optimizer(c, P, &P->optimizers.v[i]);
    for (uint32_t fn = 0; fn < c->ir->funcs.n; fn++) {
        const IrFunction *f = &c->ir->funcs.v[fn];
        for (uint32_t i = 1; i < f->values.n; i++)
            if (f->values.v[i].op == IR_CALL && f->values.v[i].nargs &&
                is_trainer(c, &f->values.v[f->values.v[i].args[0]]))
                check_trainer(c, P, fn, i);
    }
}
