/* TG304 method-not-called: `model.eval`, `optimizer.zero_grad`, `loss.backward`,
 * ... written as a statement without the call. The attribute is evaluated and
 * thrown away; the training step silently skips the operation. */
#include "analysis.h"
#include "fixes.h"

void rule_tg304(RuleCtx *c)
{
    const Analysis *an = c->an;
    for (uint32_t fi = 0; fi < c->ir->funcs.n; fi++) {
        const IrFunction *f = &c->ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = &f->values.v[i];
            if (v->op != IR_ATTR || !(v->flags & IRV_STMT) || !v->nargs)
                continue;
            /* A bare `x.zero_grad` or `x.backward` statement is a mistake whatever
             * x is; eval/train/step only on what may be a model or optimizer
             * (`cfg.train`, `dataset.train` are flags). */
            const IrValue *r = &f->values.v[v->args[0]];
            /* a helper's parameter nobody in the file passes: could be a model */
            bool unknown = r->op == IR_PARAM && r->attach == ATT_MAYBE && !r->roles;
            bool hit = v->name == an->n_zero_grad || v->name == an->n_backward ||
                       ((v->name == an->n_eval || v->name == an->n_train) &&
                        (r->roles & ROLE_MODEL || unknown)) ||
                       (v->name == an->n_step &&
                        (r->roles & (ROLE_OPTIMIZER | ROLE_SCHEDULER) || unknown));
            if (!hit)
                continue;
            uint32_t len;
            const char *m = intern_str(&c->S->names, v->name, &len);
            Finding *fd = rule_report(c, v->node, SEV_ERROR,
                        arena_printf(c->A,
                                     "`.%.*s` is named but not called: the statement does "
                                     "nothing, so the %.*s never happens",
                                     (int)len, m, (int)len, m),
                        arena_printf(c->A, "add the parentheses: `.%.*s()`", (int)len, m));
            if (fd && fix_allowed_in(c, f)) {
                Fix *fx = fix_new(c, FIX_SAFE, "add the missing ()");
                fix_edit(c, fx, fd->end, fd->end, "()");
                fd->fix = fx;
            }
        }
    }
}
