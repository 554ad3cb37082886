/* TG204 conditional-submodule (note): a model wrapped in DistributedDataParallel
 * without find_unused_parameters=True whose forward uses a submodule on some
 * paths only. On a step that skips it, DDP waits for gradients that never
 * come: it raises (or hangs) at the next iteration. */
#include "analysis.h"
#include <string.h>

/* Marks the blocks of forward that read self.<name> (for a read inside a
 * loop, the loop's outermost header in forward: a loop that runs at all is
 * taken to run once). Returns the first read, or 0. */
static ValueId mark_reads(const RuleCtx *c, const IrFunction *f, uint32_t name, uint8_t *mark)
{
    ValueId first = 0;
    for (uint32_t i = 1; i < f->values.n; i++) {
        const IrValue *v = &f->values.v[i];
        if (v->op != IR_ATTR || v->name != name || !v->nargs)
            continue;
        const IrValue *self = &f->values.v[ir_resolve(f, v->args[0])];
        if (self->op != IR_PARAM || self->index != 0)
            continue;
        BlockId b = v->block;
        for (BlockId h = f->blocks.v[b].loop_header; h; h = f->blocks.v[h].loop_parent)
            b = h;
        mark[b] = 1;
        if (!first)
            first = i;
    }
    (void)c;
    return first;
}

/* Is there a path from the entry to the block of forward's last return that
 * avoids every marked block? (Early returns are input guards, not steps.) */
static bool skippable(Arena *A, const IrFunction *f, const uint8_t *mark)
{
    if (!f->returns.n || mark[0])
        return false;
    BlockId goal = f->values.v[f->returns.v[f->returns.n - 1]].block;
    uint8_t *seen = arena_zalloc(A, f->blocks.n);
    BlockId *stack = arena_alloc(A, (f->blocks.n + 1) * sizeof *stack);
    uint32_t sp = 0;
    stack[sp++] = 0, seen[0] = 1;
    while (sp) {
        BlockId b = stack[--sp];
        if (b == goal)
            return true;
        const IrBlock *bb = &f->blocks.v[b];
        for (uint32_t i = 0; i < bb->succs.n; i++) {
            BlockId t = bb->succs.v[i];
            if (!seen[t] && !mark[t])
                seen[t] = 1, stack[sp++] = t;
        }
    }
    return false;
}

/* forward reads self.training: the paths depend on the mode, and in
 * training (when DDP needs every gradient) pfc cannot tell which run. */
static bool reads_training(const Analysis *an, const IrFunction *f)
{
    for (uint32_t i = 1; i < f->values.n; i++)
        if (f->values.v[i].op == IR_ATTR && f->values.v[i].name == an->n_training)
            return true;
    return false;
}

static bool is_false(const RuleCtx *c, const IrFunction *f, ValueId v)
{
    const IrValue *x = &f->values.v[v];
    if (x->op != IR_CONST || !x->node)
        return false;
    const Node *n = &c->S->nodes[x->node];
    uint32_t a = node_start(c->S, n);
    return node_end(c->S, n) - a == 5 && c->S->src[a] == 'F';
}

/* Several classes of one name (test methods each defining a ToyModel): which
 * one a call builds is not certain. */
static bool ambiguous(const Ir *ir, uint32_t cls1)
{
    uint32_t name = ir->classes.v[cls1 - 1].name, n = 0;
    for (uint32_t k = 0; k < ir->classes.n; k++)
        n += ir->classes.v[k].name == name;
    return n > 1;
}

static const ModClass *class_facts(const Analysis *an, uint32_t cls1)
{
    for (uint32_t k = 0; k < an->modules.n; k++)
        if ((uint32_t)an->modules.v[k].cls + 1 == cls1)
            return &an->modules.v[k];
    return NULL;
}

static void check_class(RuleCtx *c, const ModClass *mc)
{
    const IrFunction *f = &c->ir->funcs.v[mc->forward];
    if (reads_training(c->an, f))
        return;
    for (uint32_t i = 0; i < mc->nattrs; i++) {
        const ModAttr *a = &mc->attrs[i];
        if (a->kind == MA_BUFFER || (a->flags & (MA_NO_PARAMS | MA_CONDITIONAL)) ||
            !(a->flags & MA_IN_FORWARD))
            continue;
        uint8_t *mark = arena_zalloc(c->A, f->blocks.n);
        ValueId first = mark_reads(c, f, a->name, mark);
        if (!first || !skippable(c->A, f, mark))
            continue;
        uint32_t nl;
        const char *name = intern_str(&c->S->names, a->name, &nl);
        rule_report(c, f->values.v[first].node, SEV_NOTE,
                    arena_printf(c->A,
                                 "forward uses `self.%.*s` on some paths only, and the model is "
                                 "wrapped in DistributedDataParallel without "
                                 "find_unused_parameters=True: a step that skips it raises "
                                 "(or hangs) at the next iteration",
                                 (int)nl, name),
                    "pass `find_unused_parameters=True` to DistributedDataParallel, or use "
                    "the submodule on every path");
    }
}

void rule_tg204(RuleCtx *c)
{
    const Analysis *an = c->an;
    for (uint32_t fi = 0; fi < c->ir->funcs.n; fi++) {
        const IrFunction *f = &c->ir->funcs.v[fi];
        if (an_context(an, f) == CTX_TEST)
            continue;   /* unit tests provoke DDP's failure modes on purpose */
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = &f->values.v[i];
            if (v->op != IR_CALL || v->nargs < 2 ||
                !(an_qual_is(an, f->values.v[v->args[0]].qual,
                             "torch.nn.parallel.DistributedDataParallel") ||
                  an_qual_is(an, f->values.v[v->args[0]].qual,
                             "torch.nn.parallel.distributed.DistributedDataParallel")))
                continue;
            bool find_unused = false;   /* =True, or a value pfc cannot read */
            for (uint32_t a = 1; a < v->nargs; a++)
                if (ir_kwname(v, a) &&
                    (intern_is(&c->S->names, ir_kwname(v, a), "find_unused_parameters") ||
                     intern_is(&c->S->names, ir_kwname(v, a), "static_graph")))
                    find_unused = !is_false(c, f, v->args[a]);   /* static_graph copes too */
            const IrValue *m = &f->values.v[ir_resolve(f, v->args[1])];
            const ModClass *mc = m->cls && !ambiguous(c->ir, m->cls) ? class_facts(an, m->cls)
                                                                      : NULL;
            if (find_unused || !mc || mc->forward < 0 || mc->escapes ||
                (ir_kwname(v, 1)))
                continue;
            check_class(c, mc);
        }
    }
}
