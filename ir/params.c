/* Parameters and optimizers: which model object each optimizer's parameters
 * come from, and the calls and stores that change a model's parameters
 * (adapters, freezing, checkpointing, replaced attributes). Read off the IR
 * after the facts fixpoint: the objects are its allocation sites, so a model
 * returned by a helper, wrapped by DDP or get_peft_model, or stored on self
 * is one object here too. See docs/ir.md "Parameters and optimizers". */
#include "params.h"
#include <string.h>


typedef struct Walk {
    const Ir *ir;
    const Syntax *S;
    Arena *A;
    ParamFacts *P;
    uint32_t fn;
    const IrFunction *f;
    /* interned method and attribute names, so that matching is an integer test */
    uint32_t n_requires_grad_, n_requires_grad, n_checkpointing, n_input_grads, n_forward_hook,
        n_input_embeddings, n_add_adapter, n_add_param_group;
} Walk;

static const IrValue *val(const IrFunction *f, ValueId id) { return &f->values.v[id]; }
static bool is(const Walk *w, uint32_t id, const char *s) { return intern_is(&w->S->names, id, s); }
static bool prefix(const Walk *w, uint32_t id, const char *s)
{
    return intern_has_prefix(&w->S->names, id, s);
}

static bool name_in(const Walk *w, uint32_t id, const char *const *list)
{
    for (; *list; list++)
        if (intern_is(&w->S->names, id, *list))
            return true;
    return false;
}

uint32_t params_pos(const Ir *ir, uint32_t fn, ValueId v)
{
    const IrValue *x = &ir->funcs.v[fn].values.v[v];
    return node_start(ir->syn, &ir->syn->nodes[x->node]);
}

/* The token kind of a CONST value (T_KW_TRUE, T_KW_FALSE, T_STRING...). */
static int const_kind(const Walk *w, const IrValue *x)
{
    if (x->op != IR_CONST)
        return -1;
    return w->S->toks.v[w->S->nodes[x->node].first_tok].kind;
}

static GradValue bool_value(const Walk *w, const IrValue *x)
{
    int k = const_kind(w, x);
    return k == T_KW_TRUE ? GV_TRUE : k == T_KW_FALSE ? GV_FALSE : GV_UNKNOWN;
}

/* Does the source text of CST node `node` contain `s`? (a string key, a condition) */
static bool text_has(const Walk *w, uint32_t node, const char *s)
{
    const Node *n = &w->S->nodes[node];
    uint32_t a = node_start(w->S, n), b = node_end(w->S, n), len = (uint32_t)strlen(s);
    for (uint32_t i = a; i + len <= b; i++)
        if (memcmp(w->S->src + i, s, len) == 0)
            return true;
    return false;
}

/* The keyword argument `kw` of a call, or 0. */
static ValueId kwarg(const Walk *w, const IrValue *call, const char *kw)
{
    for (uint32_t i = 1; call->op == IR_CALL && i < call->nargs; i++)
        if (ir_kwname(call, i) && is(w, ir_kwname(call, i), kw))
            return call->args[i];
    return 0;
}

/* The k-th positional argument of a call, or 0. */
static ValueId posarg(const IrValue *call, uint32_t k)
{
    for (uint32_t i = 1; i < call->nargs; i++)
        if (!ir_kwname(call, i)) {
            if (k == 0)
                return call->args[i];
            k--;
        }
    return 0;
}

/* ---- which model object a value belongs to ------------------------------------------- */

/* The model object of value r and the attribute below it that r names:
 * `model.encoder` is part `encoder` of model; `model.module` and
 * `model._orig_mod` are the model. The object is the outermost model on the
 * attribute chain whose allocation site is known. */
static uint32_t object_of(const Walk *w, const IrFunction *f, ValueId r, uint32_t *part)
{
    uint32_t site = 0, below = 0;
    *part = 0;
    for (int guard = 0; guard < 16; guard++) {
        r = ir_resolve(f, r);
        const IrValue *x = val(f, r);
        if ((x->roles & ROLE_MODEL) && x->origin)
            site = x->origin, *part = below;
        if (x->op != IR_ATTR || !x->nargs)
            break;
        if (!is(w, x->name, "module") && !is(w, x->name, "_orig_mod"))
            below = x->name;
        r = x->args[0];
    }
    return site;
}

/* `x.parameters()` / `x.named_parameters()`: true, and the receiver. */
static bool parameters_call(const Walk *w, const IrFunction *f, const IrValue *v, ValueId *recv)
{
    if (v->op != IR_CALL || !v->nargs)
        return false;
    const IrValue *c = val(f, v->args[0]);
    if (c->op != IR_ATTR || !c->nargs ||
        (!is(w, c->name, "parameters") && !is(w, c->name, "named_parameters")))
        return false;
    *recv = c->args[0];
    return true;
}

/* A parameter drawn from `for p in X.parameters()` or `for n, p in
 * X.named_parameters()` (also in a comprehension): the parameters() call. */
static ValueId iterated_parameters(const Walk *w, const IrFunction *f, ValueId p)
{
    const IrValue *x = val(f, ir_resolve(f, p));
    if (x->op == IR_UNPACK && x->index == 1 && x->nargs)
        x = val(f, ir_resolve(f, x->args[0]));
    if (x->op != IR_ITER_NEXT || !x->nargs)
        return 0;
    ValueId it = ir_resolve(f, x->args[0]), recv;
    return parameters_call(w, f, val(f, it), &recv) ? it : 0;
}

/* ---- an optimizer's parameter sources ------------------------------------------------ */

static void add_source(OptimizerFact *o, uint32_t site, uint32_t part, ParamFilter filter)
{
    if (!site || o->nsrc == PARAMS_MAX_SOURCES) {
        o->unknown = true;
        return;
    }
    o->src[o->nsrc++] = (ParamSource){site, part, (uint8_t)filter};
}

static ParamFilter stricter(ParamFilter a, ParamFilter b) { return a > b ? a : b; }

/* The filter a `filter(fn, params)` lambda applies. */
static ParamFilter lambda_filter(const Walk *w, const IrValue *fnv)
{
    if (fnv->op != IR_FUNC)
        return PF_OTHER;
    const IrFunction *g = &w->ir->funcs.v[fnv->index];
    if (g->kind != SCOPE_LAMBDA || g->returns.n != 1)
        return PF_OTHER;
    const IrValue *r = val(g, g->returns.v[0]);
    const IrValue *x = r->nargs ? val(g, ir_resolve(g, r->args[0])) : NULL;
    return x && x->op == IR_ATTR && is(w, x->name, "requires_grad") ? PF_REQUIRES_GRAD : PF_OTHER;
}

/* Is the container x used only as the element of `user` (no append, no
 * extend, not passed elsewhere)? A list built up by appends is not what its
 * literal says. */
static bool only_used_by(const IrFunction *f, ValueId x, ValueId user)
{
    for (uint32_t i = 1; i < f->values.n; i++) {
        const IrValue *v = val(f, i);
        if (i == user || v->op == IR_PHI)
            continue;
        for (uint32_t a = 0; a < v->nargs; a++)
            if (ir_resolve(f, v->args[a]) == x)
                return false;
    }
    return true;
}

static void sources_of(const Walk *w, const IrFunction *f, ValueId x, ValueId user,
                       ParamFilter filter, OptimizerFact *o, int depth);

/* A comprehension over parameters: its element and its condition. */
static void comprehension_sources(const Walk *w, const IrFunction *f, const IrValue *v,
                                  ParamFilter filter, OptimizerFact *o)
{
    ValueId it = v->nargs == 1 ? iterated_parameters(w, f, v->args[0]) : 0, recv;
    if (!it || !parameters_call(w, f, val(f, it), &recv)) {
        o->unknown = true;
        return;
    }
    const Node *n = &w->S->nodes[v->node];
    FOR_EACH_KID(n, k) {
        const Node *cf = &w->S->nodes[k];
        if (cf->kind != N_COMP_FOR)
            continue;
        FOR_EACH_KID(cf, c)
            if (w->S->nodes[c].kind == N_COMP_IF)
                filter = stricter(filter, text_has(w, c, "requires_grad") ? PF_REQUIRES_GRAD : PF_NAME);
    }
    uint32_t part;
    uint32_t site = object_of(w, f, recv, &part);
    add_source(o, site, part, filter);
}

/* A literal list, tuple or dict of parameter groups. */
static void build_sources(const Walk *w, const IrFunction *f, ValueId x, ValueId user,
                          ParamFilter filter, OptimizerFact *o, int depth)
{
    const IrValue *v = val(f, x);
    uint16_t kind = w->S->nodes[v->node].kind;
    if (!only_used_by(f, x, user)) {
        o->unknown = true;
        return;
    }
    if (kind == N_LIST_COMP || kind == N_GENERATOR || kind == N_SET_COMP) {
        comprehension_sources(w, f, v, filter, o);
    } else if (kind == N_LIST || kind == N_TUPLE) {
        for (uint32_t a = 0; a < v->nargs; a++)
            sources_of(w, f, v->args[a], x, filter, o, depth + 1);
    } else if (kind == N_DICT) {   /* {"params": ..., "lr": ...}: items are BUILD(key, value) */
        bool seen = false;
        for (uint32_t a = 0; a < v->nargs; a++) {
            const IrValue *item = val(f, v->args[a]);
            if (item->op != IR_BUILD || item->nargs != 2 ||
                w->S->nodes[item->node].kind != N_DICT_ITEM) {
                o->unknown = true;
                continue;
            }
            const IrValue *key = val(f, item->args[0]);
            if (const_kind(w, key) == T_STRING && text_has(w, key->node, "params"))
                sources_of(w, f, item->args[1], v->args[a], filter, o, depth + 1), seen = true;
        }
        if (!seen)
            o->unknown = true;
    } else {
        o->unknown = true;
    }
}

static const char *const concatenations[] = {
    "builtins.list", "builtins.tuple", "itertools.chain", NULL};

static void sources_of(const Walk *w, const IrFunction *f, ValueId x, ValueId user,
                       ParamFilter filter, OptimizerFact *o, int depth)
{
    x = ir_resolve(f, x);
    const IrValue *v = val(f, x);
    ValueId recv;
    if (depth > 8) {
        o->unknown = true;
    } else if (parameters_call(w, f, v, &recv)) {
        uint32_t part, site = object_of(w, f, recv, &part);
        add_source(o, site, part, filter);
    } else if (v->op == IR_BUILD) {
        build_sources(w, f, x, user, filter, o, depth);
    } else if (v->op == IR_CALL && v->nargs == 3 && is(w, val(f, v->args[0])->qual, "builtins.filter")) {
        ParamFilter lf = lambda_filter(w, val(f, v->args[1]));
        sources_of(w, f, v->args[2], x, stricter(filter, lf), o, depth + 1);
    } else if (v->op == IR_CALL && v->nargs >= 2 && name_in(w, val(f, v->args[0])->qual, concatenations)) {
        for (uint32_t a = 1; a < v->nargs; a++)
            sources_of(w, f, v->args[a], x, filter, o, depth + 1);
    } else {
        o->unknown = true;
    }
}

static bool optimizer_constructor(const Walk *w, const IrFunction *f, const IrValue *v)
{
    if (v->op != IR_CALL || !v->nargs || !(v->roles & ROLE_OPTIMIZER) || !v->origin)
        return false;
    uint32_t q = val(f, v->args[0])->qual;
    return (prefix(w, q, "torch.optim.") && !prefix(w, q, "torch.optim.lr_scheduler.")) ||
           prefix(w, q, "bitsandbytes.optim.");
}

static void collect_optimizer(Walk *w, ValueId at)
{
    const IrFunction *f = w->f;
    const IrValue *v = val(f, at);
    OptimizerFact o = {.fn = w->fn, .at = at, .site = v->origin};
    ValueId params = posarg(v, 0);
    if (!params)
        params = kwarg(w, v, "params");
    if (params)
        sources_of(w, f, params, at, PF_ALL, &o, 0);
    else
        o.unknown = true;
    VEC_PUSH(w->A, w->P->optimizers, o);
}

/* ---- events on model objects --------------------------------------------------------- */

static void add_event(Walk *w, ModelEventKind kind, ValueId at, ValueId obj, uint8_t value, bool whole)
{
    ModelEvent e = {.kind = (uint8_t)kind, .value = value, .whole = whole, .fn = w->fn, .at = at,
                    .node = val(w->f, at)->node};
    if (obj)
        e.site = object_of(w, w->f, obj, &e.part);
    if (kind == ME_GRAD_WRITE && !e.site)
        w->P->unknown_grad_write = true;
    VEC_PUSH(w->A, w->P->events, e);
}

static const char *const adapter_wrappers[] = {
    "peft.get_peft_model", "peft.LoraModel", "peft.tuners.lora.LoraModel", "peft.PeftModel",
    "peft.PeftModelForCausalLM", "peft.PeftModelForSequenceClassification", NULL};

/* Is the store's block entered straight from the header of the loop that
 * draws p (no condition, no `continue` before it)? */
static bool unconditional_in_loop(const IrFunction *f, const IrValue *store, ValueId p)
{
    const IrValue *x = val(f, ir_resolve(f, p));
    if (x->op == IR_UNPACK && x->nargs)
        x = val(f, ir_resolve(f, x->args[0]));
    BlockId h = x->block;
    const IrBlock *b = &f->blocks.v[store->block];
    for (uint32_t i = 0; i < b->preds.n; i++)
        if (b->preds.v[i] == h && f->blocks.v[h].loop_header == h)
            return true;
    return false;
}

/* `p.requires_grad = value` for a parameter p drawn from a model. */
static void collect_grad_store(Walk *w, ValueId at)
{
    const IrFunction *f = w->f;
    const IrValue *v = val(f, at);
    GradValue gv = bool_value(w, val(f, v->args[1]));
    ValueId it = iterated_parameters(w, f, v->args[0]), recv;
    if (it && parameters_call(w, f, val(f, it), &recv)) {
        add_event(w, ME_GRAD_WRITE, at, recv, (uint8_t)gv, unconditional_in_loop(f, v, v->args[0]));
        return;
    }
    add_event(w, ME_GRAD_WRITE, at, v->args[0], (uint8_t)gv, false);   /* model.fc.weight */
    if (!w->P->events.v[w->P->events.n - 1].part)
        w->P->events.v[w->P->events.n - 1].site = 0, w->P->unknown_grad_write = true;
}

/* Checkpointing is reentrant unless gradient_checkpointing_kwargs says
 * use_reentrant=False (transformers' default is reentrant). */
static GradValue reentrant(const Walk *w, const IrFunction *f, const IrValue *call)
{
    ValueId kw = kwarg(w, call, "gradient_checkpointing_kwargs");
    if (!kw)
        return GV_TRUE;
    const IrValue *d = val(f, ir_resolve(f, kw));
    if (d->op != IR_BUILD || w->S->nodes[d->node].kind != N_DICT)
        return GV_UNKNOWN;
    for (uint32_t a = 0; a < d->nargs; a++) {
        const IrValue *item = val(f, d->args[a]);
        if (item->op == IR_BUILD && item->nargs == 2 && text_has(w, val(f, item->args[0])->node, "use_reentrant"))
            return bool_value(w, val(f, item->args[1]));
    }
    return GV_TRUE;
}

static void collect_method_event(Walk *w, ValueId at, const IrValue *callee)
{
    const IrFunction *f = w->f;
    const IrValue *v = val(f, at);
    ValueId recv = callee->args[0];
    uint32_t m = callee->name;
    if (m == w->n_requires_grad_) {
        ValueId a = posarg(v, 0);
        if (!a)
            a = kwarg(w, v, "requires_grad");
        GradValue gv = a ? bool_value(w, val(f, a)) : GV_TRUE;
        ValueId it = iterated_parameters(w, f, recv), prm;
        if (it && parameters_call(w, f, val(f, it), &prm))
            add_event(w, ME_GRAD_WRITE, at, prm, (uint8_t)gv, unconditional_in_loop(f, v, recv));
        else
            add_event(w, ME_GRAD_WRITE, at, recv, (uint8_t)gv, true);
        ModelEvent *e = &w->P->events.v[w->P->events.n - 1];
        if (e->part)
            e->whole = false;
    } else if (m == w->n_checkpointing) {
        add_event(w, ME_CHECKPOINT, at, recv, (uint8_t)reentrant(w, f, v), false);
    } else if (m == w->n_input_grads) {
        add_event(w, ME_INPUT_GRADS, at, recv, 0, false);
    } else if (m == w->n_forward_hook) {   /* model.get_input_embeddings().register_forward_hook(...) */
        const IrValue *r = val(f, ir_resolve(f, recv));
        const IrValue *c = r->op == IR_CALL && r->nargs ? val(f, r->args[0]) : NULL;
        if (c && c->op == IR_ATTR && c->nargs && c->name == w->n_input_embeddings)
            add_event(w, ME_INPUT_GRADS, at, c->args[0], 0, false);
    } else if (m == w->n_add_adapter && (val(f, recv)->roles & ROLE_MODEL)) {
        add_event(w, ME_ADAPTER, at, recv, ADAPTER_IN_PLACE, false);
    } else if (m == w->n_add_param_group && (val(f, recv)->roles & ROLE_OPTIMIZER) && v->nargs >= 2) {
        OptimizerFact o = {.fn = w->fn, .at = at, .site = val(f, recv)->origin};
        sources_of(w, f, v->args[1], at, PF_ALL, &o, 0);
        VEC_PUSH(w->A, w->P->optimizers, o);   /* more parameters for the same optimizer */
    }
}

/* transformers.Trainer(model=m, args=TrainingArguments(gradient_checkpointing=True)):
 * the trainer enables checkpointing on m when it trains. */
static void collect_trainer(Walk *w, ValueId at)
{
    const IrFunction *f = w->f;
    const IrValue *v = val(f, at);
    ValueId model = kwarg(w, v, "model"), args = kwarg(w, v, "args");
    if (!model)
        model = posarg(v, 0);
    if (!args)
        args = posarg(v, 1);
    if (!model || !args)
        return;
    const IrValue *a = val(f, ir_resolve(f, args));
    if (a->op != IR_CALL || !a->nargs || !is(w, val(f, a->args[0])->qual, "transformers.TrainingArguments"))
        return;
    ValueId gc = kwarg(w, a, "gradient_checkpointing");
    if (!gc || bool_value(w, val(f, gc)) != GV_TRUE)
        return;
    add_event(w, ME_CHECKPOINT, at, model, (uint8_t)reentrant(w, f, a), false);
    w->P->events.v[w->P->events.n - 1].node = val(f, gc)->node;
}

/* torch.bfloat16, "bf16", "float16", torch.half... */
static DtypeName dtype_of(const Walk *w, const IrFunction *f, ValueId x)
{
    const IrValue *v = val(f, ir_resolve(f, x));
    if (v->op == IR_ATTR && v->qual) {
        if (is(w, v->qual, "torch.bfloat16"))
            return DT_BF16;
        if (is(w, v->qual, "torch.float16") || is(w, v->qual, "torch.half"))
            return DT_FP16;
        if (is(w, v->qual, "torch.float32") || is(w, v->qual, "torch.float"))
            return DT_FP32;
        return DT_UNKNOWN;
    }
    int k = const_kind(w, v);
    if (k == T_NUMBER)
        return text_has(w, v->node, "32") ? DT_FP32 : text_has(w, v->node, "16") ? DT_FP16 : DT_UNKNOWN;
    if (k != T_STRING)
        return DT_UNKNOWN;
    if (text_has(w, v->node, "bf16") || text_has(w, v->node, "bfloat16"))
        return DT_BF16;
    if (text_has(w, v->node, "fp16") || text_has(w, v->node, "float16") || text_has(w, v->node, "16-mixed") ||
        text_has(w, v->node, "\"16\"") || text_has(w, v->node, "'16'"))
        return DT_FP16;
    if (text_has(w, v->node, "32"))
        return DT_FP32;
    return DT_UNKNOWN;
}

static void add_dtype(Walk *w, bool quant, uint32_t node, DtypeName d)
{
    DtypeFact x = {w->fn, node, (uint8_t)d};
    if (quant)
        VEC_PUSH(w->A, w->P->quant_compute, x);
    else
        VEC_PUSH(w->A, w->P->precision, x);
}

static const char *const training_arguments[] = {
    "transformers.TrainingArguments", "transformers.Seq2SeqTrainingArguments", "trl.SFTConfig",
    "trl.DPOConfig", NULL};

/* bf16=True / fp16=True of a training-arguments call; a value that is not a
 * literal leaves the precision unknown. */
static void collect_precision_flags(Walk *w, const IrValue *v)
{
    for (uint32_t i = 1; v->op == IR_CALL && i < v->nargs; i++) {
        uint32_t kw = ir_kwname(v, i);
        if (!kw || (!is(w, kw, "bf16") && !is(w, kw, "fp16")))
            continue;
        GradValue b = bool_value(w, val(w->f, v->args[i]));
        if (b != GV_FALSE)
            add_dtype(w, false, val(w->f, v->args[i])->node,
                      b == GV_UNKNOWN ? DT_UNKNOWN : is(w, kw, "bf16") ? DT_BF16 : DT_FP16);
    }
}

/* Configurations that name a dtype: quantisation and training precision. */
static bool collect_dtypes(Walk *w, const IrValue *v, uint32_t q)
{
    const IrFunction *f = w->f;
    ValueId x;
    if (is(w, q, "transformers.BitsAndBytesConfig")) {
        ValueId four = kwarg(w, v, "load_in_4bit");
        x = kwarg(w, v, "bnb_4bit_compute_dtype");
        if (four && bool_value(w, val(f, four)) == GV_TRUE && x)
            add_dtype(w, true, val(f, x)->node, dtype_of(w, f, x));
    } else if (name_in(w, q, training_arguments)) {
        collect_precision_flags(w, v);
    } else if (is(w, q, "accelerate.Accelerator") && (x = kwarg(w, v, "mixed_precision"))) {
        add_dtype(w, false, val(f, x)->node, dtype_of(w, f, x));
    } else if ((is(w, q, "torch.autocast") || is(w, q, "torch.amp.autocast") ||
                is(w, q, "torch.cuda.amp.autocast")) && (x = kwarg(w, v, "dtype"))) {
        add_dtype(w, false, val(f, x)->node, dtype_of(w, f, x));
    } else if ((is(w, q, "lightning.Trainer") || is(w, q, "pytorch_lightning.Trainer") ||
                is(w, q, "lightning.pytorch.Trainer") || is(w, q, "lightning.Fabric")) &&
               (x = kwarg(w, v, "precision"))) {
        add_dtype(w, false, val(f, x)->node, dtype_of(w, f, x));
    } else {
        return false;
    }
    return true;
}

/* Does qualified name q come from a library whose calls say something here?
 * One look at the string instead of a dozen comparisons per call. */
static bool known_library(const Walk *w, uint32_t q)
{
    static const char *const libs[] = {"torch.", "peft.", "transformers.", "accelerate.", "trl.",
                                       "lightning", "pytorch_lightning.", "bitsandbytes.", NULL};
    uint32_t len;
    const char *s = intern_str(&w->S->names, q, &len);
    for (const char *const *l = libs; *l; l++) {
        size_t n = strlen(*l);
        if (len >= n && memcmp(s, *l, n) == 0)
            return true;
    }
    return false;
}

static void collect_call(Walk *w, ValueId at)
{
    const IrFunction *f = w->f;
    const IrValue *v = val(f, at);
    const IrValue *callee = val(f, v->args[0]);
    uint32_t q = callee->qual && known_library(w, callee->qual) ? callee->qual : 0;
    if (q && collect_dtypes(w, v, q))
        return;
    if (optimizer_constructor(w, f, v))
        collect_optimizer(w, at);
    else if (q && name_in(w, q, adapter_wrappers))
        add_event(w, ME_ADAPTER, at, posarg(v, 0) ? posarg(v, 0) : kwarg(w, v, "model"), 0, false);
    else if (q && is(w, q, "peft.inject_adapter_in_model"))
        add_event(w, ME_ADAPTER, at, posarg(v, 1) ? posarg(v, 1) : kwarg(w, v, "model"), 0, false);
    else if (q && (is(w, q, "peft.prepare_model_for_kbit_training") ||
                   is(w, q, "peft.prepare_model_for_int8_training")))
        add_event(w, ME_KBIT_PREP, at, posarg(v, 0) ? posarg(v, 0) : kwarg(w, v, "model"), 0, false);
    else if (q && (is(w, q, "transformers.Trainer") || is(w, q, "transformers.Seq2SeqTrainer")))
        collect_trainer(w, at);
    else if (q && (is(w, q, "torch.nn.Parameter") || is(w, q, "torch.nn.parameter.Parameter")) &&
             kwarg(w, v, "requires_grad"))   /* nn.Parameter(w, requires_grad=False): a freeze */
        add_event(w, ME_GRAD_WRITE, at, 0, (uint8_t)bool_value(w, val(f, kwarg(w, v, "requires_grad"))), false);
    else if (callee->op == IR_ATTR && callee->nargs)
        collect_method_event(w, at, callee);
}

/* `model.head = nn.Linear(...)`: a new module stored on a model object. */
static void collect_attr_store(Walk *w, ValueId at)
{
    const IrFunction *f = w->f;
    const IrValue *v = val(f, at);
    const IrValue *base = val(f, ir_resolve(f, v->args[0]));
    const IrValue *stored = val(f, ir_resolve(f, v->args[1]));
    if (!(base->roles & ROLE_MODEL) || !base->origin || stored->op != IR_CALL ||
        !(stored->roles & ROLE_MODEL) || !stored->origin || stored->origin == base->origin ||
        !params_module_has_parameters(w->ir, f, stored))
        return;
    uint32_t part;
    uint32_t site = object_of(w, f, v->args[0], &part);
    if (part || site != base->origin)
        return;   /* model.encoder.head = ...: a part of a part */
    ModelEvent e = {.kind = ME_ATTR_STORE, .site = site, .part = v->name, .added = stored->origin,
                    .fn = w->fn, .at = at, .node = v->node};
    VEC_PUSH(w->A, w->P->events, e);
}

static void collect_function(Walk *w)
{
    const IrFunction *f = w->f;
    for (uint32_t i = 1; i < f->values.n; i++) {
        const IrValue *v = val(f, i);
        if (v->op == IR_CALL && v->nargs)
            collect_call(w, i);
        else if (v->op == IR_STORE_ATTR && v->nargs == 2 && v->name == w->n_requires_grad)
            collect_grad_store(w, i);
        else if (v->op == IR_STORE_ATTR && v->nargs == 2)
            collect_attr_store(w, i);
    }
}

/* An event inside a helper happens, for its caller, at the call: lift the
 * events of [from, to) to every in-file call of the function that holds them. */
static void lift_events(Walk *w, uint32_t from, uint32_t to)
{
    const Ir *ir = w->ir;
    for (uint32_t fi = 0; fi < ir->funcs.n; fi++) {
        const IrFunction *f = &ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = val(f, i);
            int g = v->op == IR_CALL && v->nargs ? ir_callee_function(ir, f, v->args[0]) : -1;
            if (g < 0 || (uint32_t)g == fi)
                continue;
            for (uint32_t e = from; e < to; e++) {
                ModelEvent x = w->P->events.v[e];
                if (x.fn != (uint32_t)g || !x.site)
                    continue;
                x.fn = fi, x.at = i;
                VEC_PUSH(w->A, w->P->events, x);
            }
        }
    }
}

ParamFacts *params_collect(const Ir *ir, Arena *A)
{
    ParamFacts *P = arena_zalloc(A, sizeof *P);
    Walk w = {ir, ir->syn, A, P, 0, NULL, 0, 0, 0, 0, 0, 0, 0, 0};
    Interner *names = &ir->syn->names;
#define N(field, s) w.field = intern(names, s, (uint32_t)strlen(s));
    N(n_requires_grad_, "requires_grad_") N(n_requires_grad, "requires_grad")
    N(n_checkpointing, "gradient_checkpointing_enable") N(n_input_grads, "enable_input_require_grads")
    N(n_forward_hook, "register_forward_hook") N(n_input_embeddings, "get_input_embeddings")
    N(n_add_adapter, "add_adapter") N(n_add_param_group, "add_param_group")
#undef N
    for (uint32_t fi = 0; fi < ir->funcs.n; fi++) {
        w.fn = fi, w.f = &ir->funcs.v[fi];
        collect_function(&w);
    }
    uint32_t from = 0;
    for (int level = 0; level < 2 && from < P->events.n; level++) {
        uint32_t to = P->events.n;
        lift_events(&w, from, to);
        from = to;
    }
    return P;
}

/* ---- queries ------------------------------------------------------------------------- */

ValueId params_first_seen(const Ir *ir, uint32_t fn, uint32_t site)
{
    const IrFunction *f = &ir->funcs.v[fn];
    ValueId best = 0;
    for (uint32_t i = 1; i < f->values.n; i++)
        if (f->values.v[i].origin == site && f->values.v[i].op != IR_PHI &&
            (!best || params_pos(ir, fn, i) < params_pos(ir, fn, best)))
            best = i;
    return best;
}

bool params_used_after(const Ir *ir, uint32_t fn, uint32_t site, uint32_t pos)
{
    const IrFunction *f = &ir->funcs.v[fn];
    for (uint32_t i = 1; i < f->values.n; i++) {
        const IrValue *v = val(f, i);
        if (v->op == IR_PHI || params_pos(ir, fn, i) <= pos)
            continue;
        for (uint32_t a = 0; a < v->nargs; a++)
            if (val(f, ir_resolve(f, v->args[a]))->origin == site && v->origin != site)
                return true;
    }
    return false;
}

bool params_held(const ParamFacts *P, uint32_t site, uint32_t part)
{
    for (uint32_t i = 0; i < P->optimizers.n; i++) {
        const OptimizerFact *o = &P->optimizers.v[i];
        for (uint32_t s = 0; s < o->nsrc; s++)
            if (o->src[s].site == site && (!o->src[s].part || o->src[s].part == part))
                return true;
    }
    return false;
}

bool params_any_unknown(const ParamFacts *P)
{
    for (uint32_t i = 0; i < P->optimizers.n; i++)
        if (P->optimizers.v[i].unknown)
            return true;
    return false;
}

/* Layers of torch.nn that hold parameters (by prefix: Conv1d, LSTMCell...). */
static const char *const parameter_layers[] = {
    "torch.nn.Linear", "torch.nn.LazyLinear", "torch.nn.Bilinear", "torch.nn.Conv",
    "torch.nn.LazyConv", "torch.nn.Embedding", "torch.nn.LayerNorm", "torch.nn.GroupNorm",
    "torch.nn.BatchNorm", "torch.nn.RMSNorm", "torch.nn.RNN", "torch.nn.LSTM", "torch.nn.GRU",
    "torch.nn.MultiheadAttention", "torch.nn.Transformer", "torch.nn.PReLU", "torch.nn.Parameter",
    "torch.nn.parameter.Parameter", NULL};

bool params_module_has_parameters(const Ir *ir, const IrFunction *f, const IrValue *v)
{
    if (v->op != IR_CALL || !v->nargs)
        return false;
    if (v->cls)
        return true;   /* an in-file module: it registers something, as far as we know */
    uint32_t q = val(f, v->args[0])->qual;
    if (!q)
        return false;
    if (intern_is(&ir->syn->names, q, "torch.nn.Sequential") ||
        intern_is(&ir->syn->names, q, "torch.nn.ModuleList")) {
        for (uint32_t a = 1; a < v->nargs; a++)
            if (params_module_has_parameters(ir, f, val(f, ir_resolve(f, v->args[a]))))
                return true;
        return false;
    }
    for (const char *const *p = parameter_layers; *p; p++)
        if (intern_has_prefix(&ir->syn->names, q, *p))
            return true;
    return !intern_has_prefix(&ir->syn->names, q, "torch.");   /* a library model */
}

/* ---- what a class's methods store -------------------------------------------------- */

static bool is_self(const IrFunction *g, ValueId x)
{
    const IrValue *p = val(g, ir_resolve(g, x));
    return p->op == IR_PARAM && p->index == 0;
}

/* `self.<attr>.<x> = ...` in a method: a tied or patched layer. */
bool params_class_patches(const Ir *ir, uint32_t cls1, uint32_t attr)
{
    const IrClass *k = &ir->classes.v[cls1 - 1];
    for (uint32_t m = 0; m < k->methods.n; m++) {
        const IrFunction *g = &ir->funcs.v[k->methods.v[m]];
        for (uint32_t i = 1; i < g->values.n; i++) {
            const IrValue *v = val(g, i);
            if (v->op != IR_STORE_ATTR || !v->nargs)
                continue;
            const IrValue *b = val(g, ir_resolve(g, v->args[0]));
            if (b->op == IR_ATTR && b->name == attr && b->nargs && is_self(g, b->args[0]))
                return true;
        }
    }
    return false;
}

bool params_class_registers(const Ir *ir, uint32_t cls1, uint32_t attr)
{
    const IrClass *k = &ir->classes.v[cls1 - 1];
    for (uint32_t m = 0; m < k->methods.n; m++) {
        const IrFunction *g = &ir->funcs.v[k->methods.v[m]];
        for (uint32_t i = 1; i < g->values.n; i++) {
            const IrValue *v = val(g, i);
            if (v->op == IR_STORE_ATTR && v->name == attr && v->nargs && is_self(g, v->args[0]))
                return true;
        }
    }
    return false;
}
