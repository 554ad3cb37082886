/* TG002 missing-zero-grad: a loop runs backward() and optimizer.step() but
 * nothing in an iteration resets the stepped optimizer's gradients, so they
 * add up across steps; or zero_grad() runs on every micro-step while step()
 * waits for an accumulation condition, which silently disables accumulation. */
#include "analysis.h"
#include "fixes.h"


/* The innermost loop around block b whose iterations run a backward(). */
static BlockId training_loop(const Analysis *an, const IrFunction *f, BlockId b)
{
    for (BlockId h = f->blocks.v[b].loop_header; h; h = f->blocks.v[h].loop_parent)
        if (an_loop_effects(an, f, h) & EFF_BACKWARD)
            return h;
    return 0;
}

/* A name for "which optimizer": the variable, parameter or attribute it is
 * read from, so that `opt_g` and `opt_d` differ even through phis. */
static uint32_t identity_name(const IrFunction *f, ValueId v)
{
    for (int guard = 0; guard < 16; guard++) {
        const IrValue *x = &f->values.v[v];
        if (x->name && (x->op == IR_GLOBAL || x->op == IR_PARAM || x->op == IR_ATTR ||
                        x->op == IR_PHI || x->op == IR_CALL))
            return x->name;
        if (x->op == IR_PHI && x->nargs)
            v = x->args[0];
        else
            return 0;
    }
    return 0;
}

typedef struct ZeroFacts {
    bool any;          /* something resets gradients in the loop */
    bool matches;      /* ... and it covers the stepped optimizer */
    ValueId call;      /* a zero_grad() call directly in the loop */
} ZeroFacts;

/* The model an optimizer was built over: SGD(model.parameters()) -> model. */
static uint32_t optimizer_model_name(const IrFunction *f, ValueId opt)
{
    const IrValue *o = &f->values.v[opt];
    if (o->op != IR_CALL || o->nargs < 2)
        return 0;
    const IrValue *p = &f->values.v[o->args[1]];
    if (p->op != IR_CALL || !p->nargs)
        return 0;
    const IrValue *attr = &f->values.v[p->args[0]];
    return attr->op == IR_ATTR && attr->nargs ? identity_name(f, attr->args[0]) : 0;
}

/* May the zero_grad() receiver be the stepped optimizer? Told apart by
 * allocation site when both have one (`opts["D"]` is the Adam made for
 * D), else by the name they are read from (`opt_g` / `opt_d`); when
 * neither tells (`opts[name]`), they may be the same. */
static bool may_be_stepped(const IrFunction *f, ValueId recv, ValueId opt, uint32_t want)
{
    const IrValue *a = &f->values.v[recv], *b = &f->values.v[opt];
    if (recv == opt)
        return true;
    if (a->origin && b->origin)
        return a->origin == b->origin;
    uint32_t name = identity_name(f, recv);
    return !want || !name || name == want;
}

static ZeroFacts zeroing_in_loop(const Analysis *an, const IrFunction *f, BlockId h,
                                 ValueId opt)
{
    ZeroFacts z = {false, false, 0};
    uint32_t want = identity_name(f, opt);
    uint32_t owner = optimizer_model_name(f, opt);
    for (uint32_t i = 1; i < f->values.n; i++) {
        const IrValue *v = &f->values.v[i];
        if (!an_in_loop(f, v->block, h))
            continue;
        /* `optimizer.zero_grad` without (): the author meant to zero; TG304
         * reports it, and its fix makes it so */
        if (v->op == IR_ATTR && (v->flags & IRV_STMT) && v->name == an->n_zero_grad) {
            z.any = z.matches = true;
            continue;
        }
        if (!(an_value_effects(an, f, i) & EFF_ZERO_GRAD))
            continue;
        z.any = true;
        ValueId recv;
        if (!an_method_call(f, v, an->n_zero_grad, &recv)) {
            z.matches = true;   /* p.grad = None, or a helper: cannot tell whose */
            continue;
        }
        const IrValue *r = &f->values.v[recv];
        bool same_optimizer = (r->roles & ROLE_OPTIMIZER)
                                  ? may_be_stepped(f, recv, opt, want)
                                  : recv == opt || (want && identity_name(f, recv) == want);
        /* model.zero_grad() zeroes that model's parameters: it covers the
         * optimizer unless we know the optimizer holds another model's */
        bool model_zero = !(r->roles & ROLE_OPTIMIZER) &&
                          (!owner || identity_name(f, recv) == owner);
        if (same_optimizer || model_zero) {
            z.matches = true;
            if (!z.call)
                z.call = i;   /* this optimizer's (or model's) own zero_grad() */
        }
    }
    return z;
}

/* The accumulation guard around a step: the nearest `if` whose test uses %.
 * Found through the IR: the step's block has a single predecessor that
 * evaluates a comparison containing a modulo. */
static uint32_t accumulation_guard(const Analysis *an, const IrFunction *f, const IrValue *step)
{
    const IrBlock *b = &f->blocks.v[step->block];
    for (int guard = 0; guard < 8 && b->preds.n == 1; guard++) {
        const IrBlock *p = &f->blocks.v[b->preds.v[0]];
        for (uint32_t k = p->values.n; k-- > 0;) {
            const IrValue *t = &f->values.v[p->values.v[k]];
            if (t->op != IR_COMPARE || !t->node)
                continue;
            const Node *n = &an->S->nodes[t->node];
            for (uint32_t i = node_start(an->S, n); i < node_end(an->S, n); i++)
                if (an->S->src[i] == '%')
                    return t->node;
            break;
        }
        b = p;
    }
    return 0;
}

/* `<optimizer>.zero_grad()` on a new line after the step() statement, at its
 * indentation (unsafe: where to zero is the author's call). */
static void zero_grad_fix(RuleCtx *c, Finding *fd, const IrFunction *f, const IrValue *step,
                          ValueId opt)
{
    uint32_t stmt = fix_statement(c, step->node);
    if (!fd || stmt == UINT32_MAX || !fix_line_of_its_own(c, stmt) || !fix_allowed_in(c, f))
        return;
    /* the optimizer as written at the call: `opt` in opt.step() or scaler.step(opt) */
    const Node *callee = node_kid(c->S, &c->S->nodes[step->node], 0);
    uint32_t who = step->args[0] && f->values.v[step->args[0]].nargs &&
                           f->values.v[step->args[0]].args[0] == opt && callee
                       ? node_kid_id(c->S, callee, 0)
                       : an_call_arg_node(c->S, step->node, 0);
    if (who == UINT32_MAX || who == step->node)
        return;
    const Node *line = &c->S->nodes[stmt];
    Fix *fx = fix_new(c, FIX_UNSAFE, "insert zero_grad() after step()");
    fix_insert_line_after(c, fx, stmt,
                          arena_printf(c->A, "%s%s.zero_grad()",
                                       fix_indent(c, node_start(c->S, line)), fix_text(c, who)));
    fd->fix = fx;
}

enum Missing { MISSING_IN_LOOP, MISSING_OTHER_ZEROED, MISSING_HELPER };

static Finding *report_missing(RuleCtx *c, const IrValue *step, enum Missing why)
{
    static const char *const text[] = {
        [MISSING_IN_LOOP] = "this loop calls backward() and optimizer.step() but never resets the "
                            "gradients: they add up across steps, so every update uses the sum of "
                            "all previous gradients and training diverges",
        [MISSING_OTHER_ZEROED] = "this loop resets the gradients of another optimizer but never "
                                 "this one's: its gradients add up across steps and training "
                                 "diverges",
        [MISSING_HELPER] = "this step() runs on every iteration of the training loops that call "
                           "this function, and neither they nor it resets the gradients: they "
                           "add up across steps and training diverges",
    };
    return rule_report(c, step->node, SEV_ERROR, text[why],
                       "call `zero_grad()` on this optimizer right after its `step()` (with "
                       "gradient accumulation: after the guarded step)");
}

/* A helper that steps outside any loop of its own (`train_step(model, opt,
 * batch)`): every in-file call of it sits in a training loop that never
 * resets gradients, the helper included. */
static bool stepping_helper_never_zeroed(const Analysis *an, uint32_t fi)
{
    const Ir *ir = an->ir;
    if (!an->ncalls[fi] || (an->effects[fi] & EFF_ZERO_GRAD))
        return false;
    uint32_t in_training_loops = 0;
    for (uint32_t gi = 0; gi < ir->funcs.n; gi++) {
        const IrFunction *g = &ir->funcs.v[gi];
        for (uint32_t i = 1; i < g->values.n; i++) {
            const IrValue *v = &g->values.v[i];
            if (v->op != IR_CALL || !v->nargs || ir_callee_function(ir, g, v->args[0]) != (int)fi)
                continue;
            BlockId h = training_loop(an, g, v->block);
            if (!h || (an_loop_effects(an, g, h) & EFF_ZERO_GRAD))
                return false;   /* called once, or from a loop that zeroes */
            in_training_loops++;
        }
    }
    return in_training_loops > 0;
}

void rule_tg002(RuleCtx *c)
{
    const Analysis *an = c->an;
    for (uint32_t fi = 0; fi < c->ir->funcs.n; fi++) {
        const IrFunction *f = &c->ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = &f->values.v[i];
            ValueId recv = an_stepped_optimizer(an, f, v);
            if (!recv)
                continue;
            /* step(closure): the closure runs backward; fine if it zeroes */
            if (v->nargs == 2 && f->values.v[v->args[1]].op == IR_FUNC &&
                (an->effects[f->values.v[v->args[1]].index] & EFF_ZERO_GRAD))
                continue;
            BlockId h = training_loop(an, f, v->block);
            if (!h) {
                if (stepping_helper_never_zeroed(an, fi))
                    zero_grad_fix(c, report_missing(c, v, MISSING_HELPER), f, v, recv);
                continue;
            }
            ZeroFacts z = zeroing_in_loop(an, f, h, recv);
            if (!z.any || !z.matches) {
                zero_grad_fix(c, report_missing(c, v, z.any ? MISSING_OTHER_ZEROED : MISSING_IN_LOOP), f,
                              v, recv);
                continue;
            }
            /* zero_grad() on every micro-step, step() held back by `% accum`:
             * the gradients are wiped before they can accumulate */
            if (z.call && accumulation_guard(an, f, v) &&
                !accumulation_guard(an, f, &f->values.v[z.call]))
                rule_report(c, v->node, SEV_ERROR,
                            "zero_grad() runs on every micro-step while step() waits for the "
                            "accumulation condition: the accumulated gradients are wiped "
                            "before each step, so accumulation is silently disabled",
                            "move `optimizer.zero_grad()` under the same condition, right after "
                            "`optimizer.step()`");
        }
    }
}
