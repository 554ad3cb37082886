/* TG002 missing-zero-grad: a loop runs backward() and optimizer.step() but
 * nothing in an iteration resets the gradients, so they add up across steps. */
#include "analysis.h"

/* The innermost loop around block b whose iterations run a backward(). */
static BlockId training_loop(const Analysis *an, const IrFunction *f, BlockId b)
{
    for (BlockId h = f->blocks.v[b].loop_header; h; h = f->blocks.v[h].loop_parent)
        if (an_loop_effects(an, f, h) & EFF_BACKWARD)
            return h;
    return 0;
}

void rule_tg002(RuleCtx *c)
{
    const Analysis *an = c->an;
    for (uint32_t fi = 0; fi < c->ir->funcs.n; fi++) {
        const IrFunction *f = &c->ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = &f->values.v[i];
            ValueId recv;
            if (!an_method_call(f, v, an->n_step, &recv) ||
                !(f->values.v[recv].roles & ROLE_OPTIMIZER) || v->nargs > 1)
                continue;   /* step(closure): an L-BFGS closure zeroes itself */
            BlockId h = training_loop(an, f, v->block);
            if (!h || (an_loop_effects(an, f, h) & EFF_ZERO_GRAD))
                continue;
            rule_report(c, v->node, SEV_ERROR,
                        "this loop calls backward() and optimizer.step() but never resets the "
                        "gradients: they add up across steps, so every update uses the sum of "
                        "all previous gradients and training diverges",
                        "call `optimizer.zero_grad()` right after `optimizer.step()` (with "
                        "gradient accumulation: after the guarded step)");
        }
    }
}
