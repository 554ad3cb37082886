/* torch.nn's attention and Transformer modules: nn.MultiheadAttention
 * (torch/nn/modules/activation.py; its forward is
 * F.multi_head_attention_forward) and torch/nn/modules/transformer.py's
 * encoder and decoder layers, their stacks and nn.Transformer.
 * Constructors register the parameters PyTorch registers; forwards record
 * the training path (not the inference fast path) and what it keeps for
 * the backward. */
#include "torchlib.h"

/* ---- weights ---------------------------------------------------------------------------- */

/* One attention's weights from its first slot in Obj.wall: the packed
 * in-projection (3E x E) and its bias, out_proj's weight and bias. */
enum { MHA_IN_W, MHA_IN_B, MHA_OUT_W, MHA_OUT_B, MHA_SLOTS };

/* A Transformer layer's slots: self-attention, linear1, linear2, the norms'
 * (weight, bias) pairs (norm1, norm2 and a decoder's norm3), then a
 * decoder's cross-attention (multihead_attn). */
enum {
    TL_SELF_ATTN = 0,
    TL_LINEAR1_W = MHA_SLOTS, TL_LINEAR1_B, TL_LINEAR2_W, TL_LINEAR2_B,
    TL_NORMS,
    TL_ENCODER_SLOTS = TL_NORMS + 2 * 2,
    TL_CROSS_ATTN = TL_NORMS + 2 * 3,
    TL_DECODER_SLOTS = TL_CROSS_ATTN + MHA_SLOTS,
};

/* What a Transformer layer is built from (nn.Transformer passes its own
 * arguments down): kept once, shared by the copies a stack makes. */
typedef struct LayerConf {
    int64_t d, heads, ff;
    double p;
    Act act;            /* ACT_RELU or ACT_GELU, unless act_fn */
    AVal *act_fn;       /* another callable, which the forward calls */
    bool batch_first, norm_first, bias;
} LayerConf;

static const LayerConf *conf_of(const Obj *o) { return o->arch; }

bool transformer_batch_first(const Obj *m) { return conf_of(m) && conf_of(m)->batch_first; }

static bool given(const AVal *v) { return v && v->k != AV_NONE; }

/* A value pfc reads as a number or a flag; any other it notes, with what it
 * assumes instead (PyTorch's default). */
static void note_unread(Interp *in, const AVal *v, const char *what, const char *kw, const char *assumed)
{
    if (!v || v->k == AV_INT || v->k == AV_FLOAT || v->k == AV_BOOL || v->k == AV_NONE)
        return;
    interp_note(in, in->cur_node, arena_printf(in->a, "%s's %s is not a value pfc can read: %s", what, kw, assumed));
}

static int64_t layer_size(Interp *in, const Args *a, int pos, const char *kw, int64_t dflt, const char *what)
{
    note_unread(in, arg(a, pos, kw), what, kw,
                dflt ? arena_printf(in->a, "PyTorch's default %lld assumed", (long long)dflt)
                     : "the layer's parameters and activations are missing");
    return size_arg(in, a, pos, kw, dflt, what);
}

static bool layer_flag(Interp *in, const Args *a, int pos, const char *kw, bool dflt, const char *what)
{
    AVal *v = arg(a, pos, kw);
    bool known = false, t = v && av_truth(v, &known);
    if (v && !known)
        interp_note(in, in->cur_node, arena_printf(in->a, "%s's %s is not a value pfc can read: %s assumed", what,
                                                   kw, dflt ? "True" : "False"));
    return known ? t : dflt;
}

/* The feed-forward activation: "relu" or "gelu" (PyTorch raises on another
 * string), or a callable (F.relu, the default; F.gelu; a module; a
 * function of the script), which the forward calls. */
static void read_activation(Interp *in, AVal *v, const char *what, LayerConf *c)
{
    c->act = ACT_RELU;
    if (!v)
        return;
    if (v->k == AV_STR) {
        if (eq(v->s, "gelu"))
            c->act = ACT_GELU;
        else if (!eq(v->s, "relu"))
            refuse(in, arena_printf(in->a, "%s's activation is \"%s\": PyTorch takes \"relu\", \"gelu\" "
                                           "or a callable", what, v->s));
        return;
    }
    if (v->k == AV_QUAL || v->k == AV_FUNC || v->k == AV_OBJECT || v->k == AV_BOUND) {
        c->act_fn = v;
        return;
    }
    interp_note(in, in->cur_node, arena_printf(in->a, "%s's activation is not a value pfc can read: ReLU "
                                                      "assumed", what));
}

/* Where a constructor takes each setting. */
typedef struct ConfArgs {
    int d, heads, ff, p, act, batch_first, norm_first, bias;
    int64_t d_default, heads_default;   /* 0: required */
} ConfArgs;

static const ConfArgs layer_args = {0, 1, 2, 3, 4, 6, 7, 8, 0, 0};
static const ConfArgs transformer_args = {0, 1, 4, 5, 6, 10, 11, 12, 512, 8};

static LayerConf *read_conf(Interp *in, const Args *a, const ConfArgs *at, const char *what)
{
    LayerConf *c = arena_zalloc(in->a, sizeof *c);
    c->d = layer_size(in, a, at->d, "d_model", at->d_default, what);
    c->heads = layer_size(in, a, at->heads, "nhead", at->heads_default, what);
    c->ff = layer_size(in, a, at->ff, "dim_feedforward", 2048, what);
    note_unread(in, arg(a, at->p, "dropout"), what, "dropout", "0.1 assumed");
    c->p = num_or(a, at->p, "dropout", 0.1);
    read_activation(in, arg(a, at->act, "activation"), what, c);
    c->batch_first = layer_flag(in, a, at->batch_first, "batch_first", false, what);
    c->norm_first = layer_flag(in, a, at->norm_first, "norm_first", false, what);
    c->bias = layer_flag(in, a, at->bias, "bias", true, what);
    if (c->d && c->heads && c->d % c->heads)
        refuse(in, arena_printf(in->a, "%s: d_model %lld is not divisible by nhead %lld (PyTorch raises)", what,
                                (long long)c->d, (long long)c->heads));
    if (c->p < 0 || c->p > 1)
        refuse(in, arena_printf(in->a, "%s's dropout is %g, not a probability (PyTorch raises)", what, c->p));
    return c;
}

/* nn.MultiheadAttention's parameters (bias=False drops both biases). */
static void attention_params(Interp *in, uint32_t *w, int64_t e, bool bias)
{
    w[MHA_IN_W] = param4(in, 3, e, e, 1);
    w[MHA_IN_B] = bias ? param4(in, 3, e, 1, 1) : 0;
    w[MHA_OUT_W] = param4(in, e, e, 1, 1);
    w[MHA_OUT_B] = bias ? param4(in, e, 1, 1, 1) : 0;
}

/* A layer's parameters in the order PyTorch registers them: self_attn,
 * (multihead_attn,) linear1, linear2, norm1, norm2 (, norm3). */
static void layer_params(Interp *in, Obj *o, const LayerConf *c, bool decoder)
{
    uint32_t *w = weight_slots(in, o, decoder ? TL_DECODER_SLOTS : TL_ENCODER_SLOTS);
    attention_params(in, w + TL_SELF_ATTN, c->d, c->bias);
    if (decoder)
        attention_params(in, w + TL_CROSS_ATTN, c->d, c->bias);
    w[TL_LINEAR1_W] = param4(in, c->d, c->ff, 1, 1);
    w[TL_LINEAR1_B] = c->bias ? param4(in, c->ff, 1, 1, 1) : 0;
    w[TL_LINEAR2_W] = param4(in, c->ff, c->d, 1, 1);
    w[TL_LINEAR2_B] = c->bias ? param4(in, c->d, 1, 1, 1) : 0;
    for (int i = 0; i < (decoder ? 3 : 2); i++) {
        w[TL_NORMS + 2 * i] = param4(in, c->d, 1, 1, 1);
        w[TL_NORMS + 2 * i + 1] = c->bias ? param4(in, c->d, 1, 1, 1) : 0;
    }
}

static AVal *new_layer(Interp *in, const LayerConf *c, bool decoder)
{
    AVal *m = av_obj(in, decoder ? NN_TDLAYER : NN_TLAYER);
    m->obj->arch = c;
    layer_params(in, m->obj, c, decoder);
    return m;
}

/* nn.TransformerEncoderLayer and nn.TransformerDecoderLayer. */
static AVal *nn_layer(Interp *in, const char *name, Args *a)
{
    bool decoder = eq(name, "TransformerDecoderLayer");
    return new_layer(in, read_conf(in, a, &layer_args, decoder ? "nn.TransformerDecoderLayer"
                                                               : "nn.TransformerEncoderLayer"), decoder);
}

/* LayerNorm(d_model, eps, bias=bias), nn.Transformer's last norms. */
static AVal *final_norm(Interp *in, const LayerConf *c)
{
    AVal *n = av_obj(in, NN_LAYERNORM);
    n->obj->a = c->d;
    n->obj->w = param4(in, c->d, 1, 1, 1);
    n->obj->bias = c->bias ? param4(in, c->d, 1, 1, 1) : 0;
    return n;
}

/* A stack's num_layers: 0 (an identity) .. NN_MAX_LAYERS; one pfc cannot
 * read is taken as dflt (1 when the argument is required), said so. */
static int64_t layer_count(Interp *in, const Args *a, int pos, const char *kw, int64_t dflt, const char *what)
{
    AVal *v = arg(a, pos, kw);
    int64_t n = dflt;
    if (!v && dflt < 0) {
        refuse(in, arena_printf(in->a, "%s lacks its %s", what, kw));
        return 0;
    }
    if (v && !av_int_of(v, &n)) {
        n = dflt < 0 ? 1 : dflt;
        interp_note(in, in->cur_node, arena_printf(in->a, "%s's %s is not a number pfc can read: %lld assumed",
                                                   what, kw, (long long)n));
    }
    if (n < 0 || n > NN_MAX_LAYERS) {
        refuse(in, arena_printf(in->a, "%s's %s is %lld: not a layer count pfc can estimate (0 to %d)", what, kw,
                                (long long)n, NN_MAX_LAYERS));
        return 0;
    }
    return n;
}

/* TransformerEncoder / TransformerDecoder: `layers`, a ModuleList of n deep
 * copies of one layer (each with its own parameters), and the final `norm`
 * (None or a module). c = 1 for a decoder. */
static AVal *new_stack(Interp *in, const LayerConf *c, bool decoder, int64_t n, AVal *norm)
{
    AVal *m = av_obj(in, NN_TSTACK), *list = av_obj(in, NN_MODULELIST), *items = av_seq(in, (uint32_t)n);
    m->obj->c = decoder;
    m->obj->arch = c;
    for (int64_t i = 0; i < n; i++)
        items->items[i] = new_layer(in, c, decoder);
    obj_set(in, list->obj, "__items__", items);
    obj_set(in, m->obj, "layers", list);
    obj_set(in, m->obj, "norm", norm ? norm : av_none(in));
    obj_set(in, m->obj, "num_layers", av_int(in, n));
    return m;
}

/* nn.TransformerEncoder(encoder_layer, num_layers, norm=None) and
 * nn.TransformerDecoder(decoder_layer, num_layers, norm=None). The layer
 * given is only copied: its own parameters are not part of the model. */
static AVal *nn_stack(Interp *in, const char *name, Args *a)
{
    bool decoder = eq(name, "TransformerDecoder");
    const char *what = decoder ? "nn.TransformerDecoder" : "nn.TransformerEncoder";
    AVal *layer = arg(a, 0, decoder ? "decoder_layer" : "encoder_layer");
    if (!layer || layer->k != AV_OBJECT || layer->obj->nn != (decoder ? NN_TDLAYER : NN_TLAYER)) {
        interp_note(in, in->cur_node, arena_printf(in->a, "%s's layer is not an %s pfc can read: the stack's "
                                                          "parameters and activations are missing", what,
                                                   decoder ? "nn.TransformerDecoderLayer"
                                                           : "nn.TransformerEncoderLayer"));
        AVal *stack = av_obj(in, NN_OPAQUE);
        stack->obj->is_module = true;   /* a Transformer stack, unread */
        return stack;
    }
    for (uint32_t i = 0; i < layer->obj->nwall; i++)
        tr_param_drop(in->tr, layer->obj->wall[i]);
    int64_t n = layer_count(in, a, 1, "num_layers", -1, what);
    AVal *norm = arg(a, 2, "norm");
    return new_stack(in, conf_of(layer->obj), decoder, n, given(norm) ? norm : NULL);
}

/* A module nn.Transformer can call as its encoder or decoder and pfc can
 * follow: a class of the project or an nn module it models. */
static bool followable(const AVal *v)
{
    return v->k == AV_OBJECT && (v->obj->cls >= 0 || (v->obj->nn != NN_NONE && v->obj->nn != NN_OPAQUE));
}

/* nn.Transformer's encoder or decoder: custom_encoder / custom_decoder as
 * given, else a stack of num_encoder_layers / num_decoder_layers layers
 * with a final LayerNorm. */
static AVal *transformer_part(Interp *in, const Args *a, const LayerConf *c, bool decoder)
{
    const char *custom_kw = decoder ? "custom_decoder" : "custom_encoder";
    AVal *custom = arg(a, decoder ? 8 : 7, custom_kw);
    if (given(custom)) {
        if (!followable(custom))
            interp_note(in, in->cur_node, arena_printf(in->a, "nn.Transformer's %s is not a module pfc can read: "
                                                              "its parameters are missing and its forward is "
                                                              "taken as elementwise", custom_kw));
        return custom;
    }
    int64_t n = layer_count(in, a, decoder ? 3 : 2, decoder ? "num_decoder_layers" : "num_encoder_layers", 6,
                            "nn.Transformer");
    return new_stack(in, c, decoder, n, final_norm(in, c));
}

static AVal *nn_transformer(Interp *in, const char *name, Args *a)
{
    (void)name;
    LayerConf *c = read_conf(in, a, &transformer_args, "nn.Transformer");
    AVal *m = av_obj(in, NN_TRANSFORMER);
    m->obj->arch = c;
    obj_set(in, m->obj, "encoder", transformer_part(in, a, c, false));
    obj_set(in, m->obj, "decoder", transformer_part(in, a, c, true));
    obj_set(in, m->obj, "d_model", av_int(in, c->d));
    obj_set(in, m->obj, "nhead", av_int(in, c->heads));
    obj_set(in, m->obj, "batch_first", av_bool(in, c->batch_first));
    return m;
}

/* nn.MultiheadAttention(embed_dim, num_heads, dropout=0.0, bias=True,
 * add_bias_kv, add_zero_attn, kdim, vdim, batch_first): a = embed_dim,
 * k = heads, p = dropout, groups = batch_first. */
static AVal *nn_mha(Interp *in, const char *name, Args *a)
{
    const char *what = "nn.MultiheadAttention";
    AVal *m = av_obj(in, NN_MHA);
    Obj *o = m->obj;
    (void)name;
    o->a = size_arg(in, a, 0, "embed_dim", 0, what);
    o->k = (int)size_arg(in, a, 1, "num_heads", 0, what);
    o->p = dropout_p(in, a, 2, "dropout", 0, "nn.MultiheadAttention");
    o->groups = bool_or(a, 8, "batch_first", false);
    if (o->a && o->k && o->a % o->k)
        refuse(in, arena_printf(in->a, "%s: embed_dim %lld is not divisible by num_heads %d (PyTorch raises)", what,
                                (long long)o->a, o->k));
    int64_t kdim = int_or(a, 6, "kdim", o->a), vdim = int_or(a, 7, "vdim", o->a);
    if (bool_or(a, 4, "add_bias_kv", false) || bool_or(a, 5, "add_zero_attn", false) || kdim != o->a ||
        vdim != o->a)
        interp_note(in, in->cur_node, "nn.MultiheadAttention's add_bias_kv, add_zero_attn, kdim and vdim are not "
                                      "modelled: taken as a packed in-projection of embed_dim");
    attention_params(in, weight_slots(in, o, MHA_SLOTS), o->a, bool_or(a, 3, "bias", true));
    return m;
}

/* nn.Transformer.generate_square_subsequent_mask(sz, device, dtype): an
 * (sz, sz) float mask, on the CPU unless a device is given. */
AVal *square_subsequent_mask(Interp *in, Args *a)
{
    int64_t sz = size_arg(in, a, 0, "sz", 0, "generate_square_subsequent_mask");
    DType dt = DT_F32;
    dtype_of(arg(a, 2, "dtype"), &dt);
    int64_t dim[2] = {sz, sz};
    return sz ? new_tensor_value(in, dt, 2, dim, device_is_gpu(arg(a, 1, "device"))) : av_unknown(in);
}

AVal *transformer_module(Interp *in, const char *name, Args *a)
{
    static const struct { const char *name; AVal *(*ctor)(Interp *, const char *, Args *); } ctors[] = {
        {"MultiheadAttention", nn_mha}, {"TransformerEncoderLayer", nn_layer},
        {"TransformerDecoderLayer", nn_layer}, {"TransformerEncoder", nn_stack},
        {"TransformerDecoder", nn_stack}, {"Transformer", nn_transformer},
    };
    for (size_t i = 0; i < sizeof ctors / sizeof ctors[0]; i++)
        if (eq(name, ctors[i].name))
            return ctors[i].ctor(in, name, a);
    return NULL;
}

/* ---- attention -------------------------------------------------------------------------- */

/* What the attention's forward needs of its module. */
typedef struct Attn {
    int64_t e, heads;
    double p;
    bool batch_first;
    const uint32_t *w;   /* MHA_SLOTS weights */
} Attn;

/* The masks, as far as memory goes. A key_padding_mask is expanded over
 * the heads into an (N*heads, 1, S) copy in the query's dtype; with an
 * attn_mask too, the two are added into one (N*heads, L, S) mask. The fused
 * kernel keeps what it receives for the backward. An attn_mask alone
 * reaches it as a view of the script's tensor (a causal one not at all). */
typedef struct Masks { bool attn, padding; } Masks;

static Masks masks_of(const AVal *attn, const AVal *padding) { return (Masks){given(attn), given(padding)}; }

/* One call: query (L, N, E), key and value (S, N, E), or batch first
 * (N, L, E) and (N, S, E). The same tensor as query and key is
 * self-attention, as key and value encoder-decoder attention. */
typedef struct AttnCall {
    TId q, k, v;
    Masks masks;
    bool need_weights, average_weights;
} AttnCall;

/* The tensors holding q, k and v (one packed tensor may hold several). */
typedef struct Qkv { TId q, k, v; } Qkv;

/* An input of the in-projection as its linear reads it: a batch-first one
 * was transposed to (L, N, E), which the matmul folds into an (L*N, E)
 * copy (16-bit under autocast) and saves. */
static TId projection_input(Trace *tr, const Attn *at, TId x)
{
    if (!at->batch_first)
        return x;
    int64_t rows[2] = {tr_dim(tr, x, 0) * tr_dim(tr, x, 1), at->e};
    if (tr->autocast_on)
        x = tr_cast(tr, x, tr->autocast);
    return tr_copy(tr, x, 2, rows);
}

/* _in_projection_packed: self-attention projects once and copies the
 * (3, L, N, E) result contiguous; encoder-decoder attention projects q,
 * then k and v together, copied as (2, S, N, E); three different inputs get
 * three projections. All read rows of the one in_proj weight (its autocast
 * copy is made once). */
static Qkv in_projection(Trace *tr, const Attn *at, const AttnCall *c, int64_t L, int64_t S, int64_t N)
{
    const uint32_t *w = at->w;
    int64_t e = at->e;
    Qkv r;
    if (c->q == c->k && c->k == c->v) {
        TId p = tr_linear(tr, projection_input(tr, at, c->q), 3 * e, w[MHA_IN_W], w[MHA_IN_B]);
        int64_t packed[4] = {3, L, N, e};
        r.q = r.k = r.v = tr_copy(tr, p, 4, packed);
    } else if (c->k == c->v) {
        r.q = tr_linear(tr, projection_input(tr, at, c->q), e, w[MHA_IN_W], w[MHA_IN_B]);
        TId p = tr_linear(tr, projection_input(tr, at, c->k), 2 * e, w[MHA_IN_W], w[MHA_IN_B]);
        int64_t packed[4] = {2, S, N, e};
        r.k = r.v = tr_copy(tr, p, 4, packed);
    } else {
        r.q = tr_linear(tr, projection_input(tr, at, c->q), e, w[MHA_IN_W], w[MHA_IN_B]);
        r.k = tr_linear(tr, projection_input(tr, at, c->k), e, w[MHA_IN_W], w[MHA_IN_B]);
        r.v = tr_linear(tr, projection_input(tr, at, c->v), e, w[MHA_IN_W], w[MHA_IN_B]);
    }
    return r;
}

/* need_weights=False: scaled_dot_product_attention on (N, heads, L, hd)
 * views, then the (L*N, E) rows out_proj reads. */
static TId fused_attention(Trace *tr, const Attn *at, const Qkv *p, Masks m, DType query_dt, int64_t L,
                           int64_t S, int64_t N)
{
    int64_t h = at->heads, hd = at->e / h;
    int64_t ql[4] = {N, h, L, hd}, ks[4] = {N, h, S, hd}, rows[2] = {L * N, at->e};
    TId q = tr_view(tr, p->q, 4, ql), k = tr_view(tr, p->k, 4, ks), v = tr_view(tr, p->v, 4, ks);
    int64_t md[4] = {N, h, m.attn ? L : 1, S};
    TId bias = m.padding ? tr_new(tr, query_dt, 4, md) : 0;
    TId y = tr_sdpa_bias(tr, q, k, v, bias, tr->training ? at->p : 0);
    DType dt = tr_dtype(tr, y);
    /* the 16-bit kernels write the (L, N, heads, hd) layout the permute asks for */
    return dt == DT_F16 || dt == DT_BF16 ? tr_view(tr, y, 2, rows) : tr_copy(tr, y, 2, rows);
}

/* need_weights=True: q scaled, bmm, softmax, dropout, bmm, materialising
 * the (N*heads, L, S) weights; *weights gets what the module returns, their
 * mean over the heads (a new tensor) or all of them (a view). */
static TId explicit_attention(Trace *tr, const Attn *at, const Qkv *p, bool average, int64_t L, int64_t S,
                              int64_t N, TId *weights)
{
    int64_t h = at->heads, hd = at->e / h;
    int64_t bh[3] = {N * h, L, hd}, kt[3] = {N * h, hd, S}, vs[3] = {N * h, S, hd}, rows[2] = {L * N, at->e};
    TId q = tr_view(tr, p->q, 3, bh), k = tr_view(tr, p->k, 3, kt), v = tr_view(tr, p->v, 3, vs);
    TId att = tr_matmul(tr, tr_scale(tr, q), k);
    att = tr_softmax(tr, att, false);
    att = tr_dropout(tr, att, at->p);
    TId y = tr_matmul(tr, att, v);
    y = tr_copy(tr, y, 2, rows);   /* transpose(0, 1).contiguous().view(L*N, E) */
    int64_t mean[3] = {N, L, S}, all[4] = {N, h, L, S};
    *weights = average ? tr_new(tr, tr_dtype(tr, att), 3, mean) : tr_view(tr, att, 4, all);
    return y;
}

/* F.multi_head_attention_forward in training: the in-projection, the
 * attention, out_proj; the output is laid out as the query. */
static TId mha_forward(Trace *tr, const Attn *at, const AttnCall *c, TId *weights)
{
    bool bf = at->batch_first;
    int64_t L = tr_dim(tr, c->q, bf ? 1 : 0), N = tr_dim(tr, c->q, bf ? 0 : 1), S = tr_dim(tr, c->k, bf ? 1 : 0);
    Attn a = *at;
    a.heads = at->heads > 0 ? at->heads : 1;
    Qkv p = in_projection(tr, &a, c, L, S, N);
    *weights = 0;
    TId y = c->need_weights ? explicit_attention(tr, &a, &p, c->average_weights, L, S, N, weights)
                            : fused_attention(tr, &a, &p, c->masks, tr_dtype(tr, c->q), L, S, N);
    TId out = tr_linear(tr, y, a.e, a.w[MHA_OUT_W], a.w[MHA_OUT_B]);
    int64_t d3[3] = {bf ? N : L, bf ? L : N, a.e};
    return tr_view(tr, out, 3, d3);
}

/* An input of an attention or a layer as a 3-D tensor: an unbatched (L, E)
 * one is taken as (L, 1, E), sequence first, as F.multi_head_attention_forward
 * unsqueezes it (*unbatched set). 0 when it is no tensor pfc can follow:
 * the tensors are lost there. */
static TId batched_input(Interp *in, TId t, bool *unbatched)
{
    Trace *tr = in->tr;
    if (t && tr->t.v[t].nd == 2) {
        int64_t d3[3] = {tr_dim(tr, t, 0), 1, tr_dim(tr, t, 1)};
        *unbatched = true;
        return tr_view(tr, t, 3, d3);
    }
    if (t && tr->t.v[t].nd == 3)
        return t;
    interp_lost_here(in, t ? "an attention's input is neither 2-D nor 3-D"
                           : "a layer's input is not a tensor pfc could follow");
    return 0;
}

/* The output of an unbatched call: (L, E) again. */
static TId unbatched_output(Trace *tr, TId y, bool unbatched)
{
    int64_t d2[2] = {tr_dim(tr, y, 0), tr_dim(tr, y, 2)};
    return unbatched ? tr_view(tr, y, 2, d2) : y;
}

/* nn.MultiheadAttention(query, key, value, key_padding_mask, need_weights,
 * attn_mask, average_attn_weights, is_causal) returns (output, weights or
 * None). */
static AVal *mha_call(Interp *in, Obj *o, Args *a)
{
    AVal *ka = arg(a, 1, "key"), *va = arg(a, 2, "value");
    TId tq = av_gpu(in, arg(a, 0, "query")), tk = ka ? av_gpu(in, ka) : tq, tv = va ? av_gpu(in, va) : tk;
    bool unbatched = false;
    TId q = batched_input(in, tq, &unbatched);
    TId k = tk == tq ? q : batched_input(in, tk, &unbatched);
    TId v = tv == tk ? k : batched_input(in, tv, &unbatched);
    if (!q || !k || !v)
        return av_unknown(in);
    Attn at = {o->a, o->k, o->p, o->groups && !unbatched, o->wall};
    AttnCall c = {q, k, v, masks_of(arg(a, 5, "attn_mask"), arg(a, 3, "key_padding_mask")),
                  bool_or(a, 4, "need_weights", true), bool_or(a, 6, "average_attn_weights", true)};
    TId weights;
    AVal *pair = av_seq(in, 2);
    pair->items[0] = tensor_result(in, unbatched_output(in->tr, mha_forward(in->tr, &at, &c, &weights), unbatched));
    pair->items[1] = weights ? tensor_result(in, weights) : av_none(in);
    return pair;
}

/* ---- Transformer layers ----------------------------------------------------------------- */

/* What a layer's forward receives besides its input. */
typedef struct LayerIn {
    TId memory;          /* a decoder's: the encoder's output */
    Masks self, cross;
    bool unbatched;      /* (L, E) inputs, taken as (L, 1, E) */
} LayerIn;

typedef enum Block { SELF_ATTENTION, CROSS_ATTENTION, FEED_FORWARD } Block;

static Attn layer_attention(const Obj *o, int slot)
{
    const LayerConf *c = conf_of(o);
    return (Attn){c->d, c->heads, c->p, c->batch_first, o->wall + slot};
}

/* _sa_block / _mha_block: the attention without weights, then dropout. */
static TId attention_block(Interp *in, const Obj *o, int slot, TId x, TId kv, Masks m, bool unbatched)
{
    Attn at = layer_attention(o, slot);
    at.batch_first &= !unbatched;
    AttnCall c = {x, kv, kv, m, false, true};
    TId w;
    return tr_dropout(in->tr, mha_forward(in->tr, &at, &c, &w), at.p);
}

static TId activation(Interp *in, const LayerConf *c, TId x)
{
    if (!c->act_fn)
        return tr_act(in->tr, x, c->act, false);
    Args one = {{tensor_result(in, x)}, {NULL}, 1};
    TId y = av_gpu(in, call_value(in, c->act_fn, &one));
    if (y)
        return y;
    interp_note(in, in->cur_node, "a Transformer layer's activation gave no tensor pfc could follow: taken as "
                                  "elementwise (its input kept for the backward)");
    return tr_assumed(in->tr, "activation", x);
}

/* _ff_block: linear1, activation, dropout, linear2, dropout. */
static TId feed_forward(Interp *in, const Obj *o, TId x)
{
    Trace *tr = in->tr;
    const LayerConf *c = conf_of(o);
    TId f = tr_linear(tr, x, c->ff, o->wall[TL_LINEAR1_W], o->wall[TL_LINEAR1_B]);
    f = tr_dropout(tr, activation(in, c, f), c->p);
    f = tr_linear(tr, f, c->d, o->wall[TL_LINEAR2_W], o->wall[TL_LINEAR2_B]);
    return tr_dropout(tr, f, c->p);
}

static TId block(Interp *in, const Obj *o, Block b, TId x, const LayerIn *li)
{
    switch (b) {
    case SELF_ATTENTION: return attention_block(in, o, TL_SELF_ATTN, x, x, li->self, li->unbatched);
    case CROSS_ATTENTION: return attention_block(in, o, TL_CROSS_ATTN, x, li->memory, li->cross, li->unbatched);
    default: return feed_forward(in, o, x);
    }
}

/* A residual sub-layer with the layer's norm i: x + block(norm(x)) with
 * norm_first, else norm(x + block(x)). */
static TId sublayer(Interp *in, const Obj *o, Block b, int norm, TId x, const LayerIn *li)
{
    Trace *tr = in->tr;
    uint32_t w = o->wall[TL_NORMS + 2 * norm], bias = o->wall[TL_NORMS + 2 * norm + 1];
    if (conf_of(o)->norm_first)
        return tr_add(tr, x, block(in, o, b, tr_layer_norm(tr, x, w, bias), li));
    return tr_layer_norm(tr, tr_add(tr, x, block(in, o, b, x, li)), w, bias);
}

/* The encoder layer: self-attention, feed-forward; the decoder layer puts
 * cross-attention over the memory between them. */
static TId tlayer_forward(Interp *in, const Obj *o, TId x, const LayerIn *li)
{
    bool decoder = o->nn == NN_TDLAYER;
    x = sublayer(in, o, SELF_ATTENTION, 0, x, li);
    if (decoder)
        x = sublayer(in, o, CROSS_ATTENTION, 1, x, li);
    return sublayer(in, o, FEED_FORWARD, decoder ? 2 : 1, x, li);
}

/* An encoder layer's call (src, src_mask, src_key_padding_mask, is_causal);
 * a decoder layer's (tgt, memory, tgt_mask, memory_mask,
 * tgt_key_padding_mask, memory_key_padding_mask, ...). */
static AVal *tlayer_call(Interp *in, Obj *o, Args *a)
{
    bool decoder = o->nn == NN_TDLAYER;
    LayerIn li = {0};
    TId x = batched_input(in, av_gpu(in, arg(a, 0, decoder ? "tgt" : "src")), &li.unbatched);
    if (decoder) {
        li.memory = x ? batched_input(in, av_gpu(in, arg(a, 1, "memory")), &li.unbatched) : 0;
        li.self = masks_of(arg(a, 2, "tgt_mask"), arg(a, 4, "tgt_key_padding_mask"));
        li.cross = masks_of(arg(a, 3, "memory_mask"), arg(a, 5, "memory_key_padding_mask"));
    } else {
        li.self = masks_of(arg(a, 1, "src_mask"), arg(a, 2, "src_key_padding_mask"));
    }
    if (!x || (decoder && !li.memory) || !conf_of(o)->d || !conf_of(o)->heads)
        return av_unknown(in);
    return tensor_result(in, unbatched_output(in->tr, tlayer_forward(in, o, x, &li), li.unbatched));
}

/* ---- stacks and nn.Transformer ---------------------------------------------------------- */

/* An argument passed on to the next module, under its name there. */
typedef struct Passed { int pos; const char *from, *to; } Passed;

static const Passed encoder_masks[] = {{1, "mask", "src_mask"}, {2, "src_key_padding_mask", "src_key_padding_mask"}};
static const Passed decoder_masks[] = {
    {2, "tgt_mask", "tgt_mask"}, {3, "memory_mask", "memory_mask"},
    {4, "tgt_key_padding_mask", "tgt_key_padding_mask"}, {5, "memory_key_padding_mask", "memory_key_padding_mask"},
};
static const Passed transformer_src_masks[] = {{2, "src_mask", "mask"},
                                               {5, "src_key_padding_mask", "src_key_padding_mask"}};
static const Passed transformer_tgt_masks[] = {
    {3, "tgt_mask", "tgt_mask"}, {4, "memory_mask", "memory_mask"},
    {6, "tgt_key_padding_mask", "tgt_key_padding_mask"}, {7, "memory_key_padding_mask", "memory_key_padding_mask"},
};

static void put(Args *a, const char *kw, AVal *v)
{
    if (v && a->n < ARGS_MAX) {
        a->v[a->n] = v;
        a->kw[a->n++] = kw;
    }
}

static void pass_on(Args *to, const Args *from, const Passed *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        put(to, p[i].to, arg(from, p[i].pos, p[i].from));
}

static AVal *arg_or_unknown(Interp *in, const Args *a, int pos, const char *kw)
{
    AVal *v = arg(a, pos, kw);
    return v ? v : av_unknown(in);
}

/* Calls a part of a stack or of nn.Transformer (a layer, a norm, the
 * encoder, the decoder). When it gives no tensor pfc can follow (a module of
 * a class it cannot read), its first input comes out as if elementwise,
 * kept for the backward, and the report says so. */
static AVal *call_or_assume(Interp *in, AVal *part, Args *a, const char *what)
{
    AVal *r = part ? call_value(in, part, a) : av_unknown(in);
    if (r->k == AV_TENSOR || interp_error(in))
        return r;
    return assumed_op(in, a->v[0], what);
}

/* TransformerEncoder(src, mask, src_key_padding_mask, is_causal) and
 * TransformerDecoder(tgt, memory, tgt_mask, memory_mask,
 * tgt_key_padding_mask, memory_key_padding_mask, ...): each of `layers` in
 * turn with the masks, then `norm`. */
static AVal *stack_call(Interp *in, Obj *o, Args *a)
{
    bool decoder = o->c;
    Args next = {{NULL}, {NULL}, 0};
    AVal *x = arg_or_unknown(in, a, 0, decoder ? "tgt" : "src");
    put(&next, NULL, x);
    if (decoder)
        put(&next, NULL, arg_or_unknown(in, a, 1, "memory"));
    pass_on(&next, a, decoder ? decoder_masks : encoder_masks,
            decoder ? sizeof decoder_masks / sizeof *decoder_masks : sizeof encoder_masks / sizeof *encoder_masks);
    AVal *layers = obj_get(o, "layers");
    AVal *items = layers && layers->k == AV_OBJECT ? obj_get(layers->obj, "__items__") : NULL;
    const char *what = decoder ? "a layer of an nn.TransformerDecoder" : "a layer of an nn.TransformerEncoder";
    for (uint32_t i = 0; items && i < items->n && !interp_error(in); i++) {
        next.v[0] = x;
        x = call_or_assume(in, items->items[i], &next, what);
    }
    AVal *norm = obj_get(o, "norm");
    if (given(norm)) {
        Args one = {{x}, {NULL}, 1};
        x = call_or_assume(in, norm, &one, decoder ? "nn.TransformerDecoder's norm" : "nn.TransformerEncoder's norm");
    }
    return x;
}

/* nn.Transformer(src, tgt, src_mask, tgt_mask, memory_mask,
 * src_key_padding_mask, tgt_key_padding_mask, memory_key_padding_mask,
 * ...): the encoder over src's sequence, the decoder over tgt's with the
 * encoder's output as its memory. */
static AVal *transformer_call(Interp *in, Obj *o, Args *a)
{
    Args enc = {{NULL}, {NULL}, 0}, dec = {{NULL}, {NULL}, 0};
    put(&enc, NULL, arg_or_unknown(in, a, 0, "src"));
    pass_on(&enc, a, transformer_src_masks, sizeof transformer_src_masks / sizeof *transformer_src_masks);
    AVal *memory = call_or_assume(in, obj_get(o, "encoder"), &enc, "nn.Transformer's encoder");
    put(&dec, NULL, arg_or_unknown(in, a, 1, "tgt"));
    put(&dec, NULL, memory);
    pass_on(&dec, a, transformer_tgt_masks, sizeof transformer_tgt_masks / sizeof *transformer_tgt_masks);
    return call_or_assume(in, obj_get(o, "decoder"), &dec, "nn.Transformer's decoder");
}

AVal *transformer_module_call(Interp *in, Obj *m, Args *a)
{
    switch (m->nn) {
    case NN_MHA: return mha_call(in, m, a);
    case NN_TLAYER: case NN_TDLAYER: return tlayer_call(in, m, a);
    case NN_TSTACK: return stack_call(in, m, a);
    case NN_TRANSFORMER: return transformer_call(in, m, a);
    default: return av_unknown(in);
    }
}
