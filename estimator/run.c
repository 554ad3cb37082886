/* One estimate: interpret the script to record its model's forward (and the
 * loss), simulate the memory of the step's phases, and take the largest.
 *
 * The phases of training, with set_to_none (the default) freeing .grad
 * between steps and the optimizer's state created by the first step():
 *   iteration 1  forward, backward           weights + the pass
 *   step         weights + grads + state + the step's temporaries
 *   iteration 2  forward, backward           weights + state + the pass
 * Accumulation micro-steps after the first keep the .grad of the previous
 * ones; zero_grad(set_to_none=False) keeps them for good. */
#include "checked.h"
#include "estimate.h"
#include "interp_int.h"
#include "leak.h"
#include "library.h"
#include <stdlib.h>
#include <string.h>

typedef struct Phase {
    const char *name;
    uint64_t total;
    uint64_t grads, state, temp, acts, head, copies, retained;
} Phase;

static bool is_method_call(const Ir *ir, Syntax *s, const IrFunction *f, const IrValue *v, const char *name)
{
    if (v->op != IR_CALL || !v->nargs)
        return false;
    const IrValue *c = &f->values.v[v->args[0]];
    if (c->op != IR_ATTR)
        return false;
    uint32_t len;
    const char *n = intern_str(&s->names, c->name, &len);
    (void)ir;
    return strlen(name) == len && memcmp(n, name, len) == 0;
}


static bool qual_has_prefix(Syntax *s, uint32_t qual, const char *prefix)
{
    uint32_t len;
    const char *q = qual ? intern_str(&s->names, qual, &len) : NULL;
    return q && len >= strlen(prefix) && memcmp(q, prefix, strlen(prefix)) == 0;
}

static bool is_lightning_qual(Syntax *s, uint32_t qual)
{
    return qual_has_prefix(s, qual, "lightning.") || qual_has_prefix(s, qual, "pytorch_lightning.");
}

/* Whether the script calls anything of Lightning's (a Trainer, LightningCLI). */
static bool uses_lightning(Syntax *s, const Ir *ir)
{
    for (uint32_t fi = 0; fi < ir->funcs.n; fi++) {
        const IrFunction *f = &ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++)
            if (f->values.v[i].op == IR_CALL && f->values.v[i].nargs &&
                is_lightning_qual(s, f->values.v[f->values.v[i].args[0]].qual))
                return true;
    }
    return false;
}

/* A LightningCLI(...) call: the CLI runs the fit. */
static bool is_lightning_cli(Syntax *s, const IrFunction *f, const IrValue *v)
{
    if (v->op != IR_CALL || !v->nargs || !is_lightning_qual(s, f->values.v[v->args[0]].qual))
        return false;
    uint32_t len;
    const char *q = intern_str(&s->names, f->values.v[v->args[0]].qual, &len);
    return len >= 12 && memcmp(q + len - 12, "LightningCLI", 12) == 0;
}

/* What the step computes: the receiver of backward(), the Trainer's
 * train() or a Lightning Trainer's fit(), LightningCLI(...), or else the
 * first call of the model (evaluation). */
static bool find_target(Syntax *s, const Ir *ir, Target *t)
{
    bool lightning = uses_lightning(s, ir);
    for (int pass = 0; pass < 4; pass++)
        for (uint32_t fi = 0; fi < ir->funcs.n; fi++) {
            const IrFunction *f = &ir->funcs.v[fi];
            for (uint32_t i = 1; i < f->values.n; i++) {
                const IrValue *v = &f->values.v[i];
                if (pass == 0 && is_method_call(ir, s, f, v, "backward")) {
                    /* loss.backward(), or accelerator.backward(loss) / an engine's
                     * backward(loss): a receiver with an argument that is not a
                     * gradient tensor is a runner, the argument the loss */
                    const IrValue *recv = &f->values.v[f->values.v[v->args[0]].args[0]];
                    bool runner = v->nargs > 1 && !(recv->roles & (ROLE_LOSS | ROLE_SCALAR)) &&
                                  recv->attach != ATT_ATTACHED;
                    *t = (Target){(int)fi, runner ? v->args[1] : f->values.v[v->args[0]].args[0], i, true};
                    return true;
                }
                if (pass == 1 && ((is_method_call(ir, s, f, v, "train") &&
                                   !(f->values.v[f->values.v[v->args[0]].args[0]].roles & ROLE_MODEL)) ||
                                  (lightning && v->nargs > 1 && is_method_call(ir, s, f, v, "fit")))) {
                    *t = (Target){(int)fi, i, i, true};
                    return true;
                }
                if (pass == 2 && is_lightning_cli(s, f, v)) {
                    *t = (Target){(int)fi, i, i, true};
                    return true;
                }
                if (pass == 3 && v->op == IR_CALL && v->nargs &&
                    (f->values.v[v->args[0]].roles & ROLE_MODEL) && f->values.v[v->args[0]].op != IR_ATTR) {
                    *t = (Target){(int)fi, i, i, false};
                    return true;
                }
            }
        }
    return false;
}

/* The optimizer's state. Fused Adam/AdamW also keep each parameter's step
 * count as a 4-byte tensor on the GPU (the foreach and for-loop versions
 * keep it on the CPU); `step_tensor` is what one of them occupies. */
/* A script that trains several models (a GAN's generator and
 * discriminator) keeps all of them, their gradients and state on the GPU:
 * evaluating each optimizer's parameters builds the models the traced step
 * did not reach. */
static void other_optimized_models(Syntax *s, const Ir *ir, Interp *in)
{
    for (uint32_t fi = 0; fi < ir->funcs.n; fi++) {
        const IrFunction *f = &ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = &f->values.v[i];
            if (v->op != IR_CALL || v->nargs < 2 || !f->values.v[v->args[0]].qual)
                continue;
            uint32_t len;
            const char *q = intern_str(&s->names, f->values.v[v->args[0]].qual, &len);
            if (len > 12 && strncmp(q, "torch.optim.", 12) == 0 && !memchr(q + 12, '.', len - 12))
                interp_eval(in, (int)fi, v->args[1]);
        }
    }
}

/* The `params` argument of an optimizer's construction: the first
 * positional argument or params=; 0 when the call gives neither. */
static ValueId optimizer_params_arg(Syntax *s, const IrValue *v)
{
    for (uint32_t i = 1; i < v->nargs; i++) {
        uint32_t len;
        const char *k = ir_kwname(v, i) ? intern_str(&s->names, ir_kwname(v, i), &len) : NULL;
        if (!k || (len == 6 && memcmp(k, "params", 6) == 0))
            return v->args[i];
    }
    return 0;
}

/* Whether v constructs an optimizer class (torch.optim.AdamW, bnb's,
 * transformers'): a call with the optimizer role whose callee is a class. */
static bool constructs_optimizer(Syntax *s, const IrFunction *f, const IrValue *v)
{
    if (v->op != IR_CALL || !v->nargs || !(v->roles & ROLE_OPTIMIZER))
        return false;
    uint32_t len, q = f->values.v[v->args[0]].qual;
    const char *name = q ? intern_str(&s->names, q, &len) : NULL;
    const char *last = name;
    for (uint32_t k = 0; name && k + 1 < len; k++)
        if (name[k] == '.')
            last = name + k + 1;
    return last && last[0] >= 'A' && last[0] <= 'Z';
}

/* Autograd makes a .grad for every parameter that requires grad; an
 * optimizer keeps state only for those it holds. When every optimizer the
 * script constructs names its parameters in a way pfc follows
 * (model.fc.parameters(), filter(...), parameter groups), the trainable
 * parameters none of them holds are marked unheld; any optimizer pfc cannot
 * follow (or one that is given something else, or none constructed) leaves
 * all of them held, as before. */
static void optimizer_held_params(Syntax *s, const Ir *ir, Interp *in, Trace *tr)
{
    bool *held = calloc(tr->params.n + 1, 1), all = true, any = false;
    for (uint32_t fi = 0; fi < ir->funcs.n && held; fi++) {
        const IrFunction *f = &ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = &f->values.v[i];
            if (!constructs_optimizer(s, f, v))
                continue;
            ValueId pv = optimizer_params_arg(s, v);
            any = true;
            all = all && pv && optimizer_holds(in, interp_eval(in, (int)fi, pv), held);
        }
    }
    uint64_t trains = 0, unheld = 0;
    for (uint32_t i = 0; any && all && i < tr->params.n; i++) {
        TParam *p = &tr->params.v[i];
        p->unheld = !held[i];
        trains += p->trainable ? p->numel : 0;
        unheld += p->trainable && p->unheld ? p->numel : 0;
    }
    free(held);
    if (unheld)
        interp_note(in, 0, arena_printf(s->arena, "the optimizers hold %llu of the %llu trainable parameters: state "
                                                  "for those only; the other %llu still get a .grad in every "
                                                  "backward, which the optimizer's zero_grad() does not free",
                                        (unsigned long long)(trains - unheld), (unsigned long long)trains,
                                        (unsigned long long)unheld));
}

static uint64_t optimizer_state(const EstimateConfig *cfg, uint64_t trainable, uint64_t trainable_bytes,
                                uint64_t tensors, uint64_t step_tensor)
{
    switch (cfg->optimizer) {
    case OPT_ADAM:
        if (cfg->master_weights)   /* fp32 master weights and fp32 moments: 12 bytes a parameter */
            return 12 * trainable;
        return 2 * trainable_bytes + (cfg->fused ? tensors * step_tensor : 0);
    case OPT_SGD: return cfg->momentum ? trainable_bytes : 0;
    case OPT_ADAM8BIT:   /* one byte per value: Adam's two, Lion's one */
        return (uint64_t)(cfg->state_slots ? cfg->state_slots : 2) * trainable;
    case OPT_ADAFACTOR: return trainable_bytes / 64;   /* factored second moments */
    case OPT_SLOTS: return (uint64_t)cfg->state_slots * trainable_bytes;
    default: return 0;
    }
}

/* Temporaries of optimizer.step(): the foreach implementations allocate
 * whole-model lists (Adam: the square root of the second moment; SGD: the
 * weight-decayed gradients and Nesterov's look-ahead). Fused kernels do not. */
static uint64_t step_temporaries(const EstimateConfig *cfg, uint64_t trainable_bytes)
{
    if (cfg->fused || cfg->foreach_off)
        return 0;
    switch (cfg->optimizer) {
    case OPT_ADAM: return trainable_bytes;
    case OPT_SGD: return (uint64_t)(cfg->weight_decay + cfg->nesterov) * trainable_bytes;
    default: return 0;
    }
}

/* The phases simulated, and the largest so far. */
typedef struct Phases {
    Phase best;
    Estimate *log;   /* every phase is listed in log->phases (pfc estimate -v) */
} Phases;

static void consider(Phases *ph, const Phase *p)
{
    Estimate *e = ph->log;
    if (e->nphases < sizeof e->phases / sizeof e->phases[0]) {
        e->phases[e->nphases].name = p->name;
        e->phases[e->nphases++].total = p->total;
    }
    if (p->total > ph->best.total)
        ph->best = *p;
}

static Phase pass_phase(const char *name, uint64_t base, const LiveSplit *l, uint64_t peak,
                        uint64_t grads_before, uint64_t state)
{
    Phase p = {name, base + peak + grads_before + state, grads_before + l->param_grads, state, 0,
               l->body + l->grads, l->head, l->copies, 0};
    return p;
}

/* Per-rank bytes of what lives across the step: weights (and buffers),
 * gradients, optimizer state, the step's temporaries. */
typedef struct Budget {
    uint64_t W, G, S, T;
    uint64_t Gu;   /* of G, the .grad no optimizer holds: never freed by its zero_grad() */
} Budget;

/* Sharding (shard.c says what each mode splits): sharded weights are
 * gathered one layer (plus the prefetched next) at a time; DDP's buckets hold
 * about one more copy of the gradients. DeepSpeed's offload_param keeps only
 * the gathered layers on the GPU, offload_optimizer the state and the step
 * on the CPU; a paged optimizer's state is in managed memory, outside the
 * allocator (out->paged_state). */
static Budget budget(const EstimateConfig *cfg, const Trace *tr, bool training, Estimate *out)
{
    ParamTotals pt;
    tr_param_totals(tr, &pt);
    out->params_total = pt.total;
    out->params_trainable = pt.trainable;
    out->raw_weights = pt.raw_bytes;
    uint64_t ranks = shard_ranks(cfg);
    uint64_t gathered = 2 * pt.bytes / (tr->layers ? tr->layers : 8);
    if (shard_splits_params(cfg) && ranks > 1)
        pt.bytes = pt.bytes / ranks + gathered;
    if (cfg->offload_param && cfg->shard == SHARD_ZERO3)
        pt.bytes = gathered;
    out->weights = pt.bytes;
    out->buffers = tr->buffer_bytes;
    Budget b = {pt.bytes + tr->buffer_bytes, 0, 0, 0, 0};
    if (!training)
        return b;
    bool opt = cfg->optimizer != OPT_NONE && !cfg->offload_optimizer;
    uint64_t g_ranks = shard_splits_grads(cfg) ? ranks : 1, s_ranks = shard_splits_state(cfg) ? ranks : 1;
    b.G = pt.trainable_bytes / g_ranks;
    b.Gu = cfg->zero_grad_model ? 0 : pt.unheld_grad_bytes / g_ranks;
    b.S = opt ? optimizer_state(cfg, pt.held, pt.held_bytes, pt.held_tensors, 512) / s_ranks : 0;
    b.T = opt ? step_temporaries(cfg, pt.held_bytes) / s_ranks : 0;
    /* the exact components: unrounded, as the optimizer's tensors add up */
    out->all_gradients = pt.raw_trainable_bytes / g_ranks;
    out->all_state = opt ? optimizer_state(cfg, pt.held, pt.raw_held_bytes, pt.held_tensors, 4) / s_ranks : 0;
    if (cfg->paged_optimizer) {
        out->paged_state = out->all_state;
        out->all_state = 0;
        b.S = 0;
    }
    if (cfg->shard == SHARD_DDP || cfg->shard == SHARD_FSDP_NONE)
        b.T += b.G;
    return b;
}

/* Evaluation: the previous batch's outputs are alive until the next call
 * returns; a loop that keeps graphs adds what it keeps. */
static void evaluation_phases(Phases *ph, const Budget *b, const PassMemory *m, uint64_t retained)
{
    Phase p = pass_phase("forward (evaluation)", b->W, &m->at_fwd_peak, m->fwd_peak, 0, 0);
    p.total += m->kept_outputs + retained;
    p.retained = retained;
    p.head += m->kept_outputs;
    consider(ph, &p);
}

/* Training (see the comment at the top of this file). m1: .grad created in
 * the backward; m2: .grad already there (accumulation, set_to_none=False). */
static void training_phases(Phases *ph, const EstimateConfig *cfg, const Budget *b, const PassMemory *m1,
                            const PassMemory *m2, const PassMemory *m3, uint64_t retained)
{
    uint64_t W = b->W, G = b->G, S = b->S;
    Phase p = pass_phase("forward, first step", W, &m1->at_fwd_peak, m1->fwd_peak, 0, 0);
    consider(ph, &p);
    p = pass_phase("backward, first step", W, &m1->at_bwd_peak, m1->bwd_peak, 0, 0);
    consider(ph, &p);
    if (cfg->optimizer != OPT_NONE) {
        Phase st = {"optimizer step", W + G + S + b->T, G, S, b->T, 0, 0, 0, 0};
        consider(ph, &st);
    }
    bool keep_grads = !cfg->set_to_none || cfg->optimizer == OPT_NONE;
    uint64_t Gk = keep_grads || cfg->zero_grad_mid ? G : b->Gu;
    p = pass_phase("forward, second step", W + m1->kept_outputs, &m1->at_fwd_peak, m1->fwd_peak, Gk, S);
    consider(ph, &p);
    p = keep_grads ? pass_phase("backward, second step", W, &m2->at_bwd_peak, m2->bwd_peak, G, S)
        : b->Gu    ? pass_phase("backward, second step", W, &m3->at_bwd_peak, m3->bwd_peak, b->Gu, S)
                   : pass_phase("backward, second step", W, &m1->at_bwd_peak, m1->bwd_peak, 0, S);
    if (retained) {
        p.total += retained;
        p.retained = retained;
        p.name = "backward, last step (with what the loop keeps)";
    }
    consider(ph, &p);
    if (cfg->accumulation > 1) {
        p = pass_phase("backward, accumulation micro-step", W, &m2->at_bwd_peak, m2->bwd_peak, G, S);
        consider(ph, &p);
    }
}

/* A mode that shards gradients reduce-scatters each as the backward makes
 * it (per wrapped layer): the ranks it is split over, else 1. */
static uint32_t grads_sharded(const EstimateConfig *cfg)
{
    uint64_t ranks = shard_ranks(cfg);
    return shard_splits_grads(cfg) && ranks < UINT32_MAX ? (uint32_t)ranks : 1;
}

static void assemble(const EstimateConfig *cfg, const Trace *tr, bool training, uint64_t retained,
                     Estimate *out)
{
    Budget b = budget(cfg, tr, training, out);
    PassMemory m1, m2;
    tr_simulate(tr, training, false, &m1);
    out->saved_end_of_forward = m1.saved;
    Phases ph = {{"forward", 0, 0, 0, 0, 0, 0, 0, 0}, out};
    if (training) {
        PassMemory m3 = m1;
        tr_simulate(tr, true, true, &m2);
        if (b.Gu)
            tr_simulate_unheld_kept(tr, &m3);
        training_phases(&ph, cfg, &b, &m1, &m2, &m3, retained);
    } else {
        evaluation_phases(&ph, &b, &m1, retained);
    }
    const Phase *best = &ph.best;
    out->allocated_peak = best->total;
    out->gradients = best->grads;
    out->optimizer_state = best->state;
    out->step_temp = best->temp;
    out->autocast_cache = best->copies;
    out->logits_loss = best->head;
    out->retained = best->retained;
    out->activations = best->total - b.W - best->grads - best->state - best->temp - best->copies -
                       best->head - best->retained;
    out->peak_phase = best->name;
}

/* The caching allocator rounds and caches blocks: reserved / allocated was
 * 1.003 to 1.20 (median 1.06) for the 34 calibration runs above 10 GiB. The
 * point estimate is the median; the range is the measured spread. */
static void project(Estimate *e)
{
    uint64_t a = e->allocated_peak;
    e->reserved_peak = a + a * 6 / 100;
    e->projected_peak = e->reserved_peak + CUDA_CONTEXT_BYTES;
    e->projected_low = a + a / 400 + CUDA_CONTEXT_BYTES;
    e->projected_high = a + a / 5 + CUDA_CONTEXT_BYTES;
}

/* backward()'s receiver is not a tensor: part of the forward was lost on
 * the way to the loss (a shape pfc cannot read, a value it cannot follow),
 * and an estimate would lack what comes after. */
static bool loss_lost(Syntax *s, const Ir *ir, const Target *t, const AVal *loss)
{
    const IrFunction *f = &ir->funcs.v[t->fi];
    return t->training && is_method_call(ir, s, f, &f->values.v[t->call], "backward") &&
           loss->k != AV_TENSOR;
}

/* The refusal for a model whose forward the step does not reach: where it
 * was handed to a call pfc does not model, or where tensors were lost. */
static const char *forward_not_followed(Syntax *s, const Interp *in)
{
    const char *why = interp_model_passed_at(in) ? interp_model_passed_at(in) : interp_lost(in);
    return why ? arena_printf(s->arena, "the model was found but its forward could not be followed to the loss (%s)",
                              why)
               : "the model was found but its forward could not be followed to the loss";
}

/* The script, or a module of the project it imported, places something on
 * the GPU. */
static bool project_places_on_gpu(Syntax *s, const Ir *ir, const Interp *in)
{
    if (estimate_places_on_gpu(s, ir))
        return true;
    for (uint32_t i = 0; i < in->loaded.n; i++) {
        const InterpModule *m = in->loaded.v[i].mod;
        if (m && estimate_places_on_gpu(m->S, m->ir))
            return true;
    }
    return false;
}

/* A shape, size or count the script gives that pfc does not take as meant:
 * the reason, and the line of the call that made it. */
static void refusal(Syntax *s, const Trace *tr, Estimate *out, const char **why)
{
    *why = tr->error;
    if (tr->error_site) {
        uint32_t line, col;
        syntax_line_col(s, node_start(s, syn_node(s, tr->error_site)), &line, &col);
        out->error_line = line;
    }
}

bool estimate_run(Syntax *s, const Ir *ir, const EstimateConfig *cfg, Estimate *out, const char **why)
{
    memset(out, 0, sizeof *out);
    if (cfg->refusal) {
        *why = cfg->refusal;
        return false;
    }
    Arena a;
    arena_init(&a);
    Trace tr;
    tr_init(&tr, &a);
    bool fp16 = cfg->weight_fp16;
    if (cfg->precision == 1)
        tr.weight_dtype = DT_F32;
    else if (cfg->precision == 2 || (cfg->precision == 0 && cfg->weight_bytes == 2))
        tr.weight_dtype = fp16 && cfg->precision == 0 ? DT_F16 : DT_BF16;
    LibraryCtx lc;
    memset(&lc, 0, sizeof lc);
    lc.cfg = cfg;
    lc.tr = &tr;
    InterpHooks hooks;
    library_hooks(&lc, &hooks);
    hooks.modules = cfg->modules;
    hooks.path = cfg->script_path;
    /* a module is built in training mode; HF's from_pretrained puts it in
     * eval() (library.c decides for those) */
    tr.training = cfg->train_called || !cfg->eval_called;
    Interp *in = interp_new(&a, s, ir, &tr, &hooks);
    in->batch_override = cfg->batch ? cfg->batch : cfg->ds_micro_batch;
    in->seq_override = cfg->seq;
    in->script_args = cfg->script_args;
    in->nscript_args = cfg->nscript_args;
    in->script_path = cfg->script_path;
    in->world_size = cfg->world_size > 1 ? cfg->world_size : 1;
    in->local_world_size = cfg->local_world_size > 0 ? cfg->local_world_size : in->world_size;
    in->force_autocast = cfg->precision == 3 || (cfg->accelerate_mp && cfg->precision == 0);
    in->no_autocast = cfg->precision == 1;
    in->force_autocast_dtype = cfg->accelerate_mp == 2 && cfg->precision == 0 ? DT_F16 : DT_BF16;
    Target t;
    bool ok = find_target(s, ir, &t);
    lc.training_target = ok && t.training;
    if (!ok) {
        *why = "no backward() call, Trainer or model call found: nothing to estimate";
    } else {
        AVal *result = interp_eval(in, t.fi, t.v);
        if (!t.training)
            loop_carried_values(s, ir, in, &t);
        else
            other_optimized_models(s, ir, in);
        if (t.training)
            optimizer_held_params(s, ir, in, &tr);
        ParamTotals pt;
        tr_param_totals(&tr, &pt);
        if (t.training && pt.total && !pt.trainable)
            interp_note(in, 0, "no parameter requires grad (all are frozen): PyTorch's backward() raises "
                               "\"element 0 of tensors does not require grad\" unless an input does; estimated "
                               "without gradients or optimizer state");
        bool lost = loss_lost(s, ir, &t, result);
        if (lc.model_name && lost)   /* the library traced the model itself */
            interp_note(in, 0, "the loss is computed from a value pfc does not follow: what the script computes "
                               "after the model's output is not counted");
        if (tr.error)
            refusal(s, &tr, out, why);
        else if (tr_total_bytes(&tr) > CK_BYTES_MAX)
            *why = "the model and its tensors come to more than 1 EiB: too large to estimate";
        else if (tr.overflow)
            *why = "the model is too large to interpret (more than 4 million ops)";
        else if (lc.error)
            *why = lc.error;
        else if (!pt.total)
            *why = interp_error(in) ? interp_error(in)
                   : interp_factory_unread(in)
                       ? arena_printf(s->arena, "no model found: %s", interp_factory_unread(in))
                       : "no model found: neither a known from_pretrained/torchvision name "
                                      "nor an nn.Module defined in the file reached the step";
        else if (!tr.ops.n || !tr_params_used(&tr) || (lost && !lc.model_name))
            *why = forward_not_followed(s, in);
        else if (!project_places_on_gpu(s, ir, in))
            *why = arena_printf(s->arena, "the script never moves its model or tensors to a CUDA GPU (no .cuda(), "
                                          "no .to(device) or device= that may be one, no framework that places "
                                          "them): as written it %s on the CPU, so its GPU peak is about 0",
                                t.training ? "trains" : "runs");
        ok = !*why;
    }
    if (ok) {
        if (cfg->trace_out)
            tr_dump(&tr, cfg->trace_out, cfg->trace_ctx);
        tr.head_op = lc.head_op ? lc.head_op : tr.head_op;
        PassMemory m;
        tr_simulate(&tr, t.training, false, &m);
        int64_t iterations = 1;
        const char *what = NULL;
        uint64_t retained = estimate_retained(s, ir, in, &t, &m, &iterations, &what);
        EstimateConfig effective = *cfg;
        if (in->step_optimizer && cfg->optimizer == OPT_NONE) {
            estimate_step_optimizer(s, ir, &effective, in->step_optimizer);
            if (effective.optimizer_name)   /* it lives in the interpretation's arena */
                out->optimizer_name = arena_strndup(s->arena, effective.optimizer_name,
                                                    strlen(effective.optimizer_name));
        }
        int64_t acc = t.training ? loop_accumulation(s, ir, in, &t) : 1;
        if (in->accumulation > acc)
            acc = in->accumulation;
        if (acc > effective.accumulation)
            effective.accumulation = acc;
        out->accumulation = effective.accumulation;
        (void)iterations;
        tr.grad_shards = grads_sharded(&effective);
        assemble(&effective, &tr, t.training, retained, out);
        project(out);
        if (out->projected_high > CK_BYTES_MAX) {   /* not reached while the sizes above hold */
            *why = arena_strndup(s->arena, "the projected peak is over 1 EiB: too large to estimate", 56);
            ok = false;
        }
        out->training = t.training;
        out->hf = lc.hf;
        out->builtin = lc.model_name != NULL;
        uint32_t nn;
        const char *const *notes = interp_notes(in, &nn);
        out->notes = arena_alloc(s->arena, (nn + 1) * sizeof *out->notes);
        for (uint32_t i = 0; i < nn; i++)
            out->notes[i] = arena_strndup(s->arena, notes[i], strlen(notes[i]));
        out->nnotes = nn;
        out->ops_traced = tr.ops.n;
        out->ops_assumed = tr.assumed;
        out->weight_dtype = tr.weight_dtype;
        out->autocast_dtype = tr.autocast_seen ? (int)tr.autocast_seen_dtype : -1;
        out->model = lc.model_name ? lc.model_name : in->model_class;
        out->model_file = lc.model_name ? NULL : in->model_file;
        out->batch = in->seen_batch ? in->seen_batch : lc.batch;
        out->seq = in->seen_seq ? in->seen_seq : lc.seq;
        out->image_size = lc.image;
        if (what)
            out->peak_phase = arena_printf(s->arena, "%s; %s", out->peak_phase, what);
        else
            out->peak_phase = arena_strndup(s->arena, out->peak_phase, strlen(out->peak_phase));
        if (out->model)
            out->model = arena_strndup(s->arena, out->model, strlen(out->model));
    } else if (*why) {
        *why = arena_strndup(s->arena, *why, strlen(*why));
    }
    arena_free(&a);
    return ok;
}
