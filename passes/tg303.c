/* TG303 loss-ignores-input: the value a training loop's backward() runs on
 * depends on nothing the loop draws (its batch, a next(it), noise): every
 * step trains on the same tensors, a cached batch or a stale variable.
 *
 * A forward taint over the loop: what an iteration draws is tainted, pure
 * operations pass it on, and a call pfc cannot read counts as a draw (so
 * unknown code keeps the rule quiet). A loop-carried value is the previous
 * iteration's: it carries the taint only when it was handed on raw (a batch
 * prefetched for the next step), not as a detached copy of a result. */
#include "analysis.h"
#include <string.h>

enum {
    T_CUR = 1,   /* may depend on something drawn in this iteration */
    T_RAW = 2,   /* ...without a .detach()/.item()/.clone() on the way */
    T_ALL = T_CUR | T_RAW,
};

#define MAX_CALL_DEPTH 3

typedef struct Taint {
    const Analysis *an;
    Arena *A;
    const IrFunction *f;
    BlockId h;          /* the region: loop h, or the whole function when 0 */
    uint8_t *t;         /* per value: T_* */
    uint8_t *filled;    /* per value: an object from before the region that took drawn data */
    bool any_filled;
    int depth;          /* in-file calls followed to get here */
    uint8_t *summary;   /* per function: 1 + T_* of its returns, 0 when not computed */
} Taint;

static bool in_region(const Taint *T, BlockId b)
{
    return !T->h || an_in_loop(T->f, b, T->h);
}

static ValueId root_of(const IrFunction *f, ValueId v)
{
    for (int guard = 0; guard < 32; guard++) {
        v = ir_resolve(f, v);
        const IrValue *x = &f->values.v[v];
        if ((x->op != IR_ATTR && x->op != IR_SUBSCR) || !x->nargs)
            break;
        v = x->args[0];
    }
    return v;
}

static bool named(const Analysis *an, uint32_t id, const char *const *names)
{
    uint32_t len;
    const char *s = id ? intern_str(&an->S->names, id, &len) : NULL;
    for (; s && *names; names++)
        if (strlen(*names) == len && memcmp(s, *names, len) == 0)
            return true;
    return false;
}

/* Tensor methods that compute from their receiver and arguments only. */
static const char *const pure_methods[] = {
    "to", "cuda", "cpu", "float", "half", "double", "long", "int", "bool", "bfloat16", "type",
    "type_as", "view", "view_as", "reshape", "flatten", "squeeze", "unsqueeze", "permute",
    "transpose", "t", "contiguous", "expand", "expand_as", "repeat", "mean", "sum", "pow",
    "sqrt", "abs", "exp", "log", "sigmoid", "tanh", "relu", "softmax", "log_softmax", "matmul",
    "mm", "bmm", "max", "min", "argmax", "norm", "gather", "masked_fill", "chunk", "split",
    "narrow", "index_select", "size", "dim", "numel", "neg", "mul", "add", "sub", "div",
    "requires_grad_", "squeeze_", "get", "keys", "values", "items", NULL};
/* ...and those that keep the value but cut what it was computed with. */
static const char *const cutting_methods[] = {"detach", "item", "tolist", "numpy", "clone", NULL};

static const char *const random_calls[] = {
    "torch.randn", "torch.rand", "torch.randint", "torch.randn_like", "torch.rand_like",
    "torch.randint_like", "torch.randperm", "torch.normal", "torch.bernoulli",
    "torch.multinomial", "torch.poisson", "builtins.next", "builtins.input", "builtins.open",
    NULL};


static uint8_t taint_of(Taint *T, ValueId v);
static uint8_t function_returns(Taint *T, int fi);

static uint8_t args_taint(Taint *T, const IrValue *x, uint32_t from)
{
    uint8_t k = 0;
    for (uint32_t a = from; a < x->nargs; a++)
        k |= taint_of(T, x->args[a]);
    return k;
}

static bool is_random(const Analysis *an, uint32_t q)
{
    for (const char *const *r = random_calls; *r; r++)
        if (an_qual_is(an, q, *r))
            return true;
    return an_qual_prefix(an, q, "numpy.random.") || an_qual_prefix(an, q, "random.");
}

/* A call whose result is what its operands make of it (0 when it may draw
 * something of its own: then the caller treats it as a draw). */
static bool pure_library_call(const Analysis *an, uint32_t q)
{
    if (!q || is_random(an, q))
        return false;
    return an_qual_prefix(an, q, "torch.") || an_qual_prefix(an, q, "builtins.") ||
           an_qual_prefix(an, q, "math.");
}

/* `model(x)` where pfc cannot tell what `model` is (a parameter no call in
 * the file reaches): a callable from before the loop applied to data reads
 * that data. One called with constants only (`get_batch("train")`) may draw. */
static bool opaque_function_of_data(const Taint *T, const IrValue *x)
{
    const IrFunction *f = T->f;
    const IrValue *callee = &f->values.v[ir_resolve(f, x->args[0])];
    if (callee->qual || in_region(T, callee->block) ||
        (callee->op != IR_PARAM && callee->op != IR_GLOBAL && callee->op != IR_UNPACK))
        return false;
    for (uint32_t a = 1; a < x->nargs; a++)
        if (f->values.v[ir_resolve(f, x->args[a])].op != IR_CONST)
            return true;
    return false;
}

static uint8_t method_taint(Taint *T, const IrValue *x, const IrValue *callee)
{
    const Analysis *an = T->an;
    const IrValue *recv = &T->f->values.v[ir_resolve(T->f, callee->args[0])];
    uint8_t k = taint_of(T, callee->args[0]) | args_taint(T, x, 1);
    if (named(an, callee->name, cutting_methods))
        return k & T_CUR;
    bool tensorish = recv->attach == ATT_ATTACHED ||
                     (recv->roles & (ROLE_BATCH | ROLE_LOSS | ROLE_SCALAR | ROLE_PARAM |
                                     ROLE_MODEL | ROLE_LOSS_FN));
    if (tensorish || named(an, callee->name, pure_methods))
        return k;
    return T_ALL;   /* buffer.sample(), env.step(), it.__next__(): may draw */
}

static uint8_t call_taint(Taint *T, const IrValue *x)
{
    const Analysis *an = T->an;
    const IrFunction *f = T->f;
    const IrValue *callee = &f->values.v[x->args[0]];
    if (callee->qual && is_random(an, callee->qual))
        return T_ALL;
    if (an_runs_model(an, f, x) || (callee->roles & (ROLE_MODEL | ROLE_LOSS_FN)))
        return taint_of(T, x->args[0]) | args_taint(T, x, 1);
    int fi = ir_callee_function(an->ir, f, x->args[0]);
    if (fi >= 0) {
        uint8_t k = args_taint(T, x, 1) | function_returns(T, fi);
        if (callee->op == IR_ATTR && callee->nargs)
            k |= taint_of(T, callee->args[0]);
        return T->any_filled ? T_ALL : k;   /* it may read what the loop stored */
    }
    if (callee->op == IR_ATTR && callee->nargs && !callee->qual)
        return method_taint(T, x, callee);
    if (pure_library_call(an, callee->qual) || opaque_function_of_data(T, x))
        return args_taint(T, x, 1);
    return T_ALL;
}

/* A header phi: the value from before the loop, or the previous iteration's. */
static uint8_t header_phi_taint(Taint *T, const IrValue *x)
{
    const IrBlock *b = &T->f->blocks.v[x->block];
    uint8_t k = 0;
    for (uint32_t a = 0; a < x->nargs && a < b->preds.n; a++) {
        uint8_t t = taint_of(T, x->args[a]);
        k |= an_in_loop(T->f, b->preds.v[a], x->block) ? (t & T_RAW ? T_ALL : 0) : t;
    }
    return k;
}

static uint8_t compute(Taint *T, ValueId v)
{
    const IrFunction *f = T->f;
    const IrValue *x = &f->values.v[v];
    if (!in_region(T, x->block))
        return T->filled[root_of(f, v)] ? T_ALL : 0;
    switch (x->op) {
    case IR_CONST: case IR_FUNC: case IR_CLASS: case IR_PARAM: case IR_GLOBAL: case IR_UNDEF:
        return T->filled[root_of(f, v)] ? T_ALL : 0;
    case IR_ITER_NEXT: case IR_OPAQUE: case IR_YIELD: case IR_AWAIT:
        return T_ALL;
    case IR_PHI:
        return f->blocks.v[x->block].loop_header == x->block ? header_phi_taint(T, x)
                                                              : args_taint(T, x, 0);
    case IR_CALL:
        return x->nargs ? call_taint(T, x) : T_ALL;
    case IR_ATTR:
        if (x->nargs && intern_is(&T->an->S->names, x->name, "data"))
            return taint_of(T, x->args[0]) & T_CUR;
        return (uint8_t)(args_taint(T, x, 0) | (T->filled[root_of(f, v)] ? T_ALL : 0));
    default:
        return args_taint(T, x, 0);
    }
}

static uint8_t taint_of(Taint *T, ValueId v)
{
    v = ir_resolve(T->f, v);
    return v ? T->t[v] : 0;
}

static bool fill_root(Taint *T, ValueId target)
{
    ValueId r = root_of(T->f, target);
    const IrValue *x = &T->f->values.v[r];
    bool before = x->op == IR_PARAM || x->op == IR_GLOBAL || !in_region(T, x->block);
    if (!r || !before || T->filled[r])
        return false;
    T->filled[r] = 1;
    T->any_filled = true;
    return true;
}

/* Drawn data stored into an object from before the region (self.batch = x,
 * bank.append(feat), buf.copy_(x), model.set_input(data), fill(buf, x)):
 * that object now holds the batch, and so may whatever reads it. */
static bool record_fill(Taint *T, const IrValue *x)
{
    const IrFunction *f = T->f;
    if (x->op == IR_STORE_ATTR && x->nargs >= 2)
        return taint_of(T, x->args[1]) && fill_root(T, x->args[0]);
    if (x->op == IR_STORE_SUBSCR && x->nargs >= 3)
        return taint_of(T, x->args[2]) && fill_root(T, x->args[0]);
    if (x->op != IR_CALL || !x->nargs || !args_taint(T, x, 1))
        return false;
    const IrValue *callee = &f->values.v[x->args[0]];
    if (an_runs_model(T->an, f, x) || (callee->roles & (ROLE_MODEL | ROLE_LOSS_FN)) ||
        pure_library_call(T->an, callee->qual))
        return false;
    bool method = callee->op == IR_ATTR && callee->nargs && !callee->qual;
    if (method && named(T->an, callee->name, pure_methods))
        return false;
    bool changed = method && fill_root(T, callee->args[0]);
    for (uint32_t a = 1; a < x->nargs; a++)
        if (!taint_of(T, x->args[a]))
            changed |= fill_root(T, x->args[a]);
    return changed;
}

/* Values mostly use earlier ones: a few sweeps settle loop-carried ones. */
static void run_taint(Taint *T)
{
    const IrFunction *f = T->f;
    for (int sweep = 0, changed = 1; changed && sweep < 8; sweep++) {
        changed = 0;
        for (uint32_t i = 1; i < f->values.n; i++) {
            uint8_t k = T->t[i] | compute(T, i);
            if (k != T->t[i])
                T->t[i] = k, changed = 1;
            if (in_region(T, f->values.v[i].block) && record_fill(T, &f->values.v[i]))
                changed = 1;
        }
    }
}

static Taint taint_new(const Analysis *an, Arena *A, const IrFunction *f, BlockId h,
                       uint8_t *summary, int depth)
{
    Taint T = {an, A, f, h, NULL, NULL, false, depth, summary};
    T.t = arena_zalloc(A, f->values.n);
    T.filled = arena_zalloc(A, f->values.n);
    run_taint(&T);
    return T;
}

/* What an in-file function's returns depend on that it draws itself; its
 * parameters and their attributes count as the caller's operands. */
static uint8_t function_returns(Taint *T, int fi)
{
    if (T->summary[fi])
        return T->summary[fi] - 1;
    if (T->depth >= MAX_CALL_DEPTH)
        return T_ALL;
    T->summary[fi] = 1 + T_ALL;   /* recursion: assume the worst */
    const IrFunction *g = &T->an->ir->funcs.v[fi];
    Taint G = taint_new(T->an, T->A, g, 0, T->summary, T->depth + 1);
    uint8_t k = G.any_filled ? T_ALL : 0;
    for (uint32_t i = 0; i < g->returns.n; i++) {
        const IrValue *r = &g->values.v[g->returns.v[i]];
        k |= r->nargs ? taint_of(&G, r->args[0]) : 0;
    }
    T->summary[fi] = 1 + k;
    return k;
}

/* Does the loop draw batches: iterate a loader (or anything but a range or
 * a literal list), call next(), or hold a batch? A loop over range() that
 * reuses fixed tensors is full-batch training. */
static bool draws_batches(const Analysis *an, const IrFunction *f, BlockId inner, BlockId outer)
{
    for (BlockId h = inner; h; h = h == outer ? 0 : f->blocks.v[h].loop_parent) {
        ValueId it = an_loop_iterable(f, h);
        const IrValue *x = it ? &f->values.v[ir_resolve(f, it)] : NULL;
        bool counted = x && x->op == IR_CALL && x->nargs &&
                       an_qual_is(an, f->values.v[x->args[0]].qual, "builtins.range");
        if (x && !counted && x->op != IR_BUILD && x->op != IR_CONST)
            return true;
    }
    for (uint32_t i = 1; i < f->values.n; i++) {
        const IrValue *v = &f->values.v[i];
        if (!an_in_loop(f, v->block, outer))
            continue;
        if ((v->roles & ROLE_BATCH) ||
            (v->op == IR_CALL && v->nargs &&
             an_qual_is(an, f->values.v[v->args[0]].qual, "builtins.next")))
            return true;
    }
    return false;
}

static BlockId outermost_loop(const IrFunction *f, BlockId b)
{
    BlockId out = 0;
    for (BlockId h = f->blocks.v[b].loop_header; h; h = f->blocks.v[h].loop_parent)
        out = h;
    return out;
}

/* Is v a backward() call: `x.backward()`, or `accelerator.backward(x)`,
 * `engine.backward(x)`, `torch.autograd.backward(xs)`,
 * `dist_autograd.backward(ctx, [x])` (a receiver that is no tensor: then
 * what it runs on is among the arguments)? */
static bool backward_call(const Analysis *an, const IrFunction *f, const IrValue *v, bool *on_args)
{
    ValueId recv;
    if (!an_method_call(f, v, an->n_backward, &recv))
        return false;
    *on_args = f->values.v[ir_resolve(f, recv)].qual || an_backward_engine(an, f, recv);
    return true;
}

static uint8_t backward_taint(Taint *T, const IrValue *v, bool on_args)
{
    if (!on_args)
        return taint_of(T, T->f->values.v[v->args[0]].args[0]);
    uint8_t k = args_taint(T, v, 1);
    return v->nargs > 1 ? k : T_ALL;   /* engine.backward() with nothing pfc sees */
}

static void check_function(RuleCtx *c, const IrFunction *f, uint8_t *summary)
{
    const Analysis *an = c->an;
    BlockId done = 0;
    Taint T = {0};
    for (uint32_t i = 1; i < f->values.n; i++) {
        const IrValue *v = &f->values.v[i];
        bool on_args = false;
        BlockId h = backward_call(an, f, v, &on_args) ? outermost_loop(f, v->block) : 0;
        if (!h || !draws_batches(an, f, f->blocks.v[v->block].loop_header, h))
            continue;
        if (h != done)
            T = taint_new(an, c->A, f, h, summary, 0), done = h;
        if (backward_taint(&T, v, on_args))
            continue;
        rule_report(c, v->node, SEV_NOTE,
                    "backward() runs on a value that depends on nothing this loop draws: "
                    "every step trains on the same tensors (a cached batch or a stale "
                    "variable), while the batches the loop loads go unused",
                    "compute the loss from this iteration's batch");
    }
}

void rule_tg303(RuleCtx *c)
{
    uint8_t *summary = NULL;
    for (uint32_t fi = 0; fi < c->ir->funcs.n; fi++) {
        const IrFunction *f = &c->ir->funcs.v[fi];
        if (!(c->an->effects[fi] & EFF_BACKWARD))
            continue;
        if (!summary)
            summary = arena_zalloc(c->A, c->ir->funcs.n);
        check_function(c, f, summary);
    }
}
