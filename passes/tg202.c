/* TG202 sampler-without-set-epoch: a DistributedSampler feeds a loader that
 * an epoch loop trains from, and nothing in the file calls set_epoch(). The
 * sampler seeds its shuffle with the epoch, so every epoch sees the same
 * order on every rank. */
#include "analysis.h"
#include "fixes.h"

/* `self.sampler`: the value a method of the class stores there, if one
 * store is a sampler call; *g its function. */
static ValueId stored_on_self(const Analysis *an, const IrFunction *f, const IrValue *x,
                              const IrFunction **g)
{
    const IrValue *base = &f->values.v[x->args[0]];
    if (!base->cls)
        return 0;
    const IrClass *k = &an->ir->classes.v[base->cls - 1];
    for (uint32_t m = 0; m < k->methods.n; m++) {
        const IrFunction *h = &an->ir->funcs.v[k->methods.v[m]];
        for (uint32_t i = 1; i < h->values.n; i++) {
            const IrValue *st = &h->values.v[i];
            if (st->op == IR_STORE_ATTR && st->name == x->name && st->nargs == 2 &&
                h->values.v[st->args[0]].cls == base->cls) {
                *g = h;
                return st->args[1];
            }
        }
    }
    return 0;
}

/* `DistributedSampler(ds) if distributed else RandomSampler(ds)`, or the
 * if/else form: the distributed arm of a phi is what a multi-GPU run uses. */
static ValueId distributed_arm(const Analysis *an, const IrFunction *f, ValueId v);

static bool is_distributed_sampler(const Analysis *an, const IrFunction *f, ValueId v)
{
    const IrValue *x = &f->values.v[ir_resolve(f, v)];
    if (x->op == IR_PHI || x->op == IR_BOOLOP)
        return distributed_arm(an, f, v) != 0;
    if (x->op == IR_ATTR && x->nargs) {
        const IrFunction *g;
        ValueId s = stored_on_self(an, f, x, &g);
        return s && g->values.v[ir_resolve(g, s)].op == IR_CALL && is_distributed_sampler(an, g, s);
    }
    if (x->op != IR_CALL || !x->nargs)
        return false;
    uint32_t q = f->values.v[x->args[0]].qual;
    return an_qual_is(an, q, "torch.utils.data.distributed.DistributedSampler") ||
           an_qual_is(an, q, "torch.utils.data.DistributedSampler");
}

static ValueId distributed_arm(const Analysis *an, const IrFunction *f, ValueId v)
{
    const IrValue *x = &f->values.v[ir_resolve(f, v)];
    for (uint32_t a = 0; (x->op == IR_PHI || x->op == IR_BOOLOP) && a < x->nargs; a++) {
        const IrValue *y = &f->values.v[ir_resolve(f, x->args[a])];
        if (y->op == IR_CALL && is_distributed_sampler(an, f, x->args[a]))
            return ir_resolve(f, x->args[a]);
    }
    return 0;
}

/* DistributedSampler(ds, shuffle=False): the order never changes, set_epoch
 * or not. */
static bool shuffles(const Analysis *an, const IrFunction *f, ValueId v)
{
    uint8_t op = f->values.v[ir_resolve(f, v)].op;
    if (op == IR_PHI || op == IR_BOOLOP)
        v = distributed_arm(an, f, v);
    const IrValue *x = &f->values.v[ir_resolve(f, v)];
    if (x->op == IR_ATTR && x->nargs) {
        const IrFunction *g;
        ValueId s = stored_on_self(an, f, x, &g);
        return s && g->values.v[ir_resolve(g, s)].op == IR_CALL && shuffles(an, g, s);
    }
    for (uint32_t a = 1; a < x->nargs; a++)
        if (ir_kwname(x, a) &&
            intern_is(&an->S->names, ir_kwname(x, a), "shuffle")) {
            const IrValue *s = &f->values.v[x->args[a]];
            if (s->op != IR_CONST)
                return false;   /* decided at run time: maybe off */
            const Node *n = &an->S->nodes[s->node];
            return !(node_end(an->S, n) - node_start(an->S, n) == 5 &&
                     an->S->src[node_start(an->S, n)] == 'F');
        }
    return true;
}

/* Does the file call `.set_epoch(...)` on anything (the sampler, the
 * loader's .sampler, a batch sampler, a helper's argument)? */
static bool calls_set_epoch(const Analysis *an)
{
    uint32_t set_epoch = intern((Interner *)&an->S->names, "set_epoch", 9);
    for (uint32_t fi = 0; fi < an->ir->funcs.n; fi++) {
        const IrFunction *f = &an->ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++)
            if (f->values.v[i].op == IR_ATTR && f->values.v[i].name == set_epoch)
                return true;
    }
    return false;
}


/* The loop around a call of function fi, in another function: *where is
 * that function. 0 when no in-file call of fi sits in a loop. */
static BlockId loop_around_call(const Analysis *an, uint32_t fi, uint32_t *where)
{
    for (uint32_t gi = 0; gi < an->ir->funcs.n; gi++) {
        const IrFunction *g = &an->ir->funcs.v[gi];
        for (uint32_t i = 1; gi != fi && i < g->values.n; i++) {
            const IrValue *v = &g->values.v[i];
            BlockId h = g->blocks.v[v->block].loop_header;
            if (v->op == IR_CALL && v->nargs && h &&
                ir_callee_function(an->ir, g, v->args[0]) == (int)fi) {
                *where = gi;
                return h;
            }
        }
    }
    return 0;
}

typedef struct EpochLoop { uint32_t fn; BlockId header; } EpochLoop;

/* The epoch loop around a training loop that draws from the loader: the
 * loop enclosing it, or a loop around a call of its function. */
static bool epoch_loop(const Analysis *an, uint32_t origin, EpochLoop *out)
{
    for (uint32_t fi = 0; fi < an->ir->funcs.n; fi++) {
        const IrFunction *f = &an->ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = &f->values.v[i];
            if (v->op != IR_ITER_NEXT || !v->nargs || !an_draws_from(an, f, v->args[0], origin))
                continue;
            BlockId h = f->blocks.v[v->block].loop_header;
            if (!h || !(an_loop_effects(an, f, h) & EFF_BACKWARD))
                continue;
            BlockId outer = f->blocks.v[h].loop_parent;
            if (outer) {
                *out = (EpochLoop){fi, outer};
                return true;
            }
            uint32_t where;
            if ((outer = loop_around_call(an, fi, &where))) {
                *out = (EpochLoop){where, outer};
                return true;
            }
        }
    }
    return false;
}

/* `<sampler>.set_epoch(<epoch>)` as the first line of the epoch loop's
 * body: when the loop is a `for NAME in ...:` with an indented body, and
 * the sampler is a plain name passed to the DataLoader in that function. */
static void set_epoch_fix(RuleCtx *c, Finding *fd, const EpochLoop *el, uint32_t loader_fn,
                          uint32_t sampler_node)
{
    const IrFunction *f = &c->ir->funcs.v[el->fn];
    const Node *loop = &c->S->nodes[f->blocks.v[el->header].loop_node];
    if (el->fn != loader_fn || loop->kind != N_FOR || !fix_allowed_in(c, f) ||
        c->S->nodes[sampler_node].kind != N_NAME)
        return;
    const Node *target = node_kid(c->S, loop, 0), *body = node_kid(c->S, loop, 2);
    if (!target || target->kind != N_NAME || !body || body->kind != N_BLOCK)
        return;
    const Node *first = node_kid(c->S, body, 0);
    if (!first || node_start(c->S, first) == node_start(c->S, loop))
        return;
    uint32_t at = fix_line_start(c->S, node_start(c->S, first));
    Fix *fx = fix_new(c, FIX_UNSAFE, "call set_epoch(epoch) at the top of the epoch loop");
    fix_edit(c, fx, at, at,
             arena_printf(c->A, "%s%s.set_epoch(%s)%s", fix_indent(c, node_start(c->S, first)),
                          fix_text(c, sampler_node), fix_text(c, node_id(c->S, target)),
                          fix_newline(c->S)));
    fd->fix = fx;
}

/* The `sampler=` argument of a DataLoader call, or 0. */
static uint32_t sampler_arg(const Analysis *an, const IrValue *v)
{
    for (uint32_t a = 1; a < v->nargs; a++)
        if (ir_kwname(v, a) && intern_is(&an->S->names, ir_kwname(v, a), "sampler"))
            return a;
    return 0;
}

void rule_tg202(RuleCtx *c)
{
    const Analysis *an = c->an;
    bool checked = false;
    for (uint32_t fi = 0; fi < c->ir->funcs.n; fi++) {
        const IrFunction *f = &c->ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = &f->values.v[i];
            uint32_t a;
            if (v->op != IR_CALL || !(v->roles & ROLE_LOADER) || !v->origin ||
                !(a = sampler_arg(an, v)) || !is_distributed_sampler(an, f, v->args[a]) ||
                !shuffles(an, f, v->args[a]))
                continue;
            if (!checked && calls_set_epoch(an))
                return;
            checked = true;
            EpochLoop el;
            if (!epoch_loop(an, v->origin, &el))
                continue;
            ValueId sv = ir_resolve(f, v->args[a]);
            if (f->values.v[sv].op == IR_PHI || f->values.v[sv].op == IR_BOOLOP)
                sv = distributed_arm(an, f, sv);
            const IrValue *s = &f->values.v[sv];
            Finding *fd = rule_report(c, s->node, SEV_WARNING,
                        "DistributedSampler without set_epoch(): the epoch loop never calls "
                        "`sampler.set_epoch(epoch)`, so the shuffle is seeded the same way "
                        "every epoch and every epoch sees the same order",
                        "call `sampler.set_epoch(epoch)` at the top of the epoch loop");
            uint32_t arg = an_call_arg_node(c->S, v->node, a - 1);
            /* a RandomSampler on the other arm has no set_epoch: no fix there */
            if (fd && c->S->nodes[arg].kind == N_KEYWORD && sv == ir_resolve(f, v->args[a]))
                set_epoch_fix(c, fd, &el, fi, node_kid_id(c->S, &c->S->nodes[arg], 1));
        }
    }
}
