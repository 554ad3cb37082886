/* diffusers as interpreter hooks (see library.h): UNet2DModel and
 * UNet2DConditionModel built from keyword arguments (or **config, or
 * from_config(dict)) or loaded with from_pretrained(NAME, subfolder="unet")
 * for the checkpoints diffusers.c knows; calling one records its forward
 * through diffusers.c. A pipeline's other components (the VAE, the text
 * encoders) are opaque: an assumption line says they are not counted, and
 * the UNet's inputs they would have made are taken from --batch and the
 * configuration, with a line saying so. */
#include "checked.h"
#include "diffusers.h"
#include "interp_int.h"
#include "library.h"
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* ---- which call it is ---------------------------------------------------------------------- */

static bool ends_with(const char *s, size_t n, const char *suffix)
{
    size_t m = strlen(suffix);
    return n >= m && strncmp(s + n - m, suffix, m) == 0;
}

/* The class a qualified call names, without a trailing loader
 * (.from_pretrained, .from_config): its length in *n; *loader gets the
 * loader's name or NULL. */
static const char *class_of(const char *qual, size_t *n, const char **loader)
{
    size_t len = strlen(qual);
    *loader = NULL;
    static const char *const loaders[] = {"from_pretrained", "from_config", "from_single_file"};
    for (size_t i = 0; i < 3; i++) {
        size_t m = strlen(loaders[i]);
        if (len > m + 1 && qual[len - m - 1] == '.' && strcmp(qual + len - m, loaders[i]) == 0) {
            *loader = loaders[i];
            len -= m + 1;
            break;
        }
    }
    const char *dot = memchr(qual, '.', len) ? qual + len : qual;
    while (dot > qual && dot[-1] != '.')
        dot--;
    *n = len - (size_t)(dot - qual);
    return dot;
}

static bool is_class(const char *cls, size_t n, const char *name)
{
    return strlen(name) == n && strncmp(cls, name, n) == 0;
}

/* ---- reading a configuration ----------------------------------------------------------------- */

typedef struct Reader {
    Interp *in;
    UNetConfig *c;
    const char *cls;       /* "UNet2DModel" / "UNet2DConditionModel", for messages */
    const char *error;
    /* read in a second pass: they depend on the number of blocks */
    AVal *per_block[5];    /* PB_* */
    int ndown, nup;        /* the block types given (0: the defaults, 4 blocks) */
    int64_t attn_groups;   /* attn_norm_num_groups, -1: not given */
} Reader;

enum { PB_LAYERS, PB_HEAD_DIM, PB_DEPTH, PB_CROSS, PB_ONLY_CROSS, PB_N };

static bool fail(Reader *r, const char *why)
{
    if (!r->error)
        r->error = arena_printf(r->in->a, "%s: %s", r->cls, why);
    return false;
}

static bool unreadable(Reader *r, const char *key, const AVal *v)
{
    if (v->k == AV_NONE)
        return fail(r, arena_printf(r->in->a, "%s=None is not modelled by pfc", key));
    if (v->k == AV_UNKNOWN && v->origin)
        return fail(r, missing_config(r->in, key, v));
    return fail(r, arena_printf(r->in->a, "%s is not a value pfc can read", key));
}

static bool read_int(Reader *r, const char *key, const AVal *v, int64_t *out)
{
    return av_int_of(v, out) || unreadable(r, key, v);
}

static bool is_none(const AVal *v) { return v->k == AV_NONE; }

static bool truth(Reader *r, const char *key, const AVal *v, bool *out)
{
    bool known;
    *out = av_truth(v, &known);
    return known || unreadable(r, key, v);
}

static bool str_is(const AVal *v, const char *s) { return v->k == AV_STR && strcmp(v->s, s) == 0; }

/* A block type's kind, accepting diffusers' "UNetRes" prefix spelling. */
static bool block_kind(const char *type, bool down, uint8_t *out)
{
    if (strncmp(type, "UNetRes", 7) == 0)
        type += 7;
    const char *plain = down ? "DownBlock2D" : "UpBlock2D";
    const char *attn = down ? "AttnDownBlock2D" : "AttnUpBlock2D";
    const char *cross = down ? "CrossAttnDownBlock2D" : "CrossAttnUpBlock2D";
    if (strcmp(type, plain) == 0)
        *out = UB_PLAIN;
    else if (strcmp(type, attn) == 0)
        *out = UB_ATTN;
    else if (strcmp(type, cross) == 0)
        *out = UB_CROSS;
    else
        return false;
    return true;
}

static bool read_blocks(Reader *r, const char *key, const AVal *v, bool down, uint8_t *out, int *n)
{
    if (v->k != AV_SEQ)
        return unreadable(r, key, v);
    if (v->n < 1 || v->n > UNET_MAX_BLOCKS)
        return fail(r, arena_printf(r->in->a, "%s has %u blocks: pfc models 1 to %d", key, v->n, UNET_MAX_BLOCKS));
    for (uint32_t i = 0; i < v->n; i++) {
        const AVal *t = v->items[i];
        if (t->k != AV_STR)
            return unreadable(r, key, t);
        if (!block_kind(t->s, down, &out[i]))
            return fail(r, arena_printf(r->in->a, "block type '%s' is not one pfc models (%s)", t->s,
                                        down ? "DownBlock2D, AttnDownBlock2D, CrossAttnDownBlock2D"
                                             : "UpBlock2D, AttnUpBlock2D, CrossAttnUpBlock2D"));
    }
    *n = (int)v->n;
    return true;
}

static bool read_channels(Reader *r, const AVal *v)
{
    if (v->k != AV_SEQ || v->n < 1 || v->n > UNET_MAX_BLOCKS)
        return v->k == AV_SEQ ? fail(r, "block_out_channels has no blocks or more than 8")
                              : unreadable(r, "block_out_channels", v);
    for (uint32_t i = 0; i < v->n; i++)
        if (!read_int(r, "block_out_channels", v->items[i], &r->c->channels[i]))
            return false;
    r->c->nblocks = (int)v->n;
    return true;
}

static bool read_mid(Reader *r, const AVal *v)
{
    UNetConfig *c = r->c;
    if (is_none(v))
        c->mid = UM_NONE;
    else if (str_is(v, "UNetMidBlock2D"))   /* UNet2DConditionModel's get_mid_block: num_layers=0 */
        c->mid = c->conditional ? UM_RESNET : (c->mid == UM_PAIR ? UM_PAIR : UM_ATTN);
    else if (c->conditional && str_is(v, "UNetMidBlock2DCrossAttn"))
        c->mid = UM_CROSS;
    else
        return v->k == AV_STR ? fail(r, arena_printf(r->in->a, "mid_block_type '%s' is not one pfc models", v->s))
                              : unreadable(r, "mid_block_type", v);
    return true;
}

/* Keys that change nothing pfc records (the sinusoid's layout, epsilons,
 * output scales, the attention upcast SDPA ignores). */
static bool ignored_key(const char *k)
{
    static const char *const keys[] = {
        "center_input_sample", "flip_sin_to_cos", "freq_shift", "mid_block_scale_factor", "norm_eps",
        "upcast_attention", "resnet_out_scale_factor", "addition_embed_type_num_heads", "num_train_timesteps",
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(k, keys[i]) == 0)
            return true;
    return k[0] == '_';   /* config.json's _class_name, _diffusers_version, _name_or_path */
}

/* Keys whose only value pfc models is their default: None, False (or
 * None), or one string. */
typedef enum Only { ONLY_NONE, ONLY_FALSE, ONLY_STRING } Only;
static const struct DefaultOnly {
    const char *key;
    Only only;
    const char *value, *alias;   /* ONLY_STRING: the value, and another spelling of it */
} defaults_only[] = {
    {"class_embed_type", ONLY_NONE, NULL, NULL}, {"encoder_hid_dim", ONLY_NONE, NULL, NULL},
    {"encoder_hid_dim_type", ONLY_NONE, NULL, NULL}, {"num_attention_heads", ONLY_NONE, NULL, NULL},
    {"reverse_transformer_layers_per_block", ONLY_NONE, NULL, NULL},
    {"time_embedding_act_fn", ONLY_NONE, NULL, NULL}, {"timestep_post_act", ONLY_NONE, NULL, NULL},
    {"time_cond_proj_dim", ONLY_NONE, NULL, NULL}, {"cross_attention_norm", ONLY_NONE, NULL, NULL},
    {"mid_block_only_cross_attention", ONLY_FALSE, NULL, NULL}, {"dual_cross_attention", ONLY_FALSE, NULL, NULL},
    {"resnet_skip_time_act", ONLY_FALSE, NULL, NULL}, {"class_embeddings_concat", ONLY_FALSE, NULL, NULL},
    {"time_embedding_type", ONLY_STRING, "positional", NULL}, {"downsample_type", ONLY_STRING, "conv", NULL},
    {"upsample_type", ONLY_STRING, "conv", NULL}, {"attention_type", ONLY_STRING, "default", NULL},
    {"act_fn", ONLY_STRING, "silu", "swish"},
};

static bool at_default(const struct DefaultOnly *d, const AVal *v)
{
    switch (d->only) {
    case ONLY_NONE: return is_none(v);
    case ONLY_FALSE: return is_none(v) || (v->k == AV_BOOL && !v->i);
    case ONLY_STRING: return str_is(v, d->value) || (d->alias && str_is(v, d->alias));
    }
    return false;
}

static bool default_only_key(Reader *r, const char *k, const AVal *v, bool *handled)
{
    for (size_t i = 0; i < sizeof defaults_only / sizeof defaults_only[0]; i++) {
        const struct DefaultOnly *d = &defaults_only[i];
        if (strcmp(k, d->key) != 0)
            continue;
        *handled = true;
        if (at_default(d, v))
            return true;
        if (d->only == ONLY_STRING)
            return fail(r, arena_printf(r->in->a, "%s %s%s%s: pfc models '%s' only", k, v->k == AV_STR ? "'" : "",
                                        v->k == AV_STR ? v->s : "that pfc cannot read", v->k == AV_STR ? "'" : "",
                                        d->value));
        return fail(r, arena_printf(r->in->a, "%s other than %s is not modelled by pfc", k,
                                    d->only == ONLY_NONE ? "None" : "False"));
    }
    *handled = false;
    return true;
}

static bool read_scalar_key(Reader *r, const char *k, AVal *v, bool *handled)
{
    UNetConfig *c = r->c;
    static const struct { const char *key; size_t at; bool none_ok; } ints[] = {
        {"in_channels", offsetof(UNetConfig, in_channels), false},
        {"out_channels", offsetof(UNetConfig, out_channels), false},
        {"norm_num_groups", offsetof(UNetConfig, groups), false},
        {"addition_time_embed_dim", offsetof(UNetConfig, addition_time_embed_dim), true},
        {"projection_class_embeddings_input_dim", offsetof(UNetConfig, addition_input_dim), true},
    };
    *handled = true;
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (strcmp(k, ints[i].key) == 0)
            return (ints[i].none_ok && is_none(v)) || read_int(r, k, v, (int64_t *)((char *)c + ints[i].at));
    int64_t x;
    bool b;
    if (strcmp(k, "sample_size") == 0) {   /* an int, or (h, w): only a square one is a default side */
        if (av_int_of(v, &x) || (v->k == AV_SEQ && v->n == 2 && av_int_of(v->items[0], &x) &&
                                 av_int_of(v->items[1], &c->sample_size) && c->sample_size == x))
            c->sample_size = x;
        else
            c->sample_size = 0;
        return true;
    }
    if (strcmp(k, "time_embedding_dim") == 0 || strcmp(k, "num_class_embeds") == 0) {
        int64_t *at = k[0] == 't' ? &c->time_embed_dim : &c->num_class_embeds;
        *at = 0;   /* None: 4 x block_out_channels[0]; no class embedding */
        return is_none(v) || read_int(r, k, v, at);
    }
    if (strcmp(k, "conv_in_kernel") == 0 || strcmp(k, "conv_out_kernel") == 0 ||
        strcmp(k, "downsample_padding") == 0) {
        if (!read_int(r, k, v, &x))
            return false;
        if (x < 0 || x > 15)
            return fail(r, arena_printf(r->in->a, "%s %lld is not 0 to 15", k, (long long)x));
        int *at = strcmp(k, "conv_in_kernel") == 0 ? &c->conv_in_kernel
                  : strcmp(k, "conv_out_kernel") == 0 ? &c->conv_out_kernel : &c->downsample_padding;
        *at = (int)x;
        return true;
    }
    if (strcmp(k, "attn_norm_num_groups") == 0) {
        r->attn_groups = -1;   /* None: the ResNets' groups, or none under "scale_shift" */
        return is_none(v) || read_int(r, k, v, &r->attn_groups);
    }
    if (strcmp(k, "use_linear_projection") == 0) {
        if (!truth(r, k, v, &b))
            return false;
        c->linear_projection = b;
        return true;
    }
    if (strcmp(k, "add_attention") == 0) {   /* UNet2DModel's mid block without attention: two ResNets */
        if (!truth(r, k, v, &b))
            return false;
        if (!b && c->mid == UM_ATTN)
            c->mid = UM_PAIR;
        return true;
    }
    if (strcmp(k, "resnet_time_scale_shift") == 0) {
        c->scale_shift = str_is(v, "scale_shift");
        return c->scale_shift || str_is(v, "default") ||
               fail(r, "resnet_time_scale_shift other than 'default' or 'scale_shift' is not modelled by pfc");
    }
    if (strcmp(k, "addition_embed_type") == 0) {
        if (is_none(v) || str_is(v, "text_time"))
            return true;
        return fail(r, "addition_embed_type other than None or 'text_time' (SDXL) is not modelled by pfc");
    }
    if (strcmp(k, "dropout") == 0)
        return av_num(v, &c->dropout) || unreadable(r, k, v);
    *handled = false;
    return true;
}

/* The per-block settings (UNet2DModel takes the first two only). */
static int per_block_slot(const char *k, bool conditional)
{
    static const char *const keys[PB_N] = {"layers_per_block", "attention_head_dim",
                                           "transformer_layers_per_block", "cross_attention_dim",
                                           "only_cross_attention"};
    for (int i = 0; i < (conditional ? PB_N : PB_DEPTH); i++)
        if (strcmp(k, keys[i]) == 0)
            return i;
    return -1;
}

static bool read_key(Reader *r, const char *k, AVal *v)
{
    UNetConfig *c = r->c;
    if (ignored_key(k))
        return true;
    bool handled;
    if (!default_only_key(r, k, v, &handled) || handled)
        return !r->error;
    if (!read_scalar_key(r, k, v, &handled) || handled)
        return !r->error;
    int slot = per_block_slot(k, c->conditional);
    if (slot >= 0) {
        r->per_block[slot] = v;
        return true;
    }
    if (strcmp(k, "block_out_channels") == 0)
        return read_channels(r, v);
    if (strcmp(k, "down_block_types") == 0)
        return read_blocks(r, k, v, true, c->down, &r->ndown);
    if (strcmp(k, "up_block_types") == 0)
        return read_blocks(r, k, v, false, c->up, &r->nup);
    if (strcmp(k, "mid_block_type") == 0)
        return read_mid(r, v);
    return fail(r, arena_printf(r->in->a, "the argument %s is not one pfc models", k));
}

/* An int for every block, or a tuple/list of one per block. */
static bool read_per_block(Reader *r, const char *key, const AVal *v, int64_t *out, bool none_is_zero)
{
    int n = r->c->nblocks;
    if (none_is_zero && is_none(v)) {
        for (int i = 0; i < n; i++)
            out[i] = 0;
        return true;
    }
    int64_t x;
    if (av_int_of(v, &x)) {
        for (int i = 0; i < n; i++)
            out[i] = x;
        return true;
    }
    if (v->k != AV_SEQ)
        return unreadable(r, key, v);
    if ((int)v->n != n)
        return fail(r, arena_printf(r->in->a, "%s has %u entries for %d blocks", key, v->n, n));
    for (int i = 0; i < n; i++)
        if (v->items[i]->k == AV_SEQ)
            return fail(r, arena_printf(r->in->a, "%s with a tuple per block (an asymmetric UNet) is not modelled "
                                                  "by pfc", key));
        else if (!read_int(r, key, v->items[i], &out[i]))
            return false;
    return true;
}

/* The settings that depend on the number of blocks, once it is known. */
static bool read_block_settings(Reader *r)
{
    UNetConfig *c = r->c;
    AVal **pb = r->per_block;
    int64_t nd;
    int ndown = r->ndown ? r->ndown : 4, nup = r->nup ? r->nup : 4;   /* the default types: four blocks */
    if (ndown != c->nblocks || nup != c->nblocks)
        return fail(r, arena_printf(r->in->a, "down_block_types (%d), up_block_types (%d) and block_out_channels "
                                              "(%d) must have as many entries (diffusers raises otherwise)",
                                    ndown, nup, c->nblocks));
    if (pb[PB_LAYERS] && !c->conditional && !av_int_of(pb[PB_LAYERS], &nd))
        return unreadable(r, "layers_per_block", pb[PB_LAYERS]);
    if (pb[PB_LAYERS] && !read_per_block(r, "layers_per_block", pb[PB_LAYERS], c->layers, false))
        return false;
    if (pb[PB_DEPTH] && !read_per_block(r, "transformer_layers_per_block", pb[PB_DEPTH], c->depth, false))
        return false;
    if (pb[PB_CROSS] && !read_per_block(r, "cross_attention_dim", pb[PB_CROSS], c->cross_dim, false))
        return false;
    if (pb[PB_HEAD_DIM]) {
        if (c->conditional && is_none(pb[PB_HEAD_DIM]))
            return fail(r, "attention_head_dim=None is not modelled by pfc");
        if (!c->conditional && !is_none(pb[PB_HEAD_DIM]) && !av_int_of(pb[PB_HEAD_DIM], &nd))
            return unreadable(r, "attention_head_dim", pb[PB_HEAD_DIM]);
        if (!read_per_block(r, "attention_head_dim", pb[PB_HEAD_DIM], c->head_dim, true))
            return false;
    }
    if (pb[PB_ONLY_CROSS]) {
        bool b = true, known = pb[PB_ONLY_CROSS]->k == AV_BOOL;
        if (known)
            b = pb[PB_ONLY_CROSS]->i;
        if (!known || b)
            return fail(r, "only_cross_attention other than False is not modelled by pfc");
    }
    for (int i = 0; i < c->nblocks; i++)   /* num_attention_heads = num_attention_heads or attention_head_dim */
        c->heads[i] = c->head_dim[i];
    c->mid_head_dim = c->head_dim[0];
    c->mid_attn_groups = r->attn_groups >= 0 ? r->attn_groups : c->scale_shift ? 0 : c->groups;
    return true;
}

/* Reads the constructor's keyword arguments (a config dict's items) into c:
 * NULL, or why not. */
static const char *read_config(Interp *in, const char *cls, bool conditional, AVal **vals, const char **keys,
                               uint32_t n, UNetConfig *c)
{
    Reader r;
    memset(&r, 0, sizeof r);
    r.in = in;
    r.c = c;
    r.cls = cls;
    r.attn_groups = -1;
    diffusers_defaults(c, conditional);
    for (uint32_t i = 0; i < n && !r.error; i++) {
        if (!keys[i]) {
            fail(&r, "positional arguments are not read by pfc: give the configuration by keyword");
            break;
        }
        read_key(&r, keys[i], vals[i]);
    }
    if (!r.error && c->addition_time_embed_dim && !c->addition_input_dim)
        fail(&r, "addition_embed_type 'text_time' needs projection_class_embeddings_input_dim");
    if (!r.error)
        read_block_settings(&r);
    if (!r.error) {
        const char *why = diffusers_refusal(in->a, c, 0, 0);
        if (why)
            fail(&r, why);
    }
    return r.error;
}

/* ---- the hooks -------------------------------------------------------------------------------- */

static const char *subfolder_of(AVal **args, const char **kw, uint32_t n)
{
    AVal *s = library_kwarg(args, kw, n, "subfolder", -1);
    return s && s->k == AV_STR ? s->s : NULL;
}

/* A UNet known by name: its config, or lc->error. */
static bool pretrained_unet(LibraryCtx *lc, Interp *in, const char *cls, bool conditional, AVal **args,
                            const char **kw, uint32_t n, UNetConfig *c)
{
    const char *name = library_model_name(lc, in, args, kw, n);
    if (!name)
        return false;
    if (!diffusers_known(name, c)) {
        lc->error = arena_printf(in->a, "%s '%s' is not a UNet pfc knows (pfc archs lists them); build it from "
                                        "its config: %s(**config)", cls, name, cls);
        return false;
    }
    const char *sub = subfolder_of(args, kw, n);
    if (diffusers_in_subfolder(name) && (!sub || strcmp(sub, "unet") != 0)) {
        lc->error = arena_printf(in->a, "%s.from_pretrained('%s') needs subfolder=\"unet\": the repository "
                                        "holds a pipeline", cls, name);
        return false;
    }
    if (c->conditional != conditional) {
        lc->error = arena_printf(in->a, "'%s' holds a %s, not a %s", name,
                                 c->conditional ? "UNet2DConditionModel" : "UNet2DModel", cls);
        return false;
    }
    lc->model_name = name;
    return true;
}

/* from_config(config) with a dict pfc can read */
static const char *from_config(Interp *in, const char *cls, bool conditional, AVal **args, const char **kw,
                               uint32_t n, UNetConfig *c)
{
    AVal *d = library_kwarg(args, kw, n, "config", 0);
    if (!d || d->k != AV_DICT)
        return arena_printf(in->a, "%s.from_config's config is not a dict pfc can read", cls);
    return read_config(in, cls, conditional, d->items, d->keys, d->n, c);
}

static bool unet_model(LibraryCtx *lc, Interp *in, const char *cls, bool conditional, const char *loader,
                       AVal **args, const char **kw, uint32_t n, Obj *out)
{
    UNetConfig *c = arena_zalloc(in->a, sizeof *c);
    const char *why = NULL;
    if (loader && strcmp(loader, "from_pretrained") == 0) {
        if (!pretrained_unet(lc, in, cls, conditional, args, kw, n, c))
            return false;
        out->a = 1;   /* from_pretrained leaves the model in eval() */
    } else if (loader && strcmp(loader, "from_config") == 0) {
        why = from_config(in, cls, conditional, args, kw, n, c);
        lc->model_name = cls;
    } else if (loader) {
        why = arena_printf(in->a, "%s.%s is not read by pfc", cls, loader);
    } else {
        why = read_config(in, cls, conditional, args, kw, n, c);
        lc->model_name = cls;
    }
    if (why) {
        lc->error = why;
        return false;
    }
    out->nn = NN_DIFFUSERS;
    out->arch = c;
    return true;
}

/* A part of a pipeline pfc does not model (a VAE, a text encoder): an
 * opaque object, and a line saying what is not counted. Tokenizers and
 * processors hold no GPU memory and get no line. */
static bool component(Interp *in, const char *qual, const char *cls, size_t clen, const char *sub, Obj *out)
{
    out->nn = NN_OPAQUE;
    out->a = OPAQUE_COMPONENT;
    static const char *const weightless[] = {"Tokenizer", "Processor", "FeatureExtractor"};
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(clen < sizeof name ? clen : sizeof name - 1), cls);
    for (size_t i = 0; i < 3; i++)
        if (strstr(name, weightless[i]))
            return true;
    interp_note(in, 0, arena_printf(in->a, "%s%s%s%s is a part of a diffusion pipeline pfc does not model: its "
                                           "weights and activations are not counted (only the UNet is estimated)",
                                    qual, sub ? " (subfolder '" : "", sub ? sub : "", sub ? "')" : ""));
    return true;
}

/* A pipeline: an opaque object whose `unet` is the UNet it loads. */
static bool pipeline(LibraryCtx *lc, Interp *in, const char *qual, AVal **args, const char **kw, uint32_t n,
                     Obj *out)
{
    const char *name = library_model_name(lc, in, args, kw, n);
    UNetConfig *c = arena_zalloc(in->a, sizeof *c);
    if (!name)
        return false;
    if (!diffusers_known(name, c)) {
        lc->error = arena_printf(in->a, "%s('%s'): not a pipeline whose UNet pfc knows", qual, name);
        return false;
    }
    AVal *unet = av_obj(in, NN_DIFFUSERS);
    unet->obj->arch = c;
    unet->obj->a = 1;
    unet->obj->is_module = true;
    lc->model_name = name;
    out->nn = NN_OPAQUE;
    out->a = OPAQUE_COMPONENT;
    obj_set(in, out, "unet", unet);
    interp_note(in, 0, arena_printf(in->a, "%s('%s'): only its UNet is modelled; its VAE and text encoder(s) are "
                                           "not counted", qual, name));
    return true;
}

/* The subfolders of a diffusers pipeline repository that hold transformers
 * classes (model_index.json's components). */
static bool pipeline_part(const char *sub)
{
    static const char *const parts[] = {"text_encoder", "text_encoder_2", "text_encoder_3", "tokenizer",
                                        "tokenizer_2", "tokenizer_3", "image_encoder", "feature_extractor",
                                        "safety_checker"};
    for (size_t i = 0; sub && i < sizeof parts / sizeof parts[0]; i++)
        if (strcmp(sub, parts[i]) == 0)
            return true;
    return false;
}

int library_diffusers_model(LibraryCtx *lc, Interp *in, const char *qual, AVal **args, const char **kw,
                            uint32_t n, Obj *out)
{
    bool diffusers = strncmp(qual, "diffusers.", 10) == 0, transformers = strncmp(qual, "transformers.", 13) == 0;
    if (!diffusers && !transformers)
        return 0;
    size_t clen;
    const char *loader;
    const char *cls = class_of(qual, &clen, &loader);
    bool plain = is_class(cls, clen, "UNet2DModel"), conditional = is_class(cls, clen, "UNet2DConditionModel");
    if (diffusers && (plain || conditional))
        return unet_model(lc, in, plain ? "UNet2DModel" : "UNet2DConditionModel", conditional, loader, args, kw, n,
                          out) ? 1 : -1;
    if (!loader || strcmp(loader, "from_pretrained") != 0 || ends_with(cls, clen, "Scheduler"))
        return 0;
    if (diffusers && ends_with(cls, clen, "Pipeline"))
        return pipeline(lc, in, qual, args, kw, n, out) ? 1 : -1;
    const char *sub = subfolder_of(args, kw, n);
    if (sub && strcmp(sub, "unet") == 0 && transformers) {
        lc->error = arena_printf(in->a, "%s with subfolder 'unet': load a UNet with diffusers' "
                                        "UNet2DConditionModel", qual);
        return -1;
    }
    if (diffusers || pipeline_part(sub))   /* AutoencoderKL, a text encoder from a pipeline's subfolder */
        return component(in, qual, cls, clen, sub, out) ? 1 : -1;
    return 0;   /* a transformers checkpoint in a subfolder of its own is the transformers model */
}

/* ---- calling the UNet -------------------------------------------------------------------------- */

static TId tensor_of(Interp *in, AVal *v, int nd)
{
    return v && v->k == AV_TENSOR && v->nd == nd ? av_gpu(in, v) : 0;
}

/* The sample (batch, in_channels, h, w): the script's, else --batch images
 * of the configuration's sample_size; false with lc->error. */
static bool read_sample(LibraryCtx *lc, Interp *in, const UNetConfig *c, AVal *v, UNetInputs *x)
{
    x->sample = tensor_of(in, v, 4);
    if (x->sample) {
        const TTensor *t = &in->tr->t.v[x->sample];
        if (t->dim[1] != c->in_channels) {
            lc->error = arena_printf(in->a, "the UNet's sample has %lld channels, its in_channels is %lld",
                                     (long long)t->dim[1], (long long)c->in_channels);
            return false;
        }
        x->batch = t->dim[0];
        x->height = t->dim[2];
        x->width = t->dim[3];
        return true;
    }
    if (!lc->cfg->batch || !c->sample_size) {
        lc->error = c->sample_size ? "the UNet's sample shape could not be read from the script (from a VAE pfc "
                                     "does not model?): --batch N gives it"
                                   : "the UNet's sample shape could not be read from the script, and its config "
                                     "has no sample_size";
        return false;
    }
    x->batch = lc->cfg->batch;
    x->height = x->width = c->sample_size;
    interp_note(in, 0, arena_printf(in->a, "the UNet's sample could not be read: --batch x %lld x %lld x %lld (its "
                                           "in_channels and sample_size) assumed", (long long)c->in_channels,
                                    (long long)c->sample_size, (long long)c->sample_size));
    return true;
}

static bool read_encoder(LibraryCtx *lc, Interp *in, const UNetConfig *c, AVal *v, UNetInputs *x)
{
    int64_t want = diffusers_cross_dim(c);
    if (!want)
        return true;
    x->encoder = tensor_of(in, v, 3);
    if (x->encoder) {
        const TTensor *t = &in->tr->t.v[x->encoder];
        if (t->dim[2] != want) {
            lc->error = arena_printf(in->a, "encoder_hidden_states has %lld features, the UNet's "
                                            "cross_attention_dim is %lld", (long long)t->dim[2], (long long)want);
            return false;
        }
        return true;
    }
    x->text_len = 77;
    interp_note(in, 0, arena_printf(in->a, "encoder_hidden_states could not be read (a text encoder pfc does not "
                                           "model?): batch x 77 x %lld assumed (CLIP's 77 tokens)", (long long)want));
    return true;
}

/* SDXL's added_cond_kwargs: text_embeds (batch, E) and time_ids (batch, 6). */
static void read_added(Interp *in, const UNetConfig *c, AVal *d, UNetInputs *x)
{
    if (!c->addition_time_embed_dim)
        return;
    for (uint32_t i = 0; d && d->k == AV_DICT && i < d->n; i++)
        if (strcmp(d->keys[i], "text_embeds") == 0)
            x->text_embeds = tensor_of(in, d->items[i], 2);
    int64_t want = c->addition_input_dim - 6 * c->addition_time_embed_dim;
    if (x->text_embeds && in->tr->t.v[x->text_embeds].dim[1] != want)
        x->text_embeds = 0;
    if (!x->text_embeds)
        interp_note(in, 0, arena_printf(in->a, "added_cond_kwargs' text_embeds could not be read: batch x %lld "
                                               "assumed", (long long)want));
}

static bool unsupported_inputs(LibraryCtx *lc, Interp *in, AVal **args, const char **kw, uint32_t n)
{
    static const char *const extra[] = {"down_block_additional_residuals", "mid_block_additional_residual",
                                        "down_intrablock_additional_residuals", "timestep_cond"};
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++) {
        AVal *v = library_kwarg(args, kw, n, extra[i], -1);
        if (v && v->k != AV_NONE) {
            lc->error = arena_printf(in->a, "the UNet's %s (a ControlNet's or an adapter's) is not modelled by pfc",
                                     extra[i]);
            return true;
        }
    }
    return false;
}

/* The forward's result: a UNet2DOutput with .sample, or (sample,) with
 * return_dict=False. */
static AVal *unet_output(Interp *in, AVal **args, const char **kw, uint32_t n, TId sample)
{
    AVal *rd = library_kwarg(args, kw, n, "return_dict", -1);
    bool known = false, dict = rd ? av_truth(rd, &known) : true;
    if (rd && known && !dict) {
        AVal *t = av_seq(in, 1);
        t->items[0] = av_tensor_of(in, sample);
        return t;
    }
    AVal *out = av_obj(in, NN_OUTPUT);
    out->obj->is_module = false;
    obj_set(in, out->obj, "sample", av_tensor_of(in, sample));
    return out;
}

AVal *library_call_diffusers(LibraryCtx *lc, Interp *in, Obj *m, AVal **args, const char **kw, uint32_t n)
{
    const UNetConfig *c = m->arch;
    Trace *tr = in->tr;
    UNetInputs x;
    memset(&x, 0, sizeof x);
    if (unsupported_inputs(lc, in, args, kw, n) ||
        !read_sample(lc, in, c, library_kwarg(args, kw, n, "sample", 0), &x) ||
        !read_encoder(lc, in, c, c->conditional ? library_kwarg(args, kw, n, "encoder_hidden_states", 2) : NULL, &x))
        return av_unknown(in);
    read_added(in, c, library_kwarg(args, kw, n, "added_cond_kwargs", -1), &x);
    if (c->num_class_embeds) {
        x.class_labels = tensor_of(in, library_kwarg(args, kw, n, "class_labels", c->conditional ? 3 : 2), 1);
        if (!x.class_labels) {
            lc->error = "the UNet has num_class_embeds but its class_labels could not be read (diffusers raises "
                        "without them)";
            return av_unknown(in);
        }
    }
    const char *why = diffusers_refusal(in->a, c, x.height, x.width);
    if (why) {
        lc->error = arena_printf(in->a, "the UNet does not take that sample: %s", why);
        return av_unknown(in);
    }
    if (m->a && !in->in_trainer)
        tr->training = lc->cfg->train_called;   /* from_pretrained leaves the model in eval() */
    /* diffusers' blocks checkpoint whenever grad is enabled, in eval() too */
    x.grad_ckpt = lc->cfg->grad_checkpointing && !tr->no_grad;
    interp_note(in, 0, "diffusers UNet: attention by a fused scaled_dot_product_attention kernel (q, k, v, output "
                       "and log-sum-exp saved) for every head size; not calibrated against a measurement");
    TId sample = 0;
    if (!diffusers_build(tr, c, &x, &sample)) {
        lc->error = "the UNet's configuration could not be recorded";
        return av_unknown(in);
    }
    lc->batch = x.batch;
    lc->image = x.height;
    lc->logits = sample;
    lc->head_op = tr->ops.n + 1;
    if (in->model_call_named)
        tr_keep(tr, sample);   /* `out = unet(...)` holds the output until it is reassigned */
    return unet_output(in, args, kw, n, sample);
}
