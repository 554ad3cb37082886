/* The memory of one recorded forward (and its backward) as the caching
 * allocator sees it: tensors are allocated when their op runs and freed at
 * their last use, unless autograd saved them (then they live until the
 * backward of the earliest op that saved them) or the script keeps them.
 * In the backward, each tensor's gradient lives from the backward of its
 * last consumer to the backward of its producer; a parameter's .grad appears
 * in the backward of the last op that used it and stays. */
#include "trace.h"
#include <stdlib.h>
#include <string.h>

enum { K_BODY, K_HEAD, K_COPY, K__N };

typedef struct Sim {
    const Trace *tr;
    uint64_t *alloc_at[K__N], *free_at[K__N], *saved_free_at[K__N], *pgrad_at;
    uint64_t *region_saved[K__N];
    bool unheld_kept;   /* the .grad of parameters no optimizer holds exist already */
} Sim;

static bool is_root(const TTensor *t) { return t->base == 0; }

/* Saved for the backward and not recomputed. */
static bool survives_forward(const TTensor *t) { return t->kept || (t->saved && t->ckpt == 0); }

static int kind_of(const Trace *tr, const TTensor *t)
{
    if (t->weight_copy)
        return K_COPY;
    return tr->head_op && t->born >= tr->head_op ? K_HEAD : K_BODY;
}

static void sim_alloc(Sim *s, uint32_t nops)
{
    size_t n = (size_t)nops + 2;
    for (int k = 0; k < K__N; k++) {
        s->alloc_at[k] = calloc(n, sizeof(uint64_t));
        s->free_at[k] = calloc(n, sizeof(uint64_t));
        s->saved_free_at[k] = calloc(n, sizeof(uint64_t));
        s->region_saved[k] = calloc((size_t)s->tr->nckpt + 2, sizeof(uint64_t));
    }
    s->pgrad_at = calloc(n, sizeof(uint64_t));
}

static void sim_free(Sim *s)
{
    for (int k = 0; k < K__N; k++) {
        free(s->alloc_at[k]);
        free(s->free_at[k]);
        free(s->saved_free_at[k]);
        free(s->region_saved[k]);
    }
    free(s->pgrad_at);
}

/* When each tensor is allocated and freed in the forward, what it leaves. */
static void plan(Sim *s, PassMemory *m, uint64_t live_end[K__N])
{
    const Trace *tr = s->tr;
    uint32_t nops = tr->ops.n;
    for (uint32_t i = 1; i < tr->t.n; i++) {
        const TTensor *t = &tr->t.v[i];
        if (!is_root(t))
            continue;
        uint64_t b = tr_bytes(tr, i);
        int k = kind_of(tr, t);
        uint32_t born = t->born > nops ? nops : t->born;
        s->alloc_at[k][born] += b;
        if (survives_forward(t)) {
            m->saved += b;
            if (t->saved)
                m->graph += b;
            live_end[k] += b;
            if (t->weight_copy)
                m->weight_copies += b;
            if (!t->kept && t->first_saver)
                s->saved_free_at[k][t->first_saver] += b;
            if (t->kept)
                m->kept += b;
            if (t->kept && !t->input)
                m->kept_outputs += b;
            continue;
        }
        if (t->saved && t->ckpt)
            s->region_saved[k][t->ckpt] += b;
        uint32_t end = t->weight_copy ? nops : t->last_use > born ? t->last_use : born;
        s->free_at[k][end > nops ? nops : end] += b;
    }
    for (uint32_t i = 0; i < tr->params.n; i++) {
        const TParam *p = &tr->params.v[i];
        uint64_t shards = tr->grad_shards > 1 ? tr->grad_shards : 1;
        if (p->trainable && p->last_op && !(s->unheld_kept && p->unheld))
            s->pgrad_at[p->last_op] += alloc_round(p->numel * dtype_size((DType)p->dtype) / shards);
    }
}

static uint64_t total(const uint64_t v[K__N]) { return v[K_BODY] + v[K_HEAD] + v[K_COPY]; }

static void split(LiveSplit *out, const uint64_t live[K__N], uint64_t grads, uint64_t pgrads)
{
    out->body = live[K_BODY];
    out->head = live[K_HEAD];
    out->copies = live[K_COPY];
    out->grads = grads;
    out->param_grads = pgrads;
}

static void forward(Sim *s, PassMemory *m)
{
    const Trace *tr = s->tr;
    uint64_t live[K__N] = {0};
    for (int k = 0; k < K__N; k++)
        live[k] = s->alloc_at[k][0];
    m->fwd_peak = total(live);
    split(&m->at_fwd_peak, live, 0, 0);
    for (uint32_t i = 1; i <= tr->ops.n; i++) {
        for (int k = 0; k < K__N; k++)
            live[k] += s->alloc_at[k][i];
        uint64_t now = total(live) + tr->ops.v[i - 1].workspace;
        if (now > m->fwd_peak) {
            m->fwd_peak = now;
            split(&m->at_fwd_peak, live, 0, 0);
        }
        for (int k = 0; k < K__N; k++)
            live[k] -= s->free_at[k][i];
    }
}

static void backward(Sim *s, bool grads_exist, const uint64_t live_end[K__N], PassMemory *m)
{
    const Trace *tr = s->tr;
    uint8_t *has_grad = calloc(tr->t.n + 1, 1);
    uint64_t live[K__N], grads = 0, pgrads = 0;
    memcpy(live, live_end, sizeof live);
    uint32_t region = 0;
    m->bwd_peak = total(live);
    split(&m->at_bwd_peak, live, 0, 0);
    for (uint32_t i = tr->ops.n; i >= 1; i--) {
        const TOp *op = &tr->ops.v[i - 1];
        if (op->ckpt != region) {
            /* leaving a checkpointed block releases what its recomputation
             * saved; entering one runs its forward again */
            for (int k = 0; k < K__N; k++) {
                if (region)
                    live[k] -= s->region_saved[k][region];
                if (op->ckpt)
                    live[k] += s->region_saved[k][op->ckpt];
            }
        }
        region = op->ckpt;
        for (int k = 0; k < op->nin; k++) {
            TId r = op->in[k];
            if (r && tr->t.v[r].grad && !has_grad[r]) {
                has_grad[r] = 1;
                grads += tr_bytes(tr, r);
            }
        }
        if (!grads_exist)
            pgrads += s->pgrad_at[i];
        uint64_t now = total(live) + grads + pgrads + op->workspace;
        if (now > m->bwd_peak) {
            m->bwd_peak = now;
            split(&m->at_bwd_peak, live, grads, pgrads);
        }
        TId out = op->out;
        while (out && tr->t.v[out].base)
            out = tr->t.v[out].base;
        if (out && has_grad[out] == 1 && tr->t.v[out].producer == i) {
            has_grad[out] = 2;
            grads -= tr_bytes(tr, out);
        }
        for (int k = 0; k < K__N; k++)
            live[k] -= s->saved_free_at[k][i];
    }
    free(has_grad);
}

static void simulate(const Trace *tr, bool backward_too, bool grads_exist, bool unheld_kept, PassMemory *out)
{
    memset(out, 0, sizeof *out);
    Sim s;
    memset(&s, 0, sizeof s);
    s.tr = tr;
    s.unheld_kept = unheld_kept;
    sim_alloc(&s, tr->ops.n);
    uint64_t live_end[K__N] = {0};
    plan(&s, out, live_end);
    forward(&s, out);
    if (backward_too)
        backward(&s, grads_exist, live_end, out);
    sim_free(&s);
}

void tr_simulate(const Trace *tr, bool backward_too, bool grads_exist, PassMemory *out)
{
    simulate(tr, backward_too, grads_exist, false, out);
}

void tr_simulate_unheld_kept(const Trace *tr, PassMemory *out)
{
    simulate(tr, true, false, true, out);
}
