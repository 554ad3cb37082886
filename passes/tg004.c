/* TG004 starved-dataloader: a DataLoader feeding a GPU training loop loads and
 * collates every batch on the main thread (num_workers=0). */
#include "analysis.h"

/* The keyword argument `name` of a call, or 0. */
static ValueId kwarg(const IrValue *v, uint32_t name)
{
    for (uint32_t i = 1; v->kwnames && i < v->nargs; i++)
        if (v->kwnames[i] == name)
            return v->args[i];
    return 0;
}

/* Is the loader with this origin iterated by a loop that reaches backward()? */
static bool feeds_training(const Analysis *an, uint32_t origin)
{
    const Ir *ir = an->ir;
    for (uint32_t fi = 0; fi < ir->funcs.n; fi++) {
        const IrFunction *f = &ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = &f->values.v[i];
            if (v->op != IR_ITER_NEXT || !v->nargs || f->values.v[v->args[0]].origin != origin)
                continue;
            /* the loop that draws from the loader (not an enclosing epoch loop,
             * which also runs the validation loader) */
            BlockId h = f->blocks.v[v->block].loop_header;
            if (h && (an_loop_effects(an, f, h) & EFF_BACKWARD))
                return true;
        }
    }
    return false;
}

/* A dataset of tensors already on the GPU: DataLoader(TensorDataset(x.cuda(), ...)). */
static bool dataset_on_device(const IrFunction *f, const IrValue *loader)
{
    if (loader->nargs < 2 || (loader->kwnames && loader->kwnames[1]))
        return false;
    const IrValue *ds = &f->values.v[loader->args[1]];
    if (ds->op != IR_CALL)
        return (ds->roles & ROLE_CUDA) != 0;
    for (uint32_t i = 1; i < ds->nargs; i++)
        if (f->values.v[ds->args[i]].roles & ROLE_CUDA)
            return true;
    return false;
}

static bool is_false(const Syntax *S, const IrFunction *f, ValueId v)
{
    const IrValue *x = &f->values.v[v];
    return x->op == IR_CONST && x->node && S->toks.v[S->nodes[x->node].first_tok].kind == T_KW_FALSE;
}

void rule_tg004(RuleCtx *c)
{
    const Analysis *an = c->an;
    if (!an->uses_cuda)
        return;
    for (uint32_t fi = 0; fi < c->ir->funcs.n; fi++) {
        const IrFunction *f = &c->ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = &f->values.v[i];
            if (v->op != IR_CALL || !(v->roles & ROLE_LOADER) || !v->origin ||
                !an_qual_is(an, f->values.v[v->args[0]].qual, "torch.utils.data.DataLoader"))
                continue;
            ValueId workers = kwarg(v, an->n_num_workers);
            if (workers && !an_is_const_zero(an, f, workers))
                continue;
            if (dataset_on_device(f, v) || !feeds_training(an, v->origin))
                continue;
            ValueId pin_arg = kwarg(v, an->n_pin_memory);
            bool pin = pin_arg && !is_false(c->S, f, pin_arg);
            const char *remark = an->non_blocking && !pin
                                     ? "; batches move with non_blocking=True but pin_memory is "
                                       "not set, so those copies are synchronous anyway"
                                     : "";
            rule_report(c, v->node, SEV_WARNING,
                        arena_printf(c->A,
                                     "this DataLoader feeds a GPU training loop with %s: one "
                                     "CPU thread loads and collates every batch while the GPU "
                                     "waits%s",
                                     workers ? "num_workers=0" : "the default num_workers=0",
                                     remark),
                        "pass `num_workers=min(8, os.cpu_count())`, `pin_memory=True` and "
                        "`persistent_workers=True`");
        }
    }
}
