/* TG203 batchnorm-not-synced (note): a model with BatchNorm layers wrapped in
 * DistributedDataParallel, no convert_sync_batchnorm, and a per-GPU batch
 * that is a literal of at most 8. Each rank normalises with the statistics
 * of its own few samples: noisy, and the running statistics differ by rank. */
#include "analysis.h"
#include <string.h>

static bool is_ddp(const Analysis *an, const IrFunction *f, const IrValue *v)
{
    if (v->op != IR_CALL || v->nargs < 2)
        return false;
    uint32_t q = f->values.v[v->args[0]].qual;
    return an_qual_is(an, q, "torch.nn.parallel.DistributedDataParallel") ||
           an_qual_is(an, q, "torch.nn.parallel.distributed.DistributedDataParallel");
}

/* Does in-file class cls1 (or an in-file class it builds) construct a
 * torch.nn.BatchNorm layer? depth bounds recursion through classes. */
static bool has_batchnorm(const RuleCtx *c, uint32_t cls1, int depth)
{
    const IrClass *k = &c->ir->classes.v[cls1 - 1];
    for (uint32_t m = 0; m < k->methods.n; m++) {
        const IrFunction *g = &c->ir->funcs.v[k->methods.v[m]];
        for (uint32_t i = 1; i < g->values.n; i++) {
            const IrValue *v = &g->values.v[i];
            if (v->op != IR_CALL || !v->nargs)
                continue;
            if (an_qual_prefix(c->an, g->values.v[v->args[0]].qual, "torch.nn.BatchNorm"))
                return true;
            if (v->cls && v->cls != cls1 && depth < 4 && c->ir->classes.v[v->cls - 1].is_module &&
                has_batchnorm(c, v->cls, depth + 1))
                return true;
        }
    }
    return false;
}

/* Anything in the file that syncs BatchNorm: convert_sync_batchnorm or a
 * SyncBatchNorm built by hand (or a project helper that says so). */
static bool syncs_batchnorm(const RuleCtx *c)
{
    for (uint32_t fi = 0; fi < c->ir->funcs.n; fi++) {
        const IrFunction *f = &c->ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = &f->values.v[i];
            uint32_t len;
            const char *n = (v->op == IR_ATTR || v->op == IR_GLOBAL) && v->name
                                ? intern_str(&c->S->names, v->name, &len) : NULL;
            for (uint32_t p = 0; n && p + 4 <= len; p++)
                if (memcmp(n + p, "sync", 4) == 0 || memcmp(n + p, "Sync", 4) == 0)
                    return true;
        }
    }
    return false;
}

/* The smallest literal `batch_size=` of a DataLoader call in the file, or 0
 * when none is a literal. */
static unsigned literal_batch(const RuleCtx *c)
{
    unsigned best = 0;
    for (uint32_t fi = 0; fi < c->ir->funcs.n; fi++) {
        const IrFunction *f = &c->ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = &f->values.v[i];
            if (v->op != IR_CALL || !(v->roles & ROLE_LOADER))
                continue;
            for (uint32_t a = 1; a < v->nargs; a++) {
                const IrValue *b = &f->values.v[v->args[a]];
                if (!ir_kwname(v, a) || !intern_is(&c->S->names, ir_kwname(v, a), "batch_size") ||
                    b->op != IR_CONST || c->S->nodes[b->node].kind != N_NUMBER)
                    continue;
                const Node *n = &c->S->nodes[b->node];
                unsigned x = 0;
                for (uint32_t p = node_start(c->S, n); p < node_end(c->S, n); p++)
                    x = c->S->src[p] >= '0' && c->S->src[p] <= '9' && x < 100000
                            ? x * 10 + (unsigned)(c->S->src[p] - '0') : 100000;
                if (x && (!best || x < best))
                    best = x;
            }
        }
    }
    return best;
}

void rule_tg203(RuleCtx *c)
{
    const Analysis *an = c->an;
    for (uint32_t fi = 0; fi < c->ir->funcs.n; fi++) {
        const IrFunction *f = &c->ir->funcs.v[fi];
        if (an_context(an, f) == CTX_TEST)
            continue;   /* unit tests provoke DDP's failure modes on purpose */
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = &f->values.v[i];
            if (!is_ddp(an, f, v) || (ir_kwname(v, 1)))
                continue;
            const IrValue *m = &f->values.v[ir_resolve(f, v->args[1])];
            if (!m->cls || !has_batchnorm(c, m->cls, 0) || syncs_batchnorm(c))
                continue;
            unsigned batch = literal_batch(c);
            if (!batch || batch > 8)
                continue;
            rule_report(c, v->node, SEV_NOTE,
                        arena_printf(c->A,
                                     "the model has BatchNorm layers and is wrapped in "
                                     "DistributedDataParallel without convert_sync_batchnorm: "
                                     "each GPU normalises over its own batch of %u",
                                     batch),
                        "convert before wrapping: "
                        "`model = nn.SyncBatchNorm.convert_sync_batchnorm(model)`");
        }
    }
}
