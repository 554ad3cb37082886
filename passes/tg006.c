/* TG006 eval-mode-leak: model.eval() inside the training loop and no
 * model.train() before the next backward(): dropout stays off and BatchNorm
 * statistics stay frozen for the rest of training. */
#include "analysis.h"
#include "fixes.h"
#include <string.h>

/* Does the model depend on train/eval mode? Unknown classes (HF, torchvision)
 * do as far as we know; in-file classes only with Dropout/BatchNorm layers or
 * functional dropout. */
static bool mode_dependent(const RuleCtx *c, const IrValue *model)
{
    uint32_t cls1 = model->cls;
    if (!cls1)   /* a library model: known layers say, unknown ones may */
        return !(model->roles & ROLE_MODEL) || !model->ctor || (model->roles & ROLE_MODE_DEP);
    const Ir *ir = c->ir;
    const IrClass *k = &ir->classes.v[cls1 - 1];
    for (uint32_t m = 0; m < k->methods.n; m++) {
        const IrFunction *g = &ir->funcs.v[k->methods.v[m]];
        for (uint32_t i = 1; i < g->values.n; i++) {
            uint32_t len;
            const char *q = intern_str(&c->S->names, g->values.v[i].qual, &len);
            if (!len)
                continue;
            for (uint32_t p = 0; p + 7 <= len; p++)
                if (memcmp(q + p, "Dropout", 7) == 0 || memcmp(q + p, "dropout", 7) == 0 ||
                    (p + 9 <= len && memcmp(q + p, "BatchNorm", 9) == 0))
                    return true;
            if (g->values.v[i].op == IR_CALL && g->values.v[i].cls &&
                (uint32_t)g->values.v[i].cls != cls1 &&
                mode_dependent(c, &g->values.v[i]))
                return true;
        }
    }
    return false;
}

/* The eval() call inside function g (a helper called at `call` of f) of a
 * model: one g's facts call a model, or a parameter for which this call
 * passes one (another call site may pass something else: the join of
 * them does not decide here). */
static bool find_eval(const Analysis *an, const IrFunction *f, ValueId call, uint32_t gi,
                      ValueId *at, ValueId *recv)
{
    const IrFunction *g = &an->ir->funcs.v[gi];
    for (uint32_t i = 1; i < g->values.n; i++) {
        if (!an_method_call(g, &g->values.v[i], an->n_eval, recv))
            continue;
        const IrValue *r = &g->values.v[ir_resolve(g, *recv)];
        ValueId arg = r->op == IR_PARAM ? an_call_arg_for_param(an, f, call, gi, r->index) : 0;
        if ((r->roles & ROLE_MODEL) || (arg && (f->values.v[arg].roles & ROLE_MODEL))) {
            *at = i;
            return true;
        }
    }
    return false;
}


/* `ema.eval()` names `ema` as written, not the expression that defined it
 * (`copy.deepcopy(model)`). */
static const Node *receiver_as_written(const RuleCtx *c, const IrValue *eval_call)
{
    const Node *call = &c->S->nodes[eval_call->node];
    const Node *callee = call->kind == N_CALL ? node_kid(c->S, call, 0) : NULL;
    return callee && callee->kind == N_ATTRIBUTE ? node_kid(c->S, callee, 0) : NULL;
}

/* `<model>.train()` after the evaluation block: after the block that holds a
 * direct model.eval() (the if-body of "every N steps", or the loop body), or
 * after the statement that calls the evaluating helper. */
static void train_fix(RuleCtx *c, Finding *fd, const IrFunction *f, const IrValue *v, bool direct)
{
    uint32_t stmt = fix_statement(c, v->node);
    if (stmt == UINT32_MAX || !fix_line_of_its_own(c, stmt) || !fix_allowed_in(c, f))
        return;
    uint32_t model_node = UINT32_MAX;
    if (direct) {
        const Node *callee = node_kid(c->S, &c->S->nodes[v->node], 0);
        model_node = callee ? node_kid_id(c->S, callee, 0) : UINT32_MAX;
    } else {
        for (uint32_t a = 1; a < v->nargs && model_node == UINT32_MAX; a++)
            if (f->values.v[v->args[a]].roles & ROLE_MODEL)
                model_node = an_call_arg_node(c->S, v->node, a - 1);
    }
    if (model_node == UINT32_MAX || model_node == v->node)
        return;
    uint32_t after = stmt;
    if (direct) {   /* the last statement of the block holding model.eval() */
        uint32_t block = fix_parent(c, stmt);
        if (block == UINT32_MAX || c->S->nodes[block].kind != N_BLOCK)
            return;
        const Node *b = &c->S->nodes[block];
        after = node_kid_id(c->S, b, node_nkids(c->S, b) - 1);
    }
    Fix *fx = fix_new(c, FIX_UNSAFE, "insert model.train() after the evaluation block");
    fix_insert_line_after(c, fx, after,
                          arena_printf(c->A, "%s%s.train()",
                                       fix_indent(c, node_start(c->S, &c->S->nodes[stmt])),
                                       fix_text(c, model_node)));
    fd->fix = fx;
}

/* Are a and b one object as far as the IR tells: one allocation site (the
 * facts follow wrappers, `.to()`, `.eval()` and helpers' returns), one SSA
 * value, one module-level name, or one attribute path on one base
 * (self.model read twice)? `model.module` is the model a wrapper holds. */
static bool same_object(const IrFunction *f, ValueId a, ValueId b, uint32_t module_name)
{
    for (int guard = 0; guard < 16; guard++) {
        a = ir_resolve(f, a), b = ir_resolve(f, b);
        const IrValue *x = &f->values.v[a], *y = &f->values.v[b];
        if (x->origin && y->origin)   /* both allocation sites known */
            return x->origin == y->origin;
        if (x->op == IR_ATTR && x->name == module_name && x->nargs) {
            a = x->args[0];
            continue;
        }
        if (a == b || (x->op == IR_GLOBAL && y->op == IR_GLOBAL && x->name == y->name))
            return true;
        if (x->op != IR_ATTR || y->op != IR_ATTR || x->name != y->name || !x->nargs || !y->nargs)
            return false;
        a = x->args[0], b = y->args[0];
    }
    return false;
}

enum { TRAINED_UNKNOWN, TRAINED_SAME, TRAINED_OTHER };

/* Is obj the model loop h trains? The trained models are the callees of
 * model calls whose output reaches backward() and the models passed to calls
 * that run backward(). TRAINED_OTHER when they are all something else (an
 * EMA copy or a teacher put in eval mode is not leaking anything); UNKNOWN
 * when the loop shows none (the training hides in code pfc cannot follow). */
static int trained_object(RuleCtx *c, const IrFunction *f, BlockId h, ValueId obj)
{
    const Analysis *an = c->an;
    uint32_t module_name = an->n_module;
    bool other = false;
    for (uint32_t k = 1; k < f->values.n; k++) {
        const IrValue *v = &f->values.v[k];
        if (v->op != IR_CALL || !v->nargs || !an_in_loop(f, v->block, h))
            continue;
        /* a model run under no_grad (a teacher) feeds the loss but is not trained */
        if ((f->values.v[v->args[0]].roles & ROLE_MODEL) && v->grad != GRAD_DISABLED &&
            an_reaches_backward(an, f, k)) {
            if (same_object(f, obj, v->args[0], module_name))
                return TRAINED_SAME;
            other = true;
        }
        if (!(an_value_effects(an, f, k) & EFF_BACKWARD))
            continue;
        for (uint32_t a = 1; a < v->nargs; a++) {
            if (same_object(f, obj, v->args[a], module_name))
                return TRAINED_SAME;
            other |= (f->values.v[v->args[a]].roles & ROLE_MODEL) != 0;
        }
    }
    return other ? TRAINED_OTHER : TRAINED_UNKNOWN;
}

/* The object put in eval mode, as a value of f: the receiver of a direct
 * eval(), or the argument passed for the helper's parameter; 0 if unknown. */
static ValueId eval_object(const Analysis *an, const IrFunction *f, ValueId call, uint32_t gi,
                           ValueId recv)
{
    const IrFunction *g = &an->ir->funcs.v[gi];
    if (g == f)
        return recv;
    const IrValue *p = &g->values.v[ir_resolve(g, recv)];
    return p->op == IR_PARAM ? an_call_arg_for_param(an, f, call, gi, p->index) : 0;
}

void rule_tg006(RuleCtx *c)
{
    const Analysis *an = c->an;
    for (uint32_t fi = 0; fi < c->ir->funcs.n; fi++) {
        const IrFunction *f = &c->ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = &f->values.v[i];
            BlockId h = f->blocks.v[v->block].loop_header;
            if (!h || !(an_value_effects(an, f, i) & EFF_EVAL))
                continue;
            /* the loop that trains around this eval: innermost with backward() */
            while (h && !(an_loop_effects(an, f, h) & EFF_BACKWARD))
                h = f->blocks.v[h].loop_parent;
            if (!h)
                continue;
            const IrFunction *g = f;
            ValueId at = i, recv = 0;
            if (!an_method_call(f, v, an->n_eval, &recv)) {
                int callee = ir_callee_function(c->ir, f, v->args[0]);
                if (callee < 0 || !find_eval(an, f, i, (uint32_t)callee, &at, &recv))
                    continue;
                g = &c->ir->funcs.v[callee];
            }
            ValueId obj = eval_object(an, f, i, (uint32_t)(g - c->ir->funcs.v), recv);
            /* a helper that switches that model back itself, or a train() of
             * it on the way to the next backward() (this iteration's or the
             * next one's) */
            if ((g != f && an_ends_mode(an, f, i, obj)) ||
                !an_backward_before_train(an, c->A, f, i, obj))
                continue;
            /* the model this call evaluates, as its call site passes it */
            if (!mode_dependent(c, obj && g != f ? &f->values.v[obj] : &g->values.v[recv]))
                continue;
            if (obj && trained_object(c, f, h, obj) == TRAINED_OTHER)
                continue;
            const Node *rn = receiver_as_written(c, &g->values.v[at]);
            uint32_t len = rn ? node_end(c->S, rn) - node_start(c->S, rn) : 0;
            const char *who = len && len < 40 ? arena_strndup(c->A, c->S->src + node_start(c->S, rn), len)
                                              : "model";
            Finding *fd = rule_report(c, g->values.v[at].node, SEV_ERROR,
                        arena_printf(c->A,
                                     "%s.eval() runs inside the training loop and no %s.train() "
                                     "follows before the next backward(): from here on dropout "
                                     "is off and BatchNorm statistics are frozen for the rest of "
                                     "training",
                                     who, who),
                        arena_printf(c->A, "call `%s.train()` after the evaluation block", who));
            if (fd)
                train_fix(c, fd, f, v, g == f);
        }
    }
}
