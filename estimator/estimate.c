/* pfc estimate: reading the script's configuration and putting the peak
 * together from the simulated phases of a training step (see estimate.h). */
#include "estimate.h"
#include "../base/json.h"
#include "hf_lora.h"
#include "interp_int.h"
#include "library.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Reader {
    Syntax *S;
    const Ir *ir;
    EstimateConfig *cfg;
    uint32_t zero_grad_at, backward_at, model_call_at;   /* 1 + source offsets of the first ones */
    bool kbit_checkpointing;   /* prepare_model_for_kbit_training(use_gradient_checkpointing=) */
    bool training_args_seen;   /* a TrainingArguments(...) call in the file */
} Reader;

static const char *str_of(const Reader *r, uint32_t id)
{
    uint32_t len;
    const char *q = intern_str(&r->S->names, id, &len);
    return id ? arena_strndup(r->S->arena, q, len) : "";
}

static bool qual_is(const Reader *r, uint32_t id, const char *s) { return id && strcmp(str_of(r, id), s) == 0; }

static bool qual_ends(const Reader *r, uint32_t id, const char *suffix)
{
    const char *q = str_of(r, id);
    size_t n = strlen(q), k = strlen(suffix);
    return id && n >= k && strcmp(q + n - k, suffix) == 0;
}

static bool qual_starts(const Reader *r, uint32_t id, const char *prefix)
{
    return id && strncmp(str_of(r, id), prefix, strlen(prefix)) == 0;
}

static void assume(EstimateConfig *cfg, Arena *a, const char *s) { VEC_PUSH(a, cfg->assumptions, s); }

/* ---- reading the configuration ----------------------------------------------------------- */

/* Constant keyword arguments are read through a small interpreter of their
 * own; or, for an object the estimate's interpretation made (an optimizer
 * a framework built while the step ran), from its attributes. */
typedef struct KwReader {
    Reader *r;
    Interp *in;
    int fi;
    const IrValue *call;
    Obj *given;
} KwReader;

static AVal *kw(const KwReader *k, const char *name)
{
    if (k->given)
        return obj_get(k->given, name);
    for (uint32_t i = 1; k->call->op == IR_CALL && i < k->call->nargs; i++)
        if (ir_kwname(k->call, i) && strcmp(str_of(k->r, ir_kwname(k->call, i)), name) == 0)
            return interp_eval(k->in, k->fi, k->call->args[i]);
    return NULL;
}

static bool kw_true(const KwReader *k, const char *name, bool dflt)
{
    AVal *v = kw(k, name);
    bool known;
    bool t = v ? av_truth(v, &known) : (known = false);
    return known ? t : dflt;
}

static bool kw_int(const KwReader *k, const char *name, int64_t *out)
{
    AVal *v = kw(k, name);
    return v && av_int_of(v, out);
}

static bool kw_nonzero(const KwReader *k, const char *name)
{
    AVal *v = kw(k, name);
    double d;
    return v && av_num(v, &d) && d != 0;
}

static const char *kw_str(const KwReader *k, const char *name)
{
    AVal *v = kw(k, name);
    return v && (v->k == AV_STR || v->k == AV_QUAL) ? v->s : NULL;
}

/* bitsandbytes loading, from BitsAndBytesConfig(...) or from_pretrained's
 * own load_in_4bit= / load_in_8bit=: the bits, double quantization, and the
 * dtype 4-bit weights are dequantized to (bnb's default: float32). */
static void read_quantization(EstimateConfig *cfg, const KwReader *k)
{
    if (kw_true(k, "load_in_4bit", false))
        cfg->quant_bits = 4;
    else if (kw_true(k, "load_in_8bit", false))
        cfg->quant_bits = 8;
    if (cfg->quant_bits != 4)
        return;
    if (kw_true(k, "bnb_4bit_use_double_quant", false))
        cfg->quant_double = true;
    AVal *dt = kw(k, "bnb_4bit_compute_dtype");
    if (dt && (dt->k == AV_QUAL || dt->k == AV_STR))
        cfg->quant_compute = strstr(dt->s, "bfloat16") ? DT_BF16
                             : strstr(dt->s, "float16") || strstr(dt->s, "half") ? DT_F16
                             : DT_F32;
}

static void read_lora_targets(Reader *r, AVal *list)
{
    /* module names per family onto the bits hf.c understands (see hf.h) */
    static const struct { const char *name; uint32_t bit; } mods[] = {
        {"q_proj", LORA_Q}, {"k_proj", LORA_K}, {"v_proj", LORA_V}, {"o_proj", LORA_O},
        {"gate_proj", LORA_GATE}, {"up_proj", LORA_UP}, {"down_proj", LORA_DOWN},
        {"c_attn", LORA_C_ATTN}, {"c_proj", LORA_C_PROJ}, {"c_fc", LORA_C_FC},
        {"qkv_proj", LORA_C_ATTN}, {"query_key_value", LORA_C_ATTN}, {"gate_up_proj", LORA_UP},
        {"dense", LORA_O}, {"out_proj", LORA_O}, {"dense_h_to_4h", LORA_UP}, {"dense_4h_to_h", LORA_DOWN},
        {"fc1", LORA_UP}, {"fc2", LORA_DOWN}, {"query", LORA_Q}, {"key", LORA_K}, {"value", LORA_V},
        {"q", LORA_Q}, {"k", LORA_K}, {"v", LORA_V}, {"o", LORA_O}, {"wi", LORA_UP}, {"wo", LORA_DOWN},
    };
    for (uint32_t i = 0; list && list->k == AV_SEQ && i < list->n; i++)
        for (size_t k = 0; list->items[i]->k == AV_STR && k < sizeof mods / sizeof mods[0]; k++)
            if (strcmp(list->items[i]->s, mods[k].name) == 0)
                r->cfg->lora_targets |= mods[k].bit;
}

static void read_optimizer(Reader *r, const KwReader *k, const char *q)
{
    EstimateConfig *cfg = r->cfg;
    const char *name = strrchr(q, '.') ? strrchr(q, '.') + 1 : q;
    cfg->optimizer_name = name;
    /* bitsandbytes: PagedAdamW, PagedAdamW8bit, AdamW32bit, Lion8bit...: the
     * 32-bit ones keep fp32 state, the step is one kernel per parameter */
    bool bnb = strncmp(q, "bitsandbytes.", 13) == 0;
    cfg->paged_optimizer = bnb && strncmp(name, "Paged", 5) == 0;
    char leaf[64];
    snprintf(leaf, sizeof leaf, "%s", name + (cfg->paged_optimizer ? 5 : 0));
    char *width = strstr(leaf, "32bit");
    if (bnb && width)
        *width = 0;
    bool adam = strcmp(leaf, "AdamW") == 0 || strcmp(leaf, "Adam") == 0;
    /* the rest by how many parameter-sized state tensors they keep: Adamax,
     * NAdam, RAdam and Adadelta two, RMSprop and Adagrad one (RMSprop one
     * more with momentum, and with centered=True) */
    static const struct { const char *name; int slots; } others[] = {
        {"Adamax", 2}, {"NAdam", 2}, {"RAdam", 2}, {"Adadelta", 2}, {"Adagrad", 1}, {"RMSprop", 1},
        {"SparseAdam", 2}, {"ASGD", 1}, {"Rprop", 2}, {"Lion", 1},
    };
    cfg->optimizer = strstr(leaf, "8bit") ? OPT_ADAM8BIT
                   : adam                  ? OPT_ADAM
                   : strcmp(leaf, "SGD") == 0 ? OPT_SGD
                   : strcmp(leaf, "Adafactor") == 0 ? OPT_ADAFACTOR
                   : OPT_OTHER;
    cfg->state_slots = 0;
    for (size_t i = 0; cfg->optimizer == OPT_OTHER && i < sizeof others / sizeof others[0]; i++)
        if (strcmp(leaf, others[i].name) == 0) {
            cfg->optimizer = OPT_SLOTS;
            cfg->state_slots = others[i].slots;
        }
    cfg->momentum = kw_nonzero(k, "momentum");
    if (cfg->optimizer == OPT_SLOTS && strcmp(leaf, "RMSprop") == 0)
        cfg->state_slots += cfg->momentum + kw_true(k, "centered", false);
    cfg->nesterov = kw_true(k, "nesterov", false);
    cfg->weight_decay = kw_nonzero(k, "weight_decay");
    cfg->fused = kw_true(k, "fused", false);
    cfg->foreach_off = bnb || !kw_true(k, "foreach", true);
    if (cfg->optimizer == OPT_ADAM8BIT)
        cfg->state_slots = strstr(leaf, "Lion") ? 1 : 2;
}

void estimate_step_optimizer(Syntax *s, const Ir *ir, EstimateConfig *cfg, Obj *o)
{
    AVal *cls = obj_get(o, "__class__");
    if (!cls || cls->k != AV_STR || cfg->optimizer != OPT_NONE)
        return;
    Reader r = {s, ir, cfg, 0, 0, 0, false, false};
    KwReader k = {&r, NULL, 0, NULL, o};
    read_optimizer(&r, &k, cls->s);
}

/* TrainingArguments(optim=): adamw_torch(_fused), adamw_bnb_8bit,
 * paged_adamw_8bit / paged_adamw_32bit, (paged_)lion_8bit / _32bit,
 * adafactor, sgd. */
static void read_optim_name(Reader *r, const char *optim)
{
    EstimateConfig *cfg = r->cfg;
    bool lion = optim && strstr(optim, "lion"), bit8 = optim && strstr(optim, "8bit");
    cfg->paged_optimizer = optim && strstr(optim, "paged");
    cfg->optimizer_name = optim;
    cfg->state_slots = lion ? 1 : 2;
    if (bit8) {
        cfg->optimizer = OPT_ADAM8BIT;
    } else if (lion) {
        cfg->optimizer = OPT_SLOTS;
        cfg->foreach_off = true;
    } else if (optim && strstr(optim, "adafactor")) {
        cfg->optimizer = OPT_ADAFACTOR;
    } else if (optim && strstr(optim, "sgd")) {
        cfg->optimizer = OPT_SGD;
    } else {
        cfg->optimizer = OPT_ADAM;
        cfg->optimizer_name = optim ? optim : "adamw_torch_fused (the Trainer's default)";
        cfg->fused = !optim || strstr(optim, "fused");
        cfg->foreach_off = optim && (strstr(optim, "bnb") || strstr(optim, "32bit"));
        if (!optim)
            assume(cfg, r->S->arena, "the Trainer's optimizer is its default fused AdamW");
    }
}

/* FSDP's sharding strategy as torch (ShardingStrategy.X), Accelerate
 * ("FULL_SHARD", or 1 FULL_SHARD, 2 SHARD_GRAD_OP, 3 NO_SHARD, 4 HYBRID_SHARD,
 * 5 HYBRID_SHARD_ZERO2) and TrainingArguments(fsdp="shard_grad_op auto_wrap")
 * name it; FULL_SHARD when none is given. */
static Shard fsdp_strategy(const AVal *v)
{
    int64_t n;
    if (v && av_int_of(v, &n))
        return n == 2 ? SHARD_FSDP_GRAD_OP : n == 3 ? SHARD_FSDP_NONE : n >= 4 ? SHARD_FSDP_HYBRID : SHARD_FSDP;
    const char *s = v && (v->k == AV_STR || v->k == AV_QUAL) ? v->s : "";
    if (strstr(s, "HYBRID") || strstr(s, "hybrid"))
        return SHARD_FSDP_HYBRID;
    if (strstr(s, "SHARD_GRAD_OP") || strstr(s, "shard_grad_op"))
        return SHARD_FSDP_GRAD_OP;
    if (strstr(s, "NO_SHARD") || strstr(s, "no_shard"))
        return SHARD_FSDP_NONE;
    return SHARD_FSDP;
}

/* TrainingArguments(fsdp=...): a string of options, or a list of them */
static void read_fsdp_option(Reader *r, AVal *v)
{
    if (v && v->k == AV_SEQ && v->n)
        v = v->items[0];
    if (v && v->k == AV_STR && *v->s) {
        r->cfg->shard = fsdp_strategy(v);
        r->cfg->distributed = true;
    }
}

static void read_deepspeed(Reader *r, Interp *in, AVal *config, const IrValue *call);

/* A TrainingArguments setting: a keyword of the call, or an attribute of
 * the object HfArgumentParser made (o). */
static AVal *setting(const KwReader *k, Obj *o, const char *name)
{
    return o ? obj_get(o, name) : kw(k, name);
}

static bool setting_true(const KwReader *k, Obj *o, const char *name)
{
    AVal *v = setting(k, o, name);
    bool known;
    return v && av_truth(v, &known) && known;
}

static void read_training_args(Reader *r, const KwReader *k, Obj *o)
{
    EstimateConfig *cfg = r->cfg;
    int64_t n;
    double d;
    if (av_int_of(setting(k, o, "gradient_accumulation_steps"), &n) && n > 0)
        cfg->accumulation = n;
    bool bf16 = setting_true(k, o, "bf16"), fp16 = setting_true(k, o, "fp16");
    cfg->trainer_autocast = bf16 || fp16;
    cfg->trainer_fp16 = fp16;
    if (setting_true(k, o, "gradient_checkpointing"))
        cfg->grad_checkpointing = true;
    AVal *ov = setting(k, o, "optim");
    read_optim_name(r, ov && (ov->k == AV_STR || ov->k == AV_QUAL) ? ov->s : NULL);
    AVal *wd = setting(k, o, "weight_decay");
    if (cfg->optimizer == OPT_ADAM)
        cfg->weight_decay = wd && av_num(wd, &d) && d != 0;
    read_fsdp_option(r, setting(k, o, "fsdp"));
    AVal *ds = setting(k, o, "deepspeed");
    if (ds && ds->k != AV_NONE)
        read_deepspeed(r, k->in, ds, k->call);
}

/* Trainer(args=...) whose arguments come from HfArgumentParser (or any
 * object rather than a TrainingArguments call in the file). */
static void read_trainer_args(Reader *r, const KwReader *k)
{
    AVal *args = kw(k, "args");
    if (!r->training_args_seen && args && args->k == AV_OBJECT && args->obj->nn == NN_OPAQUE &&
        args->obj->a == OPAQUE_ARGS)
        read_training_args(r, k, args->obj);
}

static AVal *dict_get(AVal *d, const char *key)
{
    for (uint32_t i = 0; d && d->k == AV_DICT && i < d->n; i++)
        if (strcmp(d->keys[i], key) == 0)
            return d->items[i];
    return NULL;
}

/* A JSON value as the interpreter's values: objects become dicts. */
static AVal *json_aval(Interp *in, Arena *a, const JsonValue *v, const char *src)
{
    switch (json_kind(v)) {
    case JSON_BOOL: return av_bool(in, v->boolean);
    case JSON_STRING: return av_str(in, v->str);
    case JSON_NUMBER: {
        char num[64];
        snprintf(num, sizeof num, "%.*s", (int)(v->end - v->start), src + v->start);
        return strpbrk(num, ".eE") ? av_float(in, strtod(num, NULL)) : av_int(in, strtoll(num, NULL, 10));
    }
    case JSON_ARRAY: {
        AVal *s = av_seq(in, v->n);
        for (uint32_t i = 0; i < v->n; i++)
            s->items[i] = json_aval(in, a, v->items[i], src);
        return s;
    }
    case JSON_OBJECT: {
        AVal *d = av_new(in, AV_DICT);
        d->items = arena_zalloc(a, (v->n + 1) * sizeof *d->items);
        d->keys = arena_zalloc(a, (v->n + 1) * sizeof *d->keys);
        for (uint32_t i = 0; i < v->n; i++) {
            d->keys[d->n] = v->members[i].key->str;
            d->items[d->n++] = json_aval(in, a, v->members[i].value, src);
        }
        return d;
    }
    default: return av_none(in);
    }
}

/* The file a config path names: beside the script first (where it is
 * usually launched from), else from the current directory. NULL with *err. */
static char *read_beside(Arena *a, const char *script, const char *name, size_t *len, const char **err)
{
    const char *slash = script ? strrchr(script, '/') : NULL;
    const char *beside = name[0] != '/' && slash ? arena_printf(a, "%.*s/%s", (int)(slash - script), script, name)
                                                 : name;
    FILE *f = fopen(beside, "rb");
    if (!f)
        f = fopen(name, "rb");
    if (!f) {
        *err = strerror(errno);
        return NULL;
    }
    enum { CONFIG_MAX = 16 << 20 };
    char *buf = arena_alloc(a, CONFIG_MAX);
    *len = fread(buf, 1, CONFIG_MAX, f);
    bool bad = ferror(f) || !feof(f);
    fclose(f);
    if (bad) {
        *err = "unreadable or larger than 16 MiB";
        return NULL;
    }
    return buf;
}

/* deepspeed.initialize(config="ds.json") / TrainingArguments(deepspeed=...):
 * the file as a dict, or NULL with cfg->refusal naming it. */
static AVal *deepspeed_file(Reader *r, Interp *in, const char *name, const IrValue *call)
{
    Arena *a = r->S->arena;
    uint32_t line, col;
    syntax_line_col(r->S, node_start(r->S, syn_node(r->S, call->node)), &line, &col);
    size_t len = 0;
    const char *err = NULL;
    char *src = read_beside(a, r->cfg->script_path, name, &len, &err);
    JsonError je;
    const JsonValue *root = src ? json_parse(a, src, len, &je) : NULL;
    if (src && !root)
        err = arena_printf(a, "not JSON at %u:%u: %s", je.line, je.col, je.msg);
    if (!root || json_kind(root) != JSON_OBJECT) {
        r->cfg->refusal = arena_printf(a, "the DeepSpeed config '%s' named on line %u cannot be read (%s)", name,
                                       line, err ? err : "not a JSON object");
        return NULL;
    }
    assume(r->cfg, a, arena_printf(a, "DeepSpeed config read from %s", name));
    return json_aval(in, a, root, src);
}

/* A DeepSpeed setting given as "auto" takes the TrainingArguments' value. */
static bool is_auto(const AVal *v) { return v && v->k == AV_STR && strcmp(v->s, "auto") == 0; }

static bool ds_enabled(Reader *r, AVal *section, bool from_trainer, const char *what)
{
    AVal *e = dict_get(section, "enabled");
    if (is_auto(e)) {
        assume(r->cfg, r->S->arena, arena_printf(r->S->arena, "DeepSpeed %s.enabled \"auto\": %s, as TrainingArguments "
                                                              "say", what, from_trainer ? "on" : "off"));
        return from_trainer;
    }
    bool known;
    return e && av_truth(e, &known) && known;
}

static bool offloaded(AVal *section)
{
    AVal *d = dict_get(section, "device");
    return d && d->k == AV_STR && (strcmp(d->s, "cpu") == 0 || strcmp(d->s, "nvme") == 0);
}

/* The ZeRO section: the stage shards state (1), gradients (2) and weights
 * (3) over the ranks; offload_optimizer keeps the state and the step on the
 * CPU (or NVMe), offload_param (ZeRO-3) the weights outside the gathered layers. */
static void read_zero(Reader *r, AVal *zero)
{
    EstimateConfig *cfg = r->cfg;
    int64_t stage = 0;
    if (av_int_of(dict_get(zero, "stage"), &stage))
        cfg->shard = stage == 1 ? SHARD_ZERO1 : stage == 2 ? SHARD_ZERO2 : stage == 3 ? SHARD_ZERO3 : cfg->shard;
    bool known;
    AVal *legacy = dict_get(zero, "cpu_offload");
    cfg->offload_optimizer = offloaded(dict_get(zero, "offload_optimizer")) || (legacy && av_truth(legacy, &known));
    cfg->offload_param = offloaded(dict_get(zero, "offload_param")) && cfg->shard == SHARD_ZERO3;
    if (cfg->offload_optimizer)
        assume(cfg, r->S->arena, "DeepSpeed offload_optimizer: the optimizer state and step are on the CPU, "
                                 "not counted");
    if (cfg->offload_param)
        assume(cfg, r->S->arena, "DeepSpeed offload_param: only the gathered layers' weights are on the GPU");
}

/* deepspeed.initialize(config={...} or "ds.json"), TrainingArguments(deepspeed=):
 * ZeRO; bf16/fp16 keep 16-bit weights on the GPU and fp32 master weights in
 * the optimizer; the micro-batch, gradient accumulation, the optimizer section.
 * "auto" values are the TrainingArguments' (already read). */
static void read_deepspeed(Reader *r, Interp *in, AVal *config, const IrValue *call)
{
    EstimateConfig *cfg = r->cfg;
    cfg->distributed = true;
    if (config && config->k == AV_STR)
        config = deepspeed_file(r, in, config->s, call);
    if (!config || config->k != AV_DICT) {
        if (!cfg->refusal)
            assume(cfg, r->S->arena, "the DeepSpeed configuration is neither a dict nor a file name in the "
                                     "script: ZeRO stage and precision not read");
        return;
    }
    read_zero(r, dict_get(config, "zero_optimization"));
    bool fp16 = ds_enabled(r, dict_get(config, "fp16"), cfg->trainer_autocast && cfg->trainer_fp16, "fp16");
    if (ds_enabled(r, dict_get(config, "bf16"), cfg->trainer_autocast && !cfg->trainer_fp16, "bf16") || fp16) {
        cfg->weight_bytes = 2;
        cfg->weight_fp16 = fp16;
        cfg->master_weights = true;
    }
    int64_t n = 0;
    if (av_int_of(dict_get(config, "gradient_accumulation_steps"), &n) && n > 1)
        cfg->accumulation = n;
    if (av_int_of(dict_get(config, "train_micro_batch_size_per_gpu"), &n) && n > 0)
        cfg->ds_micro_batch = n;
    if (is_auto(dict_get(config, "train_micro_batch_size_per_gpu")) ||
        is_auto(dict_get(config, "gradient_accumulation_steps")))
        assume(cfg, r->S->arena, "DeepSpeed batch settings \"auto\": the TrainingArguments' values");
    AVal *opt = dict_get(dict_get(config, "optimizer"), "type");
    if (opt && opt->k == AV_STR && (cfg->optimizer == OPT_NONE || cfg->trainer)) {
        cfg->optimizer = strstr(opt->s, "Adam") || strstr(opt->s, "adam") ? OPT_ADAM : OPT_OTHER;
        cfg->optimizer_name = opt->s;
        cfg->fused = true;   /* DeepSpeed's fused Adam */
    }
}

/* DDP, FSDP (its sharding_strategy; FSDP2's fully_shard with
 * reshard_after_forward=False keeps the gathered weights, as SHARD_GRAD_OP),
 * Accelerate's FSDP and DeepSpeed plugins, init_process_group, torch.compile. */
static void read_distributed(Reader *r, const KwReader *k, const char *q)
{
    EstimateConfig *cfg = r->cfg;
    if (strstr(q, "FullyShardedDataParallelPlugin")) {
        AVal *st = kw(k, "sharding_strategy");
        cfg->shard = fsdp_strategy(st ? st : kw(k, "fsdp_sharding_strategy"));
    } else if (strstr(q, "DeepSpeedPlugin")) {
        int64_t stage;
        if (kw_int(k, "zero_stage", &stage))
            cfg->shard = stage == 1 ? SHARD_ZERO1 : stage == 2 ? SHARD_ZERO2 : stage == 3 ? SHARD_ZERO3 : cfg->shard;
        AVal *ds = kw(k, "hf_ds_config");
        if (ds && ds->k != AV_NONE)
            read_deepspeed(r, k->in, ds, k->call);
    } else if (strstr(q, "DistributedDataParallel")) {
        cfg->shard = SHARD_DDP;
    } else if (strstr(q, "FullyShardedDataParallel")) {
        cfg->shard = fsdp_strategy(kw(k, "sharding_strategy"));
    } else if (strlen(q) > 12 && strcmp(q + strlen(q) - 12, ".fully_shard") == 0) {
        cfg->shard = kw_true(k, "reshard_after_forward", true) ? SHARD_FSDP : SHARD_FSDP_GRAD_OP;
    } else if (strcmp(q, "torch.distributed.init_process_group") == 0) {
        cfg->distributed = true;
    } else if (strcmp(q, "torch.compile") == 0 && !cfg->compiled) {
        cfg->compiled = true;
        assume(cfg, r->S->arena, "torch.compile: pfc models eager memory; compiled graphs usually save less "
                                 "activation memory for the backward (unmeasured: the estimate is likely high)");
    }
    if (cfg->shard != SHARD_NONE)
        cfg->distributed = true;
}

static bool method_is(const Reader *r, const IrValue *callee, const char *name)
{
    return callee->op == IR_ATTR && strcmp(str_of(r, callee->name), name) == 0;
}

/* PEFT builds nn.Dropout(p) for p > 0 and an Identity otherwise; nn.Dropout
 * raises for p > 1, and so does the script: a refusal, not an estimate. */
static void read_lora_dropout(Reader *r, const IrValue *call, double p)
{
    if (p <= 1) {
        r->cfg->lora_dropout = p > 0 ? p : 0;
        return;
    }
    uint32_t line, col;
    syntax_line_col(r->S, node_start(r->S, syn_node(r->S, call->node)), &line, &col);
    r->cfg->refusal = arena_printf(r->S->arena, "LoraConfig's lora_dropout on line %u is %g, not a probability "
                                                "(nn.Dropout raises for p > 1)", line, p);
}

/* Lightning's Trainer(precision=, accumulate_grad_batches=, strategy=): a
 * "16-true" / "bf16-true" precision keeps the weights in 16 bits (the mixed
 * ones autocast the step, which the interpretation applies); "ddp", "fsdp"
 * and "deepspeed_stage_N" shard as those do. */
static void read_lightning_trainer(EstimateConfig *cfg, const KwReader *k)
{
    const char *p = kw_str(k, "precision");
    if (p && (strcmp(p, "bf16-true") == 0 || strcmp(p, "16-true") == 0)) {
        cfg->weight_bytes = 2;
        cfg->weight_fp16 = p[0] == '1';
    }
    int64_t n;
    if (kw_int(k, "accumulate_grad_batches", &n) && n > 1)
        cfg->accumulation = n;
    const char *st = kw_str(k, "strategy");
    if (!st)
        return;
    cfg->distributed = true;
    if (strncmp(st, "ddp", 3) == 0)
        cfg->shard = SHARD_DDP;
    else if (strcmp(st, "fsdp") == 0)
        cfg->shard = SHARD_FSDP;
    else if (strncmp(st, "deepspeed_stage_", 16) == 0)
        cfg->shard = st[16] == '1' ? SHARD_ZERO1 : st[16] == '2' ? SHARD_ZERO2 : st[16] == '3' ? SHARD_ZERO3 : cfg->shard;
}

static void read_call(Reader *r, Interp *in, int fi, const IrValue *v)
{
    EstimateConfig *cfg = r->cfg;
    const IrFunction *f = &r->ir->funcs.v[fi];
    const IrValue *callee = &f->values.v[v->args[0]];
    uint32_t q = callee->qual;
    KwReader k = {r, in, fi, v, NULL};
    const char *qs = str_of(r, q);
    if (q && qual_ends(r, q, ".from_pretrained") && (qual_starts(r, q, "transformers.") || qual_starts(r, q, "peft."))) {
        const char *impl = kw_str(&k, "attn_implementation");
        if (impl && strcmp(impl, "eager") == 0)
            cfg->eager_attention = true;
        read_quantization(cfg, &k);   /* the legacy load_in_4bit= / load_in_8bit= */
    } else if (qual_is(r, q, "transformers.BitsAndBytesConfig")) {
        read_quantization(cfg, &k);
    } else if (q && qual_ends(r, q, ".prepare_model_for_kbit_training") && qual_starts(r, q, "peft.")) {
        cfg->kbit_prepared = true;
        r->kbit_checkpointing = kw_true(&k, "use_gradient_checkpointing", true);
    } else if (q && (qual_starts(r, q, "torch.optim.") || qual_starts(r, q, "bitsandbytes.optim.") ||
                     qual_is(r, q, "transformers.Adafactor") || qual_is(r, q, "transformers.optimization.Adafactor")) &&
               !strstr(qs, "lr_scheduler")) {
        read_optimizer(r, &k, qs);
    } else if (qual_is(r, q, "transformers.TrainingArguments") || qual_is(r, q, "trl.SFTConfig")) {
        read_training_args(r, &k, NULL);
        r->training_args_seen = true;
    } else if (qual_is(r, q, "transformers.Trainer") || qual_is(r, q, "trl.SFTTrainer")) {
        cfg->trainer = true;
        read_trainer_args(r, &k);
        if (cfg->optimizer == OPT_NONE) {
            cfg->optimizer = OPT_ADAM;
            cfg->fused = true;
            cfg->optimizer_name = "adamw_torch_fused (the Trainer's default)";
        }
    } else if (q && (qual_starts(r, q, "lightning.") || qual_starts(r, q, "pytorch_lightning.")) &&
               qual_ends(r, q, ".Trainer")) {
        read_lightning_trainer(cfg, &k);
    } else if (qual_is(r, q, "accelerate.Accelerator")) {
        /* prepare() wraps the model's forward in autocast */
        const char *mp = kw_str(&k, "mixed_precision");
        cfg->accelerate_mp = mp && strcmp(mp, "bf16") == 0 ? 1 : mp && strcmp(mp, "fp16") == 0 ? 2 : 0;
        int64_t n;
        if (kw_int(&k, "gradient_accumulation_steps", &n) && n > 1)
            cfg->accumulation = n;
    } else if (qual_is(r, q, "deepspeed.initialize")) {
        AVal *config = kw(&k, "config") ? kw(&k, "config") : kw(&k, "config_params");
        AVal *cmd = config ? NULL : kw(&k, "args");   /* deepspeed.add_config_arguments' --deepspeed_config */
        if (cmd && cmd->k == AV_OBJECT)
            config = obj_get(cmd->obj, "deepspeed_config");
        read_deepspeed(r, in, config, v);
    } else if (qual_is(r, q, "peft.LoraConfig")) {
        int64_t rank;
        if (kw_int(&k, "r", &rank) && rank > 0)   /* a huge rank stays huge (not wrapped to 0) */
            cfg->lora_r = rank > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)rank;
        else
            cfg->lora_r = 8;   /* PEFT's default */
        read_lora_targets(r, kw(&k, "target_modules"));
        AVal *d = kw(&k, "lora_dropout");
        double p;
        if (d && av_num(d, &p))
            read_lora_dropout(r, v, p);
    } else {
        read_distributed(r, &k, qs);
    }
    if (callee->op != IR_ATTR)
        return;
    /* transformers' gradient_checkpointing_enable(), diffusers'
     * enable_gradient_checkpointing() */
    if (method_is(r, callee, "gradient_checkpointing_enable") || method_is(r, callee, "enable_gradient_checkpointing"))
        cfg->grad_checkpointing = true;
    if (method_is(r, callee, "zero_grad") && kw(&k, "set_to_none") && !kw_true(&k, "set_to_none", true))
        cfg->set_to_none = false;
    uint32_t at = node_start(r->S, syn_node(r->S, v->node)) + 1;
    if (method_is(r, callee, "zero_grad") && !r->zero_grad_at)
        r->zero_grad_at = at;
    if (method_is(r, callee, "zero_grad") && (f->values.v[callee->args[0]].roles & ROLE_MODEL))
        cfg->zero_grad_model = true;
    if (method_is(r, callee, "backward") && !r->backward_at)
        r->backward_at = at;
    if ((callee->roles & ROLE_MODEL) && callee->op != IR_ATTR && !r->model_call_at)
        r->model_call_at = at;
    const IrValue *recv = &f->values.v[callee->args[0]];
    bool on_model = (recv->roles & ROLE_MODEL) != 0;
    /* model.train() / model.eval(), also on a wrapped model (get_peft_model's
     * result) the role facts do not follow; Trainer.train() is a training
     * step anyway */
    bool mode_recv = !(recv->roles & (ROLE_OPTIMIZER | ROLE_LOADER | ROLE_LOSS_FN));
    if (mode_recv && method_is(r, callee, "train") && v->nargs == 1)
        cfg->train_called = true;
    if (mode_recv && method_is(r, callee, "eval") && v->nargs == 1)
        cfg->eval_called = true;
    if (on_model && (method_is(r, callee, "half") || method_is(r, callee, "bfloat16"))) {
        cfg->weight_bytes = 2;
        cfg->weight_fp16 = method_is(r, callee, "half");
    }
    if (on_model && method_is(r, callee, "to"))
        for (uint32_t i = 1; i < v->nargs; i++) {
            AVal *a = interp_eval(in, fi, v->args[i]);
            if (a->k == AV_QUAL && (strstr(a->s, "bfloat16") || strstr(a->s, "float16") || strstr(a->s, "half"))) {
                cfg->weight_bytes = 2;
                cfg->weight_fp16 = !strstr(a->s, "bfloat16");
            }
        }
}

/* from_pretrained's torch_dtype (read separately: the library hook needs it) */
static void read_load_dtype(Reader *r, Interp *in, int fi, const IrValue *v)
{
    const IrFunction *f = &r->ir->funcs.v[fi];
    const IrValue *callee = &f->values.v[v->args[0]];
    if (!callee->qual || !qual_ends(r, callee->qual, ".from_pretrained"))
        return;
    KwReader k = {r, in, fi, v, NULL};
    AVal *dt = kw(&k, "torch_dtype");
    if (!dt)
        dt = kw(&k, "dtype");
    if (dt && dt->k != AV_NONE)
        r->cfg->load_dtype_given = true;
    if (dt && (dt->k == AV_QUAL || dt->k == AV_STR) &&
        (strstr(dt->s, "bfloat16") || strstr(dt->s, "float16") || strstr(dt->s, "half"))) {
        r->cfg->weight_bytes = 2;
        r->cfg->weight_fp16 = !strstr(dt->s, "bfloat16");
    }
}

/* What stays unquantized under bitsandbytes: transformers loads it in
 * float16 when no torch_dtype is given; prepare_model_for_kbit_training
 * casts every 16-bit parameter that is not quantized to float32, and with
 * a quantized model turns gradient checkpointing on. */
static void read_quantized_dtypes(Reader *r)
{
    EstimateConfig *cfg = r->cfg;
    if (cfg->quant_bits && !cfg->load_dtype_given && !cfg->kbit_prepared) {
        cfg->weight_bytes = 2;
        cfg->weight_fp16 = true;
        assume(cfg, r->S->arena, "bitsandbytes without torch_dtype: the unquantized weights load in float16");
    }
    if (cfg->kbit_prepared)
        cfg->weight_bytes = 4;
    if (cfg->kbit_prepared && cfg->quant_bits && r->kbit_checkpointing)
        cfg->grad_checkpointing = true;
}

void estimate_read(Syntax *s, const Ir *ir, EstimateConfig *cfg)
{
    EstimateConfig given = *cfg;   /* what the command line says */
    memset(cfg, 0, sizeof *cfg);
    cfg->script_args = given.script_args;
    cfg->nscript_args = given.nscript_args;
    cfg->model_override = given.model_override;
    cfg->script_path = given.script_path;
    cfg->weight_bytes = 4;
    cfg->set_to_none = true;
    cfg->accumulation = 1;
    cfg->world_size = 1;
    cfg->quant_compute = -1;
    Reader r = {s, ir, cfg, 0, 0, 0, false, false};
    Trace scratch;
    tr_init(&scratch, s->arena);
    Interp *in = interp_new(s->arena, s, ir, &scratch, NULL);
    in->script_args = cfg->script_args;
    in->nscript_args = cfg->nscript_args;
    in->script_path = cfg->script_path;
    for (uint32_t fi = 0; fi < ir->funcs.n; fi++) {
        const IrFunction *f = &ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = &f->values.v[i];
            if (v->op == IR_CALL && v->nargs) {
                read_call(&r, in, (int)fi, v);
                read_load_dtype(&r, in, (int)fi, v);
            }
            /* model.config.use_cache = False */
            if (v->op == IR_STORE_ATTR && v->nargs >= 2 && strcmp(str_of(&r, v->name), "use_cache") == 0) {
                bool known;
                if (!av_truth(interp_eval(in, (int)fi, v->args[1]), &known) && known)
                    cfg->cache_off = true;
            }
        }
    }
    read_quantized_dtypes(&r);
    /* forward, zero_grad(), backward(): the old .grad lives through the forward */
    cfg->zero_grad_mid = r.zero_grad_at && r.model_call_at < r.zero_grad_at && r.zero_grad_at < r.backward_at;
    if (cfg->lora_r && !cfg->lora_targets)
        assume(cfg, s->arena, "LoRA target modules not found: assumed q_proj and v_proj");
    if (cfg->optimizer == OPT_OTHER)
        assume(cfg, s->arena, arena_printf(s->arena, "optimizer %s: its state is not modelled",
                                           cfg->optimizer_name));
}
