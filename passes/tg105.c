/* TG105 trainable-fraction (note): the share of a PEFT LoRA model's
 * parameters that train, when pfc can count both: a built-in architecture
 * the estimator knows (estimator/arch.c) loaded by name, a LoraConfig with
 * a literal rank and literal target modules (or PEFT's defaults for the
 * family). Outside 0.01%..10% the setup is probably not what was meant: a
 * rank too large to be "low", or too few adapters to learn anything. */
#include "analysis.h"
#include "../estimator/arch.h"
#include "../estimator/hf_lora.h"
#include "../ir/params.h"
#include <string.h>

/* The text of a string literal without its prefix and quotes, or NULL. */
static const char *string_text(const RuleCtx *c, const IrFunction *f, ValueId x, uint32_t *len)
{
    const IrValue *v = &f->values.v[ir_resolve(f, x)];
    if (v->op != IR_CONST)
        return NULL;
    const Node *n = &c->S->nodes[v->node];
    if (n->end_tok != n->first_tok + 1 || c->S->toks.v[n->first_tok].kind != T_STRING)
        return NULL;
    const Token *t = &c->S->toks.v[n->first_tok];
    const char *s = c->S->src + t->start;
    uint32_t a = 0, b = t->len;
    while (a < b && s[a] != '"' && s[a] != '\'')
        a++;
    if (b - a < 2 || (a && s[0] != 'r' && s[0] != 'R'))
        return NULL;   /* f-strings, bytes */
    *len = b - a - 2;
    return s + a + 1;
}

static int64_t literal_int(const RuleCtx *c, const IrFunction *f, ValueId x)
{
    const IrValue *v = &f->values.v[ir_resolve(f, x)];
    if (v->op != IR_CONST || c->S->toks.v[c->S->nodes[v->node].first_tok].kind != T_NUMBER)
        return -1;
    const Token *t = &c->S->toks.v[c->S->nodes[v->node].first_tok];
    int64_t n = 0;
    for (uint32_t i = 0; i < t->len; i++) {
        char ch = c->S->src[t->start + i];
        if (ch < '0' || ch > '9' || n > 1000000)
            return -1;
        n = n * 10 + (ch - '0');
    }
    return n;
}

static ValueId kwarg(const RuleCtx *c, const IrValue *call, const char *kw)
{
    for (uint32_t i = 1; i < call->nargs; i++)
        if (ir_kwname(call, i) && intern_is(&c->S->names, ir_kwname(call, i), kw))
            return call->args[i];
    return 0;
}

static const struct { const char *name; uint32_t bit; } target_names[] = {
    {"q_proj", LORA_Q}, {"k_proj", LORA_K}, {"v_proj", LORA_V}, {"o_proj", LORA_O},
    {"gate_proj", LORA_GATE}, {"up_proj", LORA_UP}, {"down_proj", LORA_DOWN},
    {"c_attn", LORA_C_ATTN}, {"c_proj", LORA_C_PROJ}, {"c_fc", LORA_C_FC},
};

/* target_modules=[...] as LORA_* bits; 0 when a name is not one of these. */
static uint32_t targets_of(const RuleCtx *c, const IrFunction *f, ValueId list)
{
    const IrValue *v = &f->values.v[ir_resolve(f, list)];
    uint16_t kind = c->S->nodes[v->node].kind;
    if (v->op != IR_BUILD || (kind != N_LIST && kind != N_TUPLE && kind != N_SET) || !v->nargs)
        return 0;
    uint32_t bits = 0;
    for (uint32_t a = 0; a < v->nargs; a++) {
        uint32_t len, bit = 0;
        const char *s = string_text(c, f, v->args[a], &len);
        for (size_t k = 0; s && k < sizeof target_names / sizeof target_names[0]; k++)
            if (strlen(target_names[k].name) == len && memcmp(s, target_names[k].name, len) == 0)
                bit = target_names[k].bit;
        if (!bit)
            return 0;
        bits |= bit;
    }
    return bits;
}

/* LoRA's trainable parameters per layer of rank 1: in + out of each targeted
 * linear, as the family's transformers class shapes it; 0 when a target is
 * not a linear of the family. */
static uint64_t per_rank_layer(const Arch *a, uint32_t t)
{
    uint64_t d = a->hidden, hd = arch_head_dim(a), ff = a->intermediate;
    uint64_t q = a->heads * hd, kv = (a->kv_heads ? a->kv_heads : a->heads) * hd, n = 0;
    if (a->family == FAM_LLAMA) {
        if (t & ~(LORA_Q | LORA_K | LORA_V | LORA_O | LORA_GATE | LORA_UP | LORA_DOWN))
            return 0;
        n += t & LORA_Q ? d + q : 0;
        n += t & LORA_K ? d + kv : 0;
        n += t & LORA_V ? d + kv : 0;
        n += t & LORA_O ? q + d : 0;
        n += t & LORA_GATE ? d + ff : 0;
        n += t & LORA_UP ? d + ff : 0;
        n += t & LORA_DOWN ? ff + d : 0;
    } else if (a->family == FAM_GPT2) {
        if (t & ~(LORA_C_ATTN | LORA_C_PROJ | LORA_C_FC))
            return 0;
        n += t & LORA_C_ATTN ? d + 3 * d : 0;
        n += t & LORA_C_PROJ ? (d + d) + (ff + d) : 0;   /* attn.c_proj and mlp.c_proj */
        n += t & LORA_C_FC ? d + ff : 0;
    }
    return n;
}

/* The architecture of a causal LM loaded by literal name. */
static const Arch *loaded_arch(const RuleCtx *c, uint32_t site)
{
    const IrFunction *f = &c->ir->funcs.v[ir_site_function(site)];
    const IrValue *v = &f->values.v[ir_site_value(site)];
    const IrValue *callee = v->op == IR_CALL && v->nargs ? &f->values.v[v->args[0]] : NULL;
    if (!callee || !callee->qual ||
        !intern_is(&c->S->names, callee->qual, "transformers.AutoModelForCausalLM.from_pretrained"))
        return NULL;   /* arch_params counts the causal-LM class */
    uint32_t len;
    const char *s = v->nargs >= 2 ? string_text(c, f, v->args[1], &len) : NULL;
    if (!s || len >= 128)
        return NULL;
    char name[128];
    memcpy(name, s, len);
    name[len] = 0;
    return arch_find(name);
}

/* Only options that leave the count alone: layers_to_transform,
 * modules_to_save, rank_pattern, a positional argument... change it. */
static bool plain_config(const RuleCtx *c, const IrValue *lc)
{
    static const char *const plain[] = {"r", "target_modules", "lora_alpha", "lora_dropout",
                                        "task_type", "bias", "inference_mode", NULL};
    for (uint32_t i = 1; i < lc->nargs; i++) {
        uint32_t kw = ir_kwname(lc, i);
        bool ok = false;
        for (const char *const *p = plain; kw && *p && !ok; p++)
            ok = intern_is(&c->S->names, kw, *p);
        if (!ok)
            return false;
    }
    return true;
}

static void check_wrap(RuleCtx *c, const ModelEvent *e)
{
    const IrFunction *f = &c->ir->funcs.v[e->fn];
    const IrValue *wrap = &f->values.v[e->at];
    if (wrap->op != IR_CALL || !intern_is(&c->S->names, f->values.v[wrap->args[0]].qual, "peft.get_peft_model"))
        return;
    ValueId cfg = wrap->nargs >= 3 && !ir_kwname(wrap, 2) ? wrap->args[2]
                                                                           : kwarg(c, wrap, "peft_config");
    const IrValue *lc = cfg ? &f->values.v[ir_resolve(f, cfg)] : NULL;
    if (!lc || lc->op != IR_CALL || !intern_is(&c->S->names, f->values.v[lc->args[0]].qual, "peft.LoraConfig"))
        return;
    const Arch *a = loaded_arch(c, e->site);
    if (!a || (a->family != FAM_LLAMA && a->family != FAM_GPT2))
        return;
    ValueId rv = kwarg(c, lc, "r"), tv = kwarg(c, lc, "target_modules");
    int64_t r = rv ? literal_int(c, f, rv) : 8;   /* PEFT's default rank */
    uint32_t t = tv ? targets_of(c, f, tv) : a->family == FAM_GPT2 ? LORA_C_ATTN : LORA_Q | LORA_V;
    if (r <= 0 || !t || !plain_config(c, lc))
        return;
    uint64_t lora = (uint64_t)r * a->layers * per_rank_layer(a, t), base = arch_params(a);
    if (!lora || !base)
        return;
    double frac = (double)lora / (double)(base + lora);
    if (frac >= 1e-4 && frac <= 0.1)
        return;
    rule_report(c, lc->node, SEV_NOTE,
                arena_printf(c->A,
                             "LoRA trains %.4g%% of the model's parameters (%llu of %llu): %s",
                             frac * 100, (unsigned long long)lora, (unsigned long long)(base + lora),
                             frac > 0.1 ? "a rank this large is not low-rank any more"
                                        : "too few adapter weights to learn much"),
                frac > 0.1 ? "use a smaller r (8-64 is usual), or fine-tune the model in full"
                           : "use a larger r or target more modules (all the attention and MLP "
                             "projections)");
}

void rule_tg105(RuleCtx *c)
{
    const ParamFacts *P = c->an->params;
    for (uint32_t k = 0; k < P->events.n; k++) {
        const ModelEvent *e = &P->events.v[k];
        /* own events only: a lifted one's value is the helper's call */
        if (e->kind == ME_ADAPTER && e->site && e->value == ADAPTER_WRAPPED &&
            e->node == c->ir->funcs.v[e->fn].values.v[e->at].node)
            check_wrap(c, e);
    }
}
