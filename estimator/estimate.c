/* Reading a training script's configuration from the IR, and the exact
 * memory components it implies. */
#include "estimate.h"
#include <stdlib.h>
#include <string.h>

enum {
    LORA_Q = 1, LORA_K = 2, LORA_V = 4, LORA_O = 8, LORA_GATE = 16, LORA_UP = 32,
    LORA_DOWN = 64, LORA_C_ATTN = 128, LORA_C_PROJ = 256, LORA_C_FC = 512,
};

typedef struct Reader {
    Syntax *S;
    const Ir *ir;
    EstimateConfig *cfg;
} Reader;

static bool qual_is(const Reader *r, uint32_t id, const char *s)
{
    uint32_t len;
    const char *q = intern_str(&r->S->names, id, &len);
    return id && strlen(s) == len && memcmp(q, s, len) == 0;
}

static bool qual_ends(const Reader *r, uint32_t id, const char *suffix)
{
    uint32_t len;
    const char *q = intern_str(&r->S->names, id, &len);
    size_t n = strlen(suffix);
    return id && len >= n && memcmp(q + len - n, suffix, n) == 0;
}

static bool qual_starts(const Reader *r, uint32_t id, const char *prefix)
{
    uint32_t len;
    const char *q = intern_str(&r->S->names, id, &len);
    size_t n = strlen(prefix);
    return id && len >= n && memcmp(q, prefix, n) == 0;
}

/* ---- constants ----------------------------------------------------------------------- */

/* The value a name or expression stands for: a module-level constant is
 * followed to its assignment. */
static const IrValue *constant_source(const Reader *r, const IrFunction *f, ValueId v,
                                      const IrFunction **where)
{
    const IrValue *x = &f->values.v[v];
    *where = f;
    for (int guard = 0; guard < 8 && x->op == IR_GLOBAL && !x->qual; guard++) {
        const Ir *ir = r->ir;
        if (x->name >= ir->nnames || !ir->last_def[x->name])
            return x;
        const IrModuleDef *d = &ir->module_defs.v[ir->last_def[x->name] - 1];
        *where = &ir->funcs.v[0];
        x = &ir->funcs.v[0].values.v[d->value];
    }
    return x;
}

/* A string literal's text (simple literals: no prefix other than r/u). */
static const char *const_string(const Reader *r, const IrFunction *f, ValueId v)
{
    const IrFunction *w;
    const IrValue *x = constant_source(r, f, v, &w);
    if (x->op != IR_CONST || !x->node || r->S->nodes[x->node].kind != N_STRING)
        return NULL;
    const Token *t = &r->S->toks.v[r->S->nodes[x->node].first_tok];
    const char *s = r->S->src + t->start;
    uint32_t n = t->len, k = 0;
    while (k < n && s[k] != '"' && s[k] != '\'')
        k++;
    if (k + 2 > n)
        return NULL;
    uint32_t quote = (n - k >= 6 && s[k + 1] == s[k] && s[k + 2] == s[k]) ? 3 : 1;
    return arena_strndup(r->S->arena, s + k + quote, n - k - 2 * quote);
}

static bool const_int(const Reader *r, const IrFunction *f, ValueId v, int64_t *out)
{
    const IrFunction *w;
    const IrValue *x = constant_source(r, f, v, &w);
    if (x->op != IR_CONST || !x->node || r->S->nodes[x->node].kind != N_NUMBER)
        return false;
    const Token *t = &r->S->toks.v[r->S->nodes[x->node].first_tok];
    char buf[32];
    uint32_t k = 0;
    for (uint32_t i = 0; i < t->len && k + 1 < sizeof buf; i++)
        if (r->S->src[t->start + i] != '_')
            buf[k++] = r->S->src[t->start + i];
    buf[k] = 0;
    char *end;
    long long n = strtoll(buf, &end, 0);
    if (*end)
        return false;
    *out = n;
    return true;
}

static ValueId kwarg(const Reader *r, const IrValue *call, const char *name)
{
    for (uint32_t i = 1; call->kwnames && i < call->nargs; i++)
        if (call->kwnames[i] && qual_is(r, call->kwnames[i], name))
            return call->args[i];
    return 0;
}

static uint32_t dtype_bytes(const Reader *r, const IrFunction *f, ValueId v)
{
    const IrValue *x = &f->values.v[v];
    if (qual_is(r, x->qual, "torch.bfloat16") || qual_is(r, x->qual, "torch.float16") ||
        qual_is(r, x->qual, "torch.half") || qual_is(r, x->qual, "torch.bfloat"))
        return 2;
    if (qual_is(r, x->qual, "torch.float32") || qual_is(r, x->qual, "torch.float"))
        return 4;
    return 0;
}

static void assume(Reader *r, const char *fmt, const char *arg)
{
    const char *s = arena_printf(r->S->arena, fmt, arg);
    VEC_PUSH(r->S->arena, r->cfg->assumptions, s);
}

/* ---- the script's choices ------------------------------------------------------------- */

static void read_lora_targets(Reader *r, const IrFunction *f, ValueId list)
{
    const IrFunction *w;
    const IrValue *x = constant_source(r, f, list, &w);
    static const struct { const char *name; uint32_t bit; } mods[] = {
        {"q_proj", LORA_Q}, {"k_proj", LORA_K}, {"v_proj", LORA_V}, {"o_proj", LORA_O},
        {"gate_proj", LORA_GATE}, {"up_proj", LORA_UP}, {"down_proj", LORA_DOWN},
        {"c_attn", LORA_C_ATTN}, {"c_proj", LORA_C_PROJ}, {"c_fc", LORA_C_FC},
    };
    for (uint32_t i = 0; x->op == IR_BUILD && i < x->nargs; i++) {
        const char *s = const_string(r, w, x->args[i]);
        for (size_t k = 0; s && k < sizeof mods / sizeof mods[0]; k++)
            if (strcmp(s, mods[k].name) == 0)
                r->cfg->lora_targets |= mods[k].bit;
    }
}

static void read_call(Reader *r, const IrFunction *f, const IrValue *v)
{
    EstimateConfig *cfg = r->cfg;
    const IrValue *callee = &f->values.v[v->args[0]];
    uint32_t q = callee->qual;
    if (qual_starts(r, q, "transformers.") && qual_ends(r, q, ".from_pretrained") && v->nargs > 1) {
        cfg->model_name = const_string(r, f, v->args[1]);
        ValueId dt = kwarg(r, v, "torch_dtype");
        if (!dt)
            dt = kwarg(r, v, "dtype");
        if (dt && dtype_bytes(r, f, dt))
            cfg->weight_bytes = dtype_bytes(r, f, dt);
    } else if (qual_is(r, q, "torch.autocast") || qual_is(r, q, "torch.cuda.amp.autocast") ||
               qual_is(r, q, "torch.amp.autocast")) {
        ValueId dt = kwarg(r, v, "dtype");
        cfg->autocast_bytes = 2;
        (void)dt;
    } else if (qual_starts(r, q, "torch.optim.") && !qual_starts(r, q, "torch.optim.lr_scheduler")) {
        uint32_t len;
        const char *name = intern_str(&r->S->names, q, &len);
        cfg->optimizer_name = arena_strndup(r->S->arena, name + 12, len - 12);
        cfg->optimizer = qual_ends(r, q, ".AdamW") || qual_ends(r, q, ".Adam") ? OPT_ADAM
                         : qual_ends(r, q, ".SGD")                              ? OPT_SGD
                                                                                : OPT_OTHER;
        ValueId m = kwarg(r, v, "momentum");
        int64_t mv = 0;
        const IrFunction *w;
        cfg->momentum = m && !(const_int(r, f, m, &mv) && mv == 0) &&
                        constant_source(r, f, m, &w)->op == IR_CONST;
    } else if ((qual_is(r, q, "transformers.Trainer") || qual_is(r, q, "trl.SFTTrainer")) &&
               cfg->optimizer == OPT_NONE) {
        /* the Trainer builds its optimizer: AdamW unless TrainingArguments(optim=...) */
        cfg->optimizer = OPT_ADAM;
        cfg->optimizer_name = "AdamW (the Trainer's default)";
        assume(r, "%s", "the Trainer's optimizer is its default AdamW");
    } else if (qual_is(r, q, "peft.LoraConfig")) {
        int64_t rank;
        ValueId rv = kwarg(r, v, "r");
        if (rv && const_int(r, f, rv, &rank) && rank > 0)
            cfg->lora_r = (uint32_t)rank;
        ValueId t = kwarg(r, v, "target_modules");
        if (t)
            read_lora_targets(r, f, t);
    }
    if (callee->op == IR_ATTR) {
        uint32_t len;
        const char *m = intern_str(&r->S->names, callee->name, &len);
        if (len == 29 && memcmp(m, "gradient_checkpointing_enable", 29) == 0)
            cfg->grad_checkpointing = true;
        if ((len == 4 && memcmp(m, "half", 4) == 0) || (len == 8 && memcmp(m, "bfloat16", 8) == 0))
            if (f->values.v[callee->args[0]].roles & ROLE_MODEL)
                cfg->weight_bytes = 2;
    }
}

bool estimate_read(Syntax *s, const Ir *ir, EstimateConfig *cfg, const char **why)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->weight_bytes = 4;
    cfg->batch = cfg->seq = -1;
    Reader r = {s, ir, cfg};
    for (uint32_t fi = 0; fi < ir->funcs.n; fi++) {
        const IrFunction *f = &ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++)
            if (f->values.v[i].op == IR_CALL && f->values.v[i].nargs)
                read_call(&r, f, &f->values.v[i]);
    }
    if (!cfg->model_name) {
        *why = "no from_pretrained(\"NAME\") call with a literal or constant name; models "
               "defined in the file are not interpreted yet";
        return false;
    }
    cfg->arch = arch_find(cfg->model_name);
    if (!cfg->arch) {
        *why = arena_printf(s->arena, "model '%s' is not in the architecture snapshot "
                                      "(pfc archs lists it)", cfg->model_name);
        return false;
    }
    if (cfg->lora_r && !cfg->lora_targets)
        assume(&r, "%s", "LoRA target modules not found: assumed q_proj and v_proj");
    if (cfg->optimizer == OPT_NONE)
        assume(&r, "%s", "no optimizer found: no gradients or optimizer state counted");
    if (cfg->optimizer == OPT_OTHER)
        assume(&r, "optimizer %s: its state is not modelled", cfg->optimizer_name);
    return true;
}

/* ---- components -------------------------------------------------------------------- */

/* LoRA parameters: r x (in + out) for each targeted linear layer. */
static uint64_t lora_params(const EstimateConfig *cfg)
{
    const Arch *a = cfg->arch;
    uint64_t d = a->hidden, hd = arch_head_dim(a), q = (uint64_t)a->heads * hd,
             kv = (uint64_t)a->kv_heads * hd, ff = a->intermediate, r = cfg->lora_r;
    uint32_t t = cfg->lora_targets ? cfg->lora_targets : (LORA_Q | LORA_V);
    uint64_t per_layer = 0;
    if (t & LORA_Q) per_layer += r * (d + q);
    if (t & LORA_K) per_layer += r * (d + kv);
    if (t & LORA_V) per_layer += r * (d + kv);
    if (t & LORA_O) per_layer += r * (q + d);
    if (t & LORA_GATE) per_layer += r * (d + ff);
    if (t & LORA_UP) per_layer += r * (d + ff);
    if (t & LORA_DOWN) per_layer += r * (ff + d);
    if (t & LORA_C_ATTN) per_layer += r * (d + 3 * d);
    if (t & LORA_C_PROJ) per_layer += r * (d + d) + r * (ff + d);   /* attention and MLP */
    if (t & LORA_C_FC) per_layer += r * (d + ff);
    return per_layer * a->layers;
}

void estimate_components(const EstimateConfig *cfg, Estimate *out)
{
    memset(out, 0, sizeof *out);
    uint64_t base = arch_params(cfg->arch);
    uint64_t lora = cfg->lora_r ? lora_params(cfg) : 0;
    out->params_total = base + lora;
    out->params_trainable = lora ? lora : base;
    /* PEFT keeps adapters in fp32 whatever the base dtype */
    uint32_t train_bytes = lora ? 4 : cfg->weight_bytes;
    out->weights = base * cfg->weight_bytes + lora * 4;
    if (cfg->optimizer == OPT_NONE)
        return;
    out->gradients = out->params_trainable * train_bytes;
    uint64_t slots = cfg->optimizer == OPT_ADAM ? 2 : cfg->optimizer == OPT_SGD && cfg->momentum;
    out->optimizer_state = slots * out->params_trainable * train_bytes;
}
