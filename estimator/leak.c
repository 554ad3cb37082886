/* Memory a loop keeps across iterations (see leak.h). The mechanisms are
 * the ones TG001 reports, here with their bytes: a running total of losses
 * that were not detached keeps every iteration's graph when no backward()
 * frees it; a list that collects output tensors keeps them. */
#include "interp_int.h"
#include "leak.h"
#include <string.h>

static BlockId loop_of(const IrFunction *f, ValueId v)
{
    return f->blocks.v[f->values.v[v].block].loop_header;
}

static bool in_loop(const IrFunction *f, ValueId v, BlockId header)
{
    for (BlockId b = f->blocks.v[f->values.v[v].block].loop_header, guard = 0; b && guard < 64; guard++) {
        if (b == header)
            return true;
        BlockId parent = f->blocks.v[b].loop_parent;
        if (parent == b)
            break;
        b = parent;
    }
    return false;
}

static bool calls_method(Syntax *s, const IrFunction *f, ValueId v, const char *name)
{
    const IrValue *x = &f->values.v[v];
    if (x->op != IR_CALL || !x->nargs || f->values.v[x->args[0]].op != IR_ATTR)
        return false;
    uint32_t len;
    const char *n = intern_str(&s->names, f->values.v[x->args[0]].name, &len);
    return strlen(name) == len && memcmp(n, name, len) == 0;
}

/* How many times the loop runs, when its iterable is known. */
static int64_t trip_count(Interp *in, int fi, const IrFunction *f, BlockId header)
{
    const IrBlock *b = &f->blocks.v[header];
    for (uint32_t i = 0; i < b->values.n; i++) {
        const IrValue *x = &f->values.v[b->values.v[i]];
        if (x->op != IR_ITER_NEXT)
            continue;
        AVal *seq = interp_eval(in, fi, x->args[0]);
        AVal *items = iter_items(in, seq);
        return items ? (int64_t)items->n : 0;
    }
    return 0;
}

/* A loop-header phi carrying a graph-attached value that the body reads
 * (`total = total + out.loss`). */
static bool carries_graph(const IrFunction *f, BlockId header)
{
    const IrBlock *b = &f->blocks.v[header];
    for (uint32_t i = 0; i < b->values.n; i++) {
        ValueId p = b->values.v[i];
        const IrValue *phi = &f->values.v[p];
        if (phi->op != IR_PHI || (phi->attach != ATT_ATTACHED && phi->attach != ATT_MAYBE))
            continue;
        for (uint32_t k = 1; k < f->values.n; k++) {
            const IrValue *u = &f->values.v[k];
            if (u->op == IR_PHI || u->op == IR_ITER_NEXT || !in_loop(f, k, header))
                continue;
            for (uint32_t j = 0; j < u->nargs; j++)
                if (u->args[j] == p && (u->op == IR_BINOP || u->op == IR_CALL))
                    return true;
        }
    }
    return false;
}

uint64_t estimate_retained(Syntax *s, const Ir *ir, Interp *in, const Target *t, const PassMemory *m,
                           int64_t *iterations, const char **what)
{
    const IrFunction *f = &ir->funcs.v[t->fi];
    BlockId header = loop_of(f, t->call);
    *what = NULL;
    if (!header)
        return 0;
    bool backward_in_loop = false;
    for (uint32_t k = 1; k < f->values.n; k++)
        if (in_loop(f, k, header) && calls_method(s, f, k, "backward"))
            backward_in_loop = true;
    uint64_t per_iteration = 0;
    if (!backward_in_loop && carries_graph(f, header)) {
        per_iteration += m->graph;
        *what = "a running total that is not detached keeps every iteration's graph";
    }
    for (uint32_t k = 1; k < f->values.n; k++) {
        if (!in_loop(f, k, header) || !calls_method(s, f, k, "append") || f->values.v[k].nargs < 2)
            continue;
        AVal *x = interp_eval(in, t->fi, f->values.v[k].args[1]);
        if (x->k != AV_TENSOR || !x->gpu)
            continue;
        TId r = x->t;
        while (r && in->tr->t.v[r].base)
            r = in->tr->t.v[r].base;
        uint64_t b = tr_bytes(in->tr, r);
        if (!backward_in_loop && in->tr->t.v[r].grad) {
            /* still attached: the whole graph behind it stays, even for a scalar */
            per_iteration += b + m->graph;
            *what = "a list collects tensors still attached to the graph: every iteration's graph stays";
            continue;
        }
        if (b < (1u << 20))
            continue;   /* a detached scalar or small tensor: noise */
        per_iteration += b;
        *what = "a list collects an output tensor every iteration";
    }
    if (!per_iteration)
        return 0;
    int64_t n = trip_count(in, t->fi, f, header);
    if (n <= 1) {
        *what = arena_printf(s->arena, "%s (the loop's length is unknown: one extra iteration counted)", *what);
        n = 2;
    }
    *iterations = n;
    return (uint64_t)(n - 1) * per_iteration;
}

/* An evaluation loop's running total or collected list may compute more
 * than the model call (a loss outside the model): evaluate what the loop
 * carries so that it is in the trace before the simulation. */
void loop_carried_values(Syntax *s, const Ir *ir, Interp *in, const Target *t)
{
    const IrFunction *f = &ir->funcs.v[t->fi];
    BlockId header = loop_of(f, t->call);
    if (!header)
        return;
    const IrBlock *b = &f->blocks.v[header];
    for (uint32_t i = 0; i < b->values.n; i++) {
        const IrValue *phi = &f->values.v[b->values.v[i]];
        if (phi->op != IR_PHI || (phi->attach != ATT_ATTACHED && phi->attach != ATT_MAYBE))
            continue;
        for (uint32_t k = 1; k < phi->nargs; k++)
            if (in_loop(f, phi->args[k], header))
                interp_eval(in, t->fi, phi->args[k]);
    }
    for (uint32_t k = 1; k < f->values.n; k++)
        if (in_loop(f, k, header) && calls_method(s, f, k, "append") && f->values.v[k].nargs >= 2)
            interp_eval(in, t->fi, f->values.v[k].args[1]);
}

/* Gradient accumulation written as a loop: backward() in an inner loop whose
 * enclosing loop (or the code after it) calls step(). Returns the inner
 * loop's trip count, or 1. */
int64_t loop_accumulation(Syntax *s, const Ir *ir, Interp *in, const Target *t)
{
    const IrFunction *f = &ir->funcs.v[t->fi];
    BlockId inner = loop_of(f, t->call);
    if (!inner)
        return 1;
    for (uint32_t k = 1; k < f->values.n; k++) {
        if (!calls_method(s, f, k, "step") || in_loop(f, k, inner))
            continue;
        /* a step() outside the backward's loop: in an enclosing loop, or after it */
        BlockId outer = loop_of(f, k);
        if (outer && !in_loop(f, f->blocks.v[inner].values.n ? f->blocks.v[inner].values.v[0] : t->call, outer))
            continue;
        int64_t n = trip_count(in, t->fi, f, inner);
        return n > 1 ? n : 1;
    }
    return 1;
}
