/* Effects per object: what a function does to which object (eval() of M,
 * train() of M, step() and zero_grad() of optimizer O, iteration of loader L),
 * summarised per function with the objects named by allocation site or by
 * parameter, and the parameters mapped to each call's arguments, so that a
 * `set_mode(m)` helper applies to the object each call site passes. */
#include "analysis.h"
#include "../base/buf.h"
#include <string.h>


/* `model.module` and `model._orig_mod` are the model a wrapper holds. */
static ValueId unwrap(const Analysis *an, const IrFunction *f, ValueId v)
{
    for (int guard = 0; guard < 16; guard++) {
        v = ir_resolve(f, v);
        const IrValue *x = &f->values.v[v];
        if (x->op != IR_ATTR || !x->nargs || x->origin ||
            (x->name != an->n_module && x->name != an->n_orig_mod))
            return v;
        v = x->args[0];
    }
    return v;
}

bool an_may_alias(const Analysis *an, const IrFunction *f, ValueId a, ValueId b)
{
    if (!a || !b)
        return true;
    for (int guard = 0; guard < 16; guard++) {
        a = unwrap(an, f, a), b = unwrap(an, f, b);
        const IrValue *x = &f->values.v[a], *y = &f->values.v[b];
        if (a == b)
            return true;
        if (x->origin && y->origin)   /* two allocation sites: two objects */
            return x->origin == y->origin;
        if (x->origin || y->origin)
            return true;   /* one unnamed: it may be the other */
        /* self.model and self.ema are two attributes; self.model read twice one */
        if (x->op != IR_ATTR || y->op != IR_ATTR || !x->nargs || !y->nargs)
            return true;
        if (x->name != y->name)
            return false;
        a = x->args[0], b = y->args[0];
    }
    return true;
}

/* The target a summary can name for v in f: its site, or the parameter it
 * is (mapped at each call); false when it is neither. */
static bool target_of(const Analysis *an, const IrFunction *f, ValueId v, uint8_t *kind, uint32_t *id)
{
    v = unwrap(an, f, v);
    const IrValue *x = &f->values.v[v];
    if (x->op == IR_PARAM) {
        *kind = MT_PARAM, *id = x->index;
        return true;
    }
    if (x->origin) {
        *kind = MT_SITE, *id = x->origin;
        return true;
    }
    return false;
}

static bool summary_add(ModeSummary *s, uint8_t effect, uint8_t kind, uint32_t id)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (s->v[i].effect == effect && s->v[i].kind == kind && s->v[i].id == id)
            return false;
    if (s->n == MODE_MAX_TARGETS) {   /* the bound: the rest is "some object" */
        bool changed = !(s->any & effect);
        s->any |= effect;
        return changed;
    }
    s->v[s->n++] = (ModeTarget){effect, kind, id};
    return true;
}

static bool summary_add_value(const Analysis *an, ModeSummary *s, const IrFunction *f,
                              uint8_t effect, ValueId v)
{
    uint8_t kind;
    uint32_t id;
    if (v && target_of(an, f, v, &kind, &id))
        return summary_add(s, effect, kind, id);
    bool changed = !(s->any & effect);
    s->any |= effect;
    return changed;
}

/* `x.training = False` / `True`: the flag eval() and train() set. */
static uint32_t training_store(const Analysis *an, const IrFunction *f, const IrValue *v)
{
    if (v->op != IR_STORE_ATTR || v->name != an->n_training || v->nargs < 2)
        return 0;
    const IrValue *c = &f->values.v[v->args[1]];
    if (c->op != IR_CONST || !c->node)
        return 0;
    const Node *n = &an->S->nodes[c->node];
    uint32_t a = node_start(an->S, n), len = node_end(an->S, n) - a;
    if (len == 5 && memcmp(an->S->src + a, "False", 5) == 0)
        return EFF_EVAL;
    if (len == 4 && memcmp(an->S->src + a, "True", 4) == 0)
        return EFF_TRAIN;
    return 0;
}

uint32_t an_mode_change(const Analysis *an, const IrFunction *f, ValueId id, ValueId *recv)
{
    const IrValue *v = &f->values.v[id];
    uint32_t e = training_store(an, f, v);
    if (e) {
        *recv = v->args[0];
        return e;
    }
    if (an_method_call(f, v, an->n_eval, recv))
        return v->nargs == 1 ? EFF_EVAL : 0;
    if (an_method_call(f, v, an->n_train, recv))
        return EFF_TRAIN;
    return 0;
}

/* The object one value acts on directly, for the effects summaries name. */
static uint32_t own_object_effect(const Analysis *an, const IrFunction *f, ValueId id, ValueId *obj)
{
    const IrValue *v = &f->values.v[id];
    uint32_t e = an_mode_change(an, f, id, obj);
    if (e)
        return e;
    if (v->op == IR_ITER_NEXT && v->nargs && (f->values.v[v->args[0]].roles & ROLE_LOADER)) {
        *obj = v->args[0];
        return EFF_ITERATE;
    }
    ValueId opt = an_stepped_optimizer(an, f, v);
    if (opt) {
        *obj = opt;
        return EFF_STEP;
    }
    if (an_method_call(f, v, an->n_zero_grad, obj))
        return EFF_ZERO_GRAD;
    return 0;
}

ValueId an_call_arg_for_param(const Analysis *an, const IrFunction *f, ValueId call, uint32_t fi,
                              uint32_t slot)
{
    const IrValue *v = &f->values.v[call];
    const IrValue *callee = &f->values.v[v->args[0]];
    const IrFunction *g = &an->ir->funcs.v[fi];
    uint32_t skip_self = callee->op == IR_ATTR || callee->cls ? 1 : 0;
    if (skip_self && slot == 0)   /* obj.method(): self is the receiver; model(x): the model */
        return callee->op == IR_ATTR && callee->nargs ? callee->args[0] : v->args[0];
    return ir_call_argument(v, g, skip_self, slot);
}

/* What calling fi at `call` does, in f's terms: a site stays, a parameter
 * becomes the argument passed for it. */
static bool add_callee(const Analysis *an, ModeSummary *s, const IrFunction *f, ValueId call,
                       uint32_t fi)
{
    const ModeSummary *c = &an->modes[fi];
    bool changed = false;
    changed |= (s->any | c->any) != s->any;
    s->any |= c->any;
    for (uint32_t i = 0; i < c->n; i++) {
        const ModeTarget *t = &c->v[i];
        if (t->kind == MT_SITE)
            changed |= summary_add(s, t->effect, MT_SITE, t->id);
        else
            changed |= summary_add_value(an, s, f, t->effect,
                                         an_call_arg_for_param(an, f, call, fi, t->id));
    }
    return changed;
}

static int callee_of(const Analysis *an, const IrFunction *f, const IrValue *v)
{
    return v->op == IR_CALL && v->nargs ? ir_callee_function(an->ir, f, v->args[0]) : -1;
}

/* One round over function fi; its own effects do not change, so only the
 * first round reads them. */
static bool summarise(Analysis *an, uint32_t fi, bool first)
{
    const IrFunction *f = &an->ir->funcs.v[fi];
    ModeSummary *s = &an->modes[fi];
    bool changed = false;
    for (uint32_t i = 1; i < f->values.n; i++) {
        ValueId obj = 0;
        uint32_t e = first ? own_object_effect(an, f, i, &obj) : 0;
        if (e)
            changed |= summary_add_value(an, s, f, (uint8_t)e, obj);
        int g = callee_of(an, f, &f->values.v[i]);
        if (g >= 0 && (uint32_t)g != fi)
            changed |= add_callee(an, s, f, i, (uint32_t)g);
    }
    return changed;
}

/* Monotone: entries are only added, and past the bound become `any`. */
void an_compute_object_effects(Analysis *an)
{
    const Ir *ir = an->ir;
    an->modes = arena_zalloc(an->S->arena, (ir->funcs.n + 1) * sizeof *an->modes);
    for (int round = 0; round < 20; round++) {
        bool changed = false;
        for (uint32_t fi = 0; fi < ir->funcs.n; fi++)
            changed |= summarise(an, fi, round == 0);
        if (!changed)
            break;
    }
}

/* Does a target of a callee's summary (mapped to call `call`) name obj? */
static bool target_is(const Analysis *an, const IrFunction *f, ValueId call, uint32_t fi,
                      const ModeTarget *t, ValueId obj)
{
    if (t->kind == MT_PARAM)
        return an_may_alias(an, f, an_call_arg_for_param(an, f, call, fi, t->id), obj);
    const IrValue *o = obj ? &f->values.v[unwrap(an, f, obj)] : NULL;
    return !o || !o->origin || o->origin == t->id;
}

/* A direct train() is lenient: anything not known to be something else. */
static bool trainable(const IrValue *r)
{
    return !(r->roles & (ROLE_OPTIMIZER | ROLE_LOADER | ROLE_LOSS | ROLE_PYNUM | ROLE_SCHEDULER));
}

bool an_ends_mode(const Analysis *an, const IrFunction *f, ValueId k, ValueId obj)
{
    ValueId recv;
    if (an_mode_change(an, f, k, &recv) == EFF_TRAIN)
        return trainable(&f->values.v[recv]) && an_may_alias(an, f, recv, obj);
    int fi = callee_of(an, f, &f->values.v[k]);
    if (fi < 0)
        return false;
    const ModeSummary *s = &an->modes[fi];
    if (s->any & EFF_TRAIN)
        return true;
    for (uint32_t i = 0; i < s->n; i++)
        if (s->v[i].effect == EFF_TRAIN && target_is(an, f, k, (uint32_t)fi, &s->v[i], obj))
            return true;
    return false;
}

/* dump-ir: ` objects=eval(fn0%6),train(p0),step(any)`, nothing when empty. */
void an_note_object_effects(const Analysis *an, uint32_t fi, Buf *out)
{
    const ModeSummary *s = &an->modes[fi];
    const char *sep = " objects=";
    for (uint32_t i = 0; i < s->n; i++, sep = ",") {
        const ModeTarget *t = &s->v[i];
        if (t->kind == MT_PARAM)
            buf_printf(out, "%s%s(p%u)", sep, an_effect_name(t->effect), t->id);
        else
            buf_printf(out, "%s%s(fn%u%%%u)", sep, an_effect_name(t->effect),
                       ir_site_function(t->id), ir_site_value(t->id));
    }
    for (uint32_t bit = 1; bit <= EFF_ITERATE; bit <<= 1)
        if (s->any & bit) {
            buf_printf(out, "%s%s(any)", sep, an_effect_name(bit));
            sep = ",";
        }
}
