/* TG201 unwrapped-model: init_process_group runs but the model that trains
 * is never wrapped in DistributedDataParallel / FSDP, or it is wrapped and
 * the training loop still calls the unwrapped object. Each process then
 * trains its own copy: gradients are never averaged across ranks. */
#include "analysis.h"
#include <string.h>

/* The last component of a callee's name (`DDP`, `prepare`, `fully_shard`). */
static const char *callee_name(const Analysis *an, const IrFunction *f, const IrValue *call,
                               uint32_t *len)
{
    const IrValue *c = &f->values.v[call->args[0]];
    uint32_t id = c->op == IR_ATTR || c->op == IR_GLOBAL ? c->name : 0;
    if (c->qual) {
        const char *q = intern_str(&an->S->names, c->qual, len);
        uint32_t dot = *len;
        while (dot > 0 && q[dot - 1] != '.')
            dot--;
        *len -= dot;
        return q + dot;
    }
    return id ? intern_str(&an->S->names, id, len) : NULL;
}

static bool contains_ci(const char *s, uint32_t len, const char *w)
{
    size_t n = strlen(w);
    for (uint32_t i = 0; i + n <= len; i++) {
        size_t k = 0;
        while (k < n && (s[i + k] | 0x20) == w[k])
            k++;
        if (k == n)
            return true;
    }
    return false;
}

/* A call that may wrap the model or synchronise gradients some other way:
 * DDP, FSDP, fully_shard, parallelize_module, accelerator.prepare,
 * deepspeed.initialize, fabric.setup, a project's wrap_model(), a manual
 * all_reduce of the gradients. Any of these and pfc says nothing. */
static bool may_synchronise(const Analysis *an, const IrFunction *f, const IrValue *call)
{
    static const char *const words[] = {
        "ddp", "dataparallel", "fsdp", "shard", "parallel", "wrap", "prepare", "initialize",
        "setup", "reduce", "average", "sync", "trainer", "launch", "spawn", "engine",
    };
    uint32_t len;
    const char *n = callee_name(an, f, call, &len);
    if (!n)
        return false;
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (contains_ci(n, len, words[i]))
            return true;
    return false;
}

static bool is_wrapper(const Analysis *an, const IrFunction *f, const IrValue *call)
{
    uint32_t q = f->values.v[call->args[0]].qual;
    return an_qual_is(an, q, "torch.nn.parallel.DistributedDataParallel") ||
           an_qual_is(an, q, "torch.nn.parallel.distributed.DistributedDataParallel") ||
           an_qual_is(an, q, "torch.distributed.fsdp.FullyShardedDataParallel");
}

/* Does some loop train a model: a model call whose output reaches backward(),
 * in a loop that also steps an optimizer? */
static bool trains_in_loop(const Analysis *an)
{
    for (uint32_t fi = 0; fi < an->ir->funcs.n; fi++) {
        const IrFunction *f = &an->ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            BlockId h = f->blocks.v[f->values.v[i].block].loop_header;
            if (h && (an_loop_effects(an, f, h) & (EFF_BACKWARD | EFF_STEP)) ==
                         (EFF_BACKWARD | EFF_STEP) &&
                an_runs_model(an, f, &f->values.v[i]) && an_reaches_backward(an, f, i))
                return true;
        }
    }
    return false;
}

/* Never wrapped: report at init_process_group when nothing in the file may
 * wrap or synchronise, and a loop trains a model. */
static void never_wrapped(RuleCtx *c, const IrFunction *init_f, const IrValue *init)
{
    const Analysis *an = c->an;
    for (uint32_t fi = 0; fi < c->ir->funcs.n; fi++) {
        const IrFunction *f = &c->ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = &f->values.v[i];
            if (v->op == IR_CALL && v->nargs && may_synchronise(an, f, v))
                return;
        }
    }
    (void)init_f;
    if (!trains_in_loop(an))
        return;
    rule_report(c, init->node, SEV_ERROR,
                "init_process_group() runs but the trained model is never wrapped in "
                "DistributedDataParallel or FSDP: every process trains its own copy and the "
                "gradients are never averaged across ranks",
                "wrap the model after moving it to its device: "
                "`model = DistributedDataParallel(model, device_ids=[local_rank])`");
}

/* Wrapped, but the loop calls the object that was wrapped: `ddp = DDP(model)`
 * and then `model(x)` feeds backward(). */
static void calls_unwrapped(RuleCtx *c, const IrFunction *f)
{
    const Analysis *an = c->an;
    for (uint32_t w = 1; w < f->values.n; w++) {
        const IrValue *wrap = &f->values.v[w];
        if (wrap->op != IR_CALL || wrap->nargs < 2 || !is_wrapper(an, f, wrap) ||
            (ir_kwname(wrap, 1)))
            continue;
        ValueId inner = ir_resolve(f, wrap->args[1]);
        const IrValue *in = &f->values.v[inner];
        if (in->op == IR_CALL && in->nargs && is_wrapper(an, f, in))
            continue;   /* wrapping a wrapper: what the loop calls synchronises */
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = &f->values.v[i];
            BlockId h = f->blocks.v[v->block].loop_header;
            if (v->op != IR_CALL || !v->nargs || ir_resolve(f, v->args[0]) != inner || !h ||
                !(an_loop_effects(an, f, h) & EFF_BACKWARD) || !an_reaches_backward(an, f, i))
                continue;
            rule_report(c, v->node, SEV_ERROR,
                        "the training loop calls the model that was wrapped, not the "
                        "DistributedDataParallel wrapper: its gradients are never "
                        "synchronised across ranks",
                        "call the wrapper returned by DistributedDataParallel(...) in the "
                        "training loop");
        }
    }
}

void rule_tg201(RuleCtx *c)
{
    const Analysis *an = c->an;
    for (uint32_t fi = 0; fi < c->ir->funcs.n; fi++) {
        const IrFunction *f = &c->ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = &f->values.v[i];
            if (v->op == IR_CALL && v->nargs &&
                an_qual_is(an, f->values.v[v->args[0]].qual,
                           "torch.distributed.init_process_group")) {
                never_wrapped(c, f, v);
                goto wrapped;
            }
        }
    }
    return;
wrapped:
    for (uint32_t fi = 0; fi < c->ir->funcs.n; fi++)
        calls_unwrapped(c, &c->ir->funcs.v[fi]);
}
