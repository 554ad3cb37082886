/* TG301 loss-detached: backward() on a value whose graph was cut: rebuilt
 * as a fresh leaf from a detached number (`torch.tensor(loss.item(),
 * requires_grad=True)`, `loss.detach().requires_grad_()`), so the gradient
 * stops at that leaf and never reaches the model; or detached outright
 * (`loss.detach().backward()`), which raises at the first step. */
#include "analysis.h"
#include <string.h>

enum {
    C_REBUILT = 1,  /* a leaf made from a detached value, with requires_grad */
    C_KILLED = 2,   /* .detach(), .item(), .data, float(): the graph stops here */
    C_OTHER = 4,    /* anything that may carry the model's graph, or unknown */
    C_KILLED_LOSS = 8, /* ...of a loss or a number: what a rebuilt leaf must not hold */
};

typedef struct Walk {
    const Analysis *an;
    const IrFunction *f;
    uint8_t *seen;
    int budget;
} Walk;

static unsigned classify(Walk *w, ValueId v);

static bool is_true(const Walk *w, ValueId v)
{
    const IrValue *x = &w->f->values.v[v];
    if (x->op != IR_CONST || !x->node)
        return false;
    const Node *n = &w->an->S->nodes[x->node];
    uint32_t a = node_start(w->an->S, n);
    return node_end(w->an->S, n) - a == 4 && w->an->S->src[a] == 'T';
}

static unsigned union_args(Walk *w, const IrValue *x, uint32_t from)
{
    unsigned k = 0;
    for (uint32_t a = from; a < x->nargs && !(k & C_OTHER); a++)
        k |= classify(w, x->args[a]);
    return k;
}

/* A leaf with requires_grad: rebuilt when what it holds was cut from a
 * graph; a fresh parameter-like leaf (`torch.tensor(0.5, requires_grad=True)`,
 * optimised itself) otherwise. */
static unsigned leaf(unsigned data)
{
    return (data & C_KILLED_LOSS) && !(data & C_OTHER) ? C_REBUILT : C_OTHER;
}

/* A loss or a reduction: `loss.detach()` cuts the model off the objective;
 * `x.detach()` of an input makes a leaf whose own gradient is wanted (a
 * reference computation in a test). */
static bool loss_like(const Walk *w, ValueId v)
{
    const IrValue *x = &w->f->values.v[ir_resolve(w->f, v)];
    uint32_t len;
    const char *n = x->name ? intern_str(&w->an->S->names, x->name, &len) : NULL;
    for (uint32_t i = 0; n && i + 4 <= len; i++)
        if (memcmp(n + i, "loss", 4) == 0)
            return true;
    return (x->roles & (ROLE_LOSS | ROLE_SCALAR)) != 0;
}

static unsigned cut(const Walk *w, ValueId of, bool number)
{
    return C_KILLED | (number || loss_like(w, of) ? C_KILLED_LOSS : 0);
}

static bool named(const Walk *w, uint32_t id, const char *s)
{
    return id && intern_is(&w->an->S->names, id, s);
}

static unsigned classify_method(Walk *w, const IrValue *x, const IrValue *callee)
{
    ValueId r = callee->args[0];
    uint32_t m = callee->name;
    if (named(w, m, "item") || named(w, m, "tolist"))
        return cut(w, r, true);
    if (named(w, m, "detach") || named(w, m, "numpy"))
        return cut(w, r, false);
    if (named(w, m, "requires_grad_"))
        return x->nargs == 1 || is_true(w, x->args[1]) ? leaf(classify(w, r)) : classify(w, r);
    if (w->f->values.v[r].roles & (ROLE_MODEL | ROLE_LOSS_FN))
        return C_OTHER;   /* running a model or a loss module */
    return classify(w, r) | union_args(w, x, 1);
}

static unsigned classify_call(Walk *w, const IrValue *x)
{
    const IrValue *callee = &w->f->values.v[x->args[0]];
    if (callee->op == IR_ATTR && callee->nargs && !callee->qual)
        return classify_method(w, x, callee);
    const Analysis *an = w->an;
    uint32_t q = callee->qual;
    if (an_qual_is(an, q, "builtins.float") || an_qual_is(an, q, "builtins.int"))
        return cut(w, x->nargs > 1 ? x->args[1] : 0, true);
    if (an_qual_is(an, q, "builtins.len"))
        return 0;   /* a count carries no graph */
    if (an_qual_is(an, q, "torch.tensor") || an_qual_is(an, q, "torch.as_tensor") ||
        an_qual_is(an, q, "torch.autograd.Variable") || an_qual_is(an, q, "torch.scalar_tensor")) {
        bool grad = false;
        for (uint32_t a = 1; a < x->nargs; a++)
            if (named(w, ir_kwname(x, a), "requires_grad"))
                grad = is_true(w, x->args[a]);
        unsigned data = x->nargs > 1 && !ir_kwname(x, 1) ? classify(w, x->args[1]) : 0;
        return grad ? leaf(data) : data;
    }
    /* torch functions compute from their arguments; torch.nn classes are modules */
    if (an_qual_is(an, q, "builtins.sum") || an_qual_prefix(an, q, "torch.nn.functional.") ||
        (q && an_qual_prefix(an, q, "torch.") && !an_qual_prefix(an, q, "torch.nn.")))
        return union_args(w, x, 1);
    return C_OTHER;
}

static unsigned classify(Walk *w, ValueId v)
{
    v = ir_resolve(w->f, v);
    if (!v || w->budget-- <= 0)
        return C_OTHER;
    if (w->seen[v])
        return 0;   /* a loop-carried phi: its other operands decide */
    w->seen[v] = 1;
    const IrValue *x = &w->f->values.v[v];
    switch (x->op) {
    case IR_CONST:
        return 0;
    case IR_BINOP: case IR_UNARY: case IR_BUILD: case IR_SUBSCR: case IR_PHI: case IR_UNPACK:
        return union_args(w, x, 0);
    case IR_ATTR:
        if (named(w, x->name, "data"))
            return x->nargs ? cut(w, x->args[0], false) : C_KILLED;
        return x->nargs ? classify(w, x->args[0]) : C_OTHER;
    case IR_CALL:
        return x->nargs ? classify_call(w, x) : C_OTHER;
    default:
        return C_OTHER;
    }
}

/* What backward() runs on: the receiver of `x.backward()`, or the argument of
 * accelerator.backward(x) / torch.autograd.backward(x); 0 if neither. */
static ValueId backward_operand(const Analysis *an, const IrFunction *f, const IrValue *v)
{
    ValueId recv;
    if (!an_method_call(f, v, an->n_backward, &recv))
        return 0;
    bool engine = an_backward_engine(an, f, recv);
    if (engine && v->nargs >= 2 && !ir_kwname(v, 1))
        return v->args[1];   /* accelerator.backward(loss), engine.backward(loss) */
    return engine ? 0 : recv;
}

void rule_tg301(RuleCtx *c)
{
    const Analysis *an = c->an;
    for (uint32_t fi = 0; fi < c->ir->funcs.n; fi++) {
        const IrFunction *f = &c->ir->funcs.v[fi];
        uint8_t *seen = NULL;
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = &f->values.v[i];
            ValueId x = backward_operand(an, f, v);
            if (!x)
                continue;
            if (!seen)
                seen = arena_alloc(c->A, f->values.n);
            memset(seen, 0, f->values.n);
            Walk w = {an, f, seen, 64};
            unsigned k = classify(&w, x);
            if (!(k & (C_REBUILT | C_KILLED)) || (k & C_OTHER))
                continue;
            rule_report(c, v->node, SEV_ERROR,
                        k & C_REBUILT
                            ? "backward() runs on a tensor rebuilt from a detached value: the "
                              "gradient stops at that new leaf, nothing reaches the model, and "
                              "optimizer.step() changes nothing"
                            : "backward() runs on a detached value (.detach(), .item(), .data): "
                              "no graph leads back to the model, so this raises at the first "
                              "step",
                        "call backward() on the loss as computed from the model's output, "
                        "before .item() or .detach()");
        }
    }
}
