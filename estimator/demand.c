/* Python's order in a frame evaluated on demand (interp_int.h says why):
 * which blocks run, given the branch conditions pfc can evaluate, and the
 * frame's stores, found for a read and applied to the objects. */
#include "interp_int.h"

#include <string.h>

enum { LIVE_UNKNOWN, LIVE_FINDING, LIVE_YES, LIVE_NO };

/* Deeper chains of blocks than this are taken as running: the answer is
 * then the old one (the first operand), not a wrong one. */
#define LIVE_DEPTH_MAX 4000

typedef struct DemandState {
    uint8_t *live;        /* per block: LIVE_* */
    ValueId *stores;      /* the STORE_ATTR / STORE_SUBSCR values and the calls that change
                             a container (is_mutating_call), in code order */
    ValueId *root;        /* per store: the SSA value its target hangs off */
    uint32_t nstores;
    bool *is_root;        /* per value: some store hangs off it */
    bool *applied;        /* per value (stores): applied to its object */
    AVal **prior;         /* per value (stores): what it replaced there */
    ValueId *freeze_iter; /* per value (stores): a freezing loop's ITER_NEXT (freeze_loop_iter) */
} DemandState;

static const IrFunction *frame_fn(Interp *in, const Frame *fr) { return &in->ir->funcs.v[fr->fi]; }

/* The value a store's target hangs off: `a` of `a.b[c].d = v`. */
static ValueId store_root(const IrFunction *f, ValueId target)
{
    for (uint32_t guard = 0; target && guard < 64; guard++) {
        const IrValue *t = &f->values.v[target];
        if ((t->op != IR_ATTR && t->op != IR_SUBSCR) || !t->nargs)
            break;
        target = t->args[0];
    }
    return target;
}

static bool is_store(const IrValue *x)
{
    return (x->op == IR_STORE_ATTR && x->nargs >= 2) || (x->op == IR_STORE_SUBSCR && x->nargs >= 3);
}

/* A call that changes a configuration container in place:
 * `cfg.update(other)`, `cfg.setdefault(k, v)`, and, outside loops (which a
 * demand frame does not run), `layers.append(m)` / `layers.extend(ms)`.
 * Appends in loops are left alone: `losses.append(loss.item())` would pull
 * the training step into the frame. */
static bool is_mutating_call(Interp *in, const IrFunction *f, const IrValue *x)
{
    if (x->op != IR_CALL || !x->nargs || f->values.v[x->args[0]].op != IR_ATTR)
        return false;
    const char *m = in_name(in, f->values.v[x->args[0]].name);
    if (strcmp(m, "update") == 0 || strcmp(m, "setdefault") == 0)
        return true;
    return (strcmp(m, "append") == 0 || strcmp(m, "extend") == 0) && !f->blocks.v[x->block].loop_header;
}

static bool is_method(Interp *in, const IrFunction *f, const IrValue *x, const char *name)
{
    return x->op == IR_CALL && x->nargs && f->values.v[x->args[0]].op == IR_ATTR &&
           strcmp(in_name(in, f->values.v[x->args[0]].name), name) == 0;
}

/* `p.requires_grad = flag` or `p.requires_grad_(flag)` on the loop
 * variable of `for p in R.parameters()` / `for name, p in
 * R.named_parameters()`: the loop's ITER_NEXT value, else 0. Such a loop
 * runs for each of R's parameters when R is computed (freeze_loop). */
static ValueId freeze_loop_iter(Interp *in, const IrFunction *f, const IrValue *x)
{
    ValueId target;
    if (x->op == IR_STORE_ATTR && x->nargs >= 2 && strcmp(in_name(in, x->name), "requires_grad") == 0)
        target = x->args[0];
    else if (is_method(in, f, x, "requires_grad_"))
        target = f->values.v[x->args[0]].args[0];
    else
        return 0;
    const IrValue *t = &f->values.v[target];
    if (t->op == IR_UNPACK && t->nargs) {
        target = t->args[0];
        t = &f->values.v[target];
    }
    if (t->op != IR_ITER_NEXT || !t->nargs)
        return 0;
    const IrValue *src = &f->values.v[t->args[0]];
    if (src->op != IR_CALL || !src->nargs)
        return 0;
    const IrValue *m = &f->values.v[src->args[0]];
    return (is_method(in, f, src, "parameters") || is_method(in, f, src, "named_parameters")) && m->nargs
               ? target : 0;
}

/* The module whose parameters a freezing loop iterates: R of R.parameters(). */
static ValueId freeze_loop_module(const IrFunction *f, ValueId iter)
{
    const IrValue *src = &f->values.v[f->values.v[iter].args[0]];
    return f->values.v[src->args[0]].args[0];
}

static bool is_effect(Interp *in, const IrFunction *f, const IrValue *x)
{
    return is_store(x) || is_mutating_call(in, f, x) || is_method(in, f, x, "requires_grad_");
}

/* The operand a store or mutating call changes: the target, or the method's receiver. */
static ValueId effect_target(const IrFunction *f, const IrValue *x)
{
    return x->op == IR_CALL ? f->values.v[x->args[0]].args[0] : x->args[0];
}

static DemandState *state(Interp *in, Frame *fr)
{
    if (fr->dm)
        return fr->dm;
    const IrFunction *f = frame_fn(in, fr);
    DemandState *d = arena_zalloc(in->a, sizeof *d);
    size_t nv = f->values.n + 1;
    d->live = arena_zalloc(in->a, f->blocks.n + 1);
    d->is_root = arena_zalloc(in->a, nv * sizeof *d->is_root);
    d->applied = arena_zalloc(in->a, nv * sizeof *d->applied);
    d->prior = arena_zalloc(in->a, nv * sizeof *d->prior);
    d->freeze_iter = arena_zalloc(in->a, nv * sizeof *d->freeze_iter);
    uint32_t n = 0;
    for (uint32_t v = 1; v < f->values.n; v++)
        n += is_effect(in, f, &f->values.v[v]);
    d->stores = arena_zalloc(in->a, (n + 1) * sizeof *d->stores);
    d->root = arena_zalloc(in->a, (n + 1) * sizeof *d->root);
    for (uint32_t v = 1; v < f->values.n; v++) {
        if (!is_effect(in, f, &f->values.v[v]))
            continue;
        ValueId it = freeze_loop_iter(in, f, &f->values.v[v]);
        ValueId r = store_root(f, it ? freeze_loop_module(f, it) : effect_target(f, &f->values.v[v]));
        d->freeze_iter[v] = it;
        d->stores[d->nstores] = v;
        d->root[d->nstores++] = r;
        d->is_root[r] = true;
    }
    fr->dm = d;
    return d;
}

/* ---- which blocks run --------------------------------------------------------------------- */

/* Whether block b lies in the loop headed by h (h itself included). */
static bool inside_loop(const IrFunction *f, BlockId b, BlockId h)
{
    BlockId l = f->blocks.v[b].loop_header;
    for (uint32_t guard = 0; l && guard < 256; guard++) {
        if (l == h)
            return true;
        l = f->blocks.v[l].loop_parent;
    }
    return false;
}

static bool is_back_edge(const IrFunction *f, BlockId from, BlockId to)
{
    return to && f->blocks.v[to].loop_header == to && inside_loop(f, from, to);
}

bool arm_raises(const IrFunction *f, BlockId b)
{
    for (uint32_t guard = 0; guard < 64; guard++) {
        const IrBlock *blk = &f->blocks.v[b];
        if (blk->succs.n > 1 || (guard && blk->preds.n > 1))
            return false;   /* it branches, or it reached the join */
        if (!blk->succs.n) {
            for (uint32_t i = 0; i < blk->values.n; i++)
                if (f->values.v[blk->values.v[i]].op == IR_RETURN)
                    return false;
            return true;
        }
        b = blk->succs.v[0];
    }
    return false;
}

/* The successor an if/elif test sends b to, or -1 when both may run (a
 * loop, a try). An unknown condition is taken as true, as in an executed
 * frame, unless its body only raises. */
static int taken_successor(Interp *in, Frame *fr, BlockId b)
{
    const IrFunction *f = frame_fn(in, fr);
    const IrBlock *blk = &f->blocks.v[b];
    if (blk->succs.n != 2 || !blk->cond || (b && blk->loop_header == b))
        return -1;
    bool known;
    bool t = av_truth(frame_eval(in, fr, blk->cond), &known);
    if (!known) {
        bool raises = arm_raises(f, blk->succs.v[0]);
        interp_note(in, blk->cond_node, raises ? "a condition pfc cannot evaluate was taken as false (its body raises)"
                                               : "a condition pfc cannot evaluate was taken as true");
        return raises ? 1 : 0;
    }
    return t ? 0 : 1;
}

static bool edge_taken(Interp *in, Frame *fr, BlockId from, BlockId to)
{
    int k = taken_successor(in, fr, from);
    return k < 0 || frame_fn(in, fr)->blocks.v[from].succs.v[k] == to;
}

static bool block_live(Interp *in, Frame *fr, DemandState *d, BlockId b, uint32_t depth)
{
    if (b == 0 || d->live[b] == LIVE_YES || d->live[b] == LIVE_FINDING || depth > LIVE_DEPTH_MAX)
        return true;   /* a block still being decided is taken as running */
    if (d->live[b] == LIVE_NO)
        return false;
    const IrFunction *f = frame_fn(in, fr);
    const IrBlock *blk = &f->blocks.v[b];
    d->live[b] = LIVE_FINDING;
    bool live = false;
    for (uint32_t i = 0; i < blk->preds.n && !live; i++) {
        BlockId p = blk->preds.v[i];
        live = !is_back_edge(f, p, b) && block_live(in, fr, d, p, depth + 1) && edge_taken(in, fr, p, b);
    }
    d->live[b] = live ? LIVE_YES : LIVE_NO;
    return live;
}

bool demand_edge_live(Interp *in, Frame *fr, BlockId from, BlockId to)
{
    return block_live(in, fr, state(in, fr), from, 0) && edge_taken(in, fr, from, to);
}

ValueId demand_phi_operand(Interp *in, Frame *fr, const IrValue *phi)
{
    const IrFunction *f = frame_fn(in, fr);
    const IrBlock *b = &f->blocks.v[phi->block];
    for (uint32_t i = 0; i < b->preds.n && i < phi->nargs; i++)
        if (!is_back_edge(f, b->preds.v[i], phi->block) && demand_edge_live(in, fr, b->preds.v[i], phi->block))
            return phi->args[i];
    return phi->nargs ? phi->args[0] : 0;
}

/* ---- stores ------------------------------------------------------------------------------- */

bool same_key(const AVal *a, const AVal *b)
{
    if (a->k == AV_STR && b->k == AV_STR)
        return strcmp(a->s, b->s) == 0;
    if ((a->k == AV_INT || a->k == AV_BOOL) && (b->k == AV_INT || b->k == AV_BOOL))
        return a->i == b->i;
    return false;
}

/* Whether store s writes what `read` reads: the same attribute, or a key
 * equal to the read's, of the same SSA value. */
static bool store_matches(Interp *in, Frame *fr, const IrValue *s, const IrValue *read)
{
    if (!is_store(s) || s->args[0] != read->args[0])
        return false;
    if (read->op == IR_ATTR)
        return s->op == IR_STORE_ATTR && s->name == read->name;
    return read->op == IR_SUBSCR && s->op == IR_STORE_SUBSCR && read->nargs >= 2 &&
           same_key(frame_eval(in, fr, s->args[1]), frame_eval(in, fr, read->args[1]));
}

/* Whether store s runs; a freezing loop's store runs per parameter
 * (freeze_loop decides), so what counts is that the loop is reached. */
static bool store_runs(Interp *in, Frame *fr, DemandState *d, ValueId s)
{
    const IrFunction *f = frame_fn(in, fr);
    BlockId b = f->values.v[s].block;
    if (d->freeze_iter[s])
        b = f->blocks.v[f->values.v[d->freeze_iter[s]].block].loop_header;
    return block_live(in, fr, d, b, 0);
}

ValueId demand_store_before(Interp *in, Frame *fr, ValueId read)
{
    DemandState *d = state(in, fr);
    const IrFunction *f = frame_fn(in, fr);
    const IrValue *r = &f->values.v[read];
    for (uint32_t i = d->nstores; i-- > 0;) {
        ValueId s = d->stores[i];
        if (s < read && store_matches(in, fr, &f->values.v[s], r) && store_runs(in, fr, d, s))
            return s;
    }
    return 0;
}

AVal *demand_value_before_stores(Interp *in, Frame *fr, ValueId read)
{
    DemandState *d = state(in, fr);
    const IrFunction *f = frame_fn(in, fr);
    const IrValue *r = &f->values.v[read];
    for (uint32_t i = 0; i < d->nstores; i++) {
        ValueId s = d->stores[i];
        if (s > read && d->applied[s] && store_matches(in, fr, &f->values.v[s], r))
            return d->prior[s];
    }
    return NULL;
}

/* ---- loops that freeze parameters -------------------------------------------------------- */

/* Whether block b runs in the current iteration of the loop headed by h:
 * 1 yes, 0 no, -1 it depends on a condition pfc cannot evaluate. */
static int runs_in_iteration(Interp *in, Frame *fr, BlockId b, BlockId h, int depth)
{
    const IrFunction *f = frame_fn(in, fr);
    if (b == h)
        return 1;
    if (depth > 64)
        return -1;
    int best = 0;
    const IrBlock *blk = &f->blocks.v[b];
    for (uint32_t i = 0; i < blk->preds.n; i++) {
        BlockId p = blk->preds.v[i];
        if (is_back_edge(f, p, b) || !inside_loop(f, p, h))
            continue;
        int from = runs_in_iteration(in, fr, p, h, depth + 1);
        const IrBlock *pb = &f->blocks.v[p];
        int edge = 1;
        if (from && pb->succs.n == 2 && pb->cond && pb->loop_header != p) {
            bool known;
            bool t = av_truth(frame_eval(in, fr, pb->cond), &known);
            edge = !known ? -1 : pb->succs.v[t ? 0 : 1] == b;
        }
        if (from == 1 && edge == 1)
            return 1;
        if (from && edge)
            best = -1;   /* it may run */
    }
    return best;
}

/* Forgets the values computed in the loop headed by h, so the next
 * iteration computes them from its own item. */
static void forget_loop_values(Interp *in, Frame *fr, BlockId h)
{
    const IrFunction *f = frame_fn(in, fr);
    for (uint32_t b = 0; b < f->blocks.n; b++)
        if (inside_loop(f, b, h))
            for (uint32_t i = 0; i < f->blocks.v[b].values.n; i++)
                fr->vals[f->blocks.v[b].values.v[i]] = NULL;
}

/* One iteration's effect: the stored (or passed) flag on the loop's parameter. */
static void freeze_one(Interp *in, Frame *fr, ValueId s)
{
    const IrFunction *f = frame_fn(in, fr);
    const IrValue *x = &f->values.v[s];
    if (x->op == IR_CALL) {
        frame_eval(in, fr, s);   /* param_method's requires_grad_ */
        return;
    }
    AVal *p = frame_eval(in, fr, x->args[0]);
    if (p->k == AV_PARAM)
        apply_store_attr(in, p, "requires_grad", frame_eval(in, fr, x->args[1]), NULL);
}

/* `for name, p in R.named_parameters(): if COND: p.requires_grad = False`
 * (or parameters(), requires_grad_): the loop a demand frame does not run,
 * run here for each of R's parameters, its condition evaluated with the
 * loop's variables bound (the names are PyTorch's). A parameter for which
 * the condition cannot be evaluated keeps the requires_grad it had, and the
 * report says so: counting a gradient that may not exist is the safe side of
 * an estimate, dropping one that exists is not. */
static void freeze_loop(Interp *in, Frame *fr, ValueId s, ValueId iter)
{
    const IrFunction *f = frame_fn(in, fr);
    const IrValue *x = &f->values.v[s];
    BlockId h = f->blocks.v[f->values.v[iter].block].loop_header;
    AVal *items = iter_items(in, frame_eval(in, fr, f->values.v[iter].args[0]));
    if (!items) {
        interp_note(in, x->node, "this loop freezes parameters of a module pfc cannot list: they are counted "
                                 "as trainable");
        return;
    }
    uint32_t undecided = 0;
    const char *example = NULL;
    for (uint32_t i = 0; i < items->n && !interp_error(in); i++) {
        forget_loop_values(in, fr, h);
        fr->vals[iter] = items->items[i];
        int runs = runs_in_iteration(in, fr, x->block, h, 0);
        if (runs == 1)
            freeze_one(in, fr, s);
        if (runs < 0 && !undecided++) {
            AVal *it = items->items[i];
            AVal *name = it->k == AV_SEQ && it->n == 2 ? it->items[0] : NULL;
            example = name && name->k == AV_STR ? name->s : NULL;
        }
    }
    forget_loop_values(in, fr, h);
    if (undecided)
        interp_note(in, x->node, arena_printf(in->a, "whether this loop freezes a parameter depends on a value pfc "
                                                     "cannot evaluate: %u of %u parameters%s%s%s are counted as "
                                                     "trainable", undecided, items->n, example ? " (" : "",
                                              example ? example : "", example ? ", ...)" : ""));
}

static bool is_mutable(const AVal *v) { return v->k == AV_OBJECT || v->k == AV_DICT || v->k == AV_SEQ; }

void demand_apply_stores(Interp *in, Frame *fr, ValueId v)
{
    if (!fr->demand || !is_mutable(fr->vals[v]))
        return;
    DemandState *d = state(in, fr);
    if (!d->is_root[v])
        return;
    const IrFunction *f = frame_fn(in, fr);
    for (uint32_t i = 0; i < d->nstores && !interp_error(in); i++) {
        ValueId s = d->stores[i];
        if (d->root[i] != v || d->applied[s] || !store_runs(in, fr, d, s))
            continue;
        d->applied[s] = true;   /* before its operands: they may read the object back */
        const IrValue *x = &f->values.v[s];
        if (d->freeze_iter[s]) {
            freeze_loop(in, fr, s, d->freeze_iter[s]);
            continue;
        }
        AVal *base = frame_eval(in, fr, effect_target(f, x));
        if (x->op == IR_CALL) {
            if (base->k == AV_DICT || base->k == AV_SEQ || is_method(in, f, x, "requires_grad_"))
                frame_eval(in, fr, s);   /* dict_method / seq_method / requires_grad_ change it */
        } else if (x->op == IR_STORE_ATTR)
            apply_store_attr(in, base, in_name(in, x->name), frame_eval(in, fr, x->args[1]), &d->prior[s]);
        else
            apply_store_subscr(in, base, frame_eval(in, fr, x->args[1]), frame_eval(in, fr, x->args[2]),
                               &d->prior[s]);
    }
}
