/* TG305 dropout-ignores-mode: F.dropout(x, p) in model code without
 * `training=`. The functional form defaults to training=True, so dropout keeps
 * running after model.eval(): evaluation and inference are noisy and worse. */
#include "analysis.h"
#include "fixes.h"

/* `self` is in scope: the call sits in a method of a module class (or a
 * function nested in one), whose first parameter is named self. */
static bool self_in_scope(const RuleCtx *c, const IrFunction *f)
{
    for (int guard = 0; guard < 64; guard++) {
        if (f->class_index >= 0) {
            if (!c->ir->classes.v[f->class_index].is_module || !f->params.n)
                return false;
            const IrValue *p = &f->values.v[f->params.v[0]];
            return intern_is(&c->S->names, p->name, "self");
        }
        if (f->parent < 0)
            return false;
        f = &c->ir->funcs.v[f->parent];
    }
    return false;
}

/* `, training=self.training` before the call's closing parenthesis. */
static void add_training_fix(RuleCtx *c, Finding *fd, const IrValue *v)
{
    const Node *call = &c->S->nodes[v->node];
    const Node *args = call->kind == N_CALL ? node_kid(c->S, call, 1) : NULL;
    if (!args || !node_nkids(c->S, args))
        return;
    uint32_t close = node_end(c->S, args) - 1;   /* the ')' */
    if (c->S->src[close] != ')')
        return;
    /* after the last argument, so that a trailing comma stays valid */
    const Node *last = node_kid(c->S, args, node_nkids(c->S, args) - 1);
    uint32_t at = node_end(c->S, last);
    Fix *fx = fix_new(c, FIX_UNSAFE, "pass training=self.training");
    fix_edit(c, fx, at, at, ", training=self.training");
    fd->fix = fx;
}

void rule_tg305(RuleCtx *c)
{
    const Analysis *an = c->an;
    for (uint32_t fi = 0; fi < c->ir->funcs.n; fi++) {
        const IrFunction *f = &c->ir->funcs.v[fi];
        if (an_context(an, f) != CTX_MODEL)
            continue;
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = &f->values.v[i];
            if (ir_dropout_mode(c->ir, f, v) != DROPOUT_DEFAULT)
                continue;
            bool self_ok = self_in_scope(c, f);
            Finding *fd = rule_report(c, v->node, SEV_WARNING,
                        "F.dropout without `training=` in model code: the functional form "
                        "defaults to training=True, so dropout keeps running after "
                        "model.eval() and evaluation and inference are noisy",
                        self_ok ? "pass `training=self.training`"
                                : "pass the module's mode: `training=self.training`");
            if (fd && self_ok)
                add_training_fix(c, fd, v);
        }
    }
}
