/* torch.nn modules: constructors (the parameters they register) and
 * forwards of the built-in layers (Linear, Conv, norms, RNNs, attention,
 * Transformer layers, containers), and module methods and attributes. */
#include "torchlib.h"
#include <math.h>
#include <stdlib.h>

/* ---- torch.nn constructors -------------------------------------------------------------- */

static uint32_t param(Interp *in, uint64_t n) { return n ? tr_param(in->tr, n) : 0; }

/* A weight of a x b (x c x d) elements: saturating, so that an absurd size
 * is refused by the trace instead of wrapping to a small one. */
static uint32_t param4(Interp *in, int64_t a, int64_t b, int64_t c, int64_t d)
{
    if (a <= 0 || b <= 0 || c <= 0 || d <= 0)
        return 0;
    return param(in, ck_mul(ck_mul((uint64_t)a, (uint64_t)b), ck_mul((uint64_t)c, (uint64_t)d)));
}

/* nn.MultiheadAttention's parameters: the packed in-projection (3E x E, 3E)
 * and out_proj (E x E, E); kept in wall[]. */
static void mha_params(Interp *in, Obj *o, bool bias)
{
    int64_t e = o->a;
    o->wall[0] = param4(in, 3, e, e, 1);
    o->wall[1] = bias ? param4(in, 3, e, 1, 1) : 0;
    o->wall[2] = param4(in, e, e, 1, 1);
    o->wall[3] = bias ? param4(in, e, 1, 1, 1) : 0;
}

/* TransformerEncoderLayer: a = d_model, k = heads, b = feed-forward width,
 * p = dropout, c = GELU (else ReLU), groups = batch_first, stride = norm_first;
 * wall[0..3] self-attention, wall[4..7] linear1/linear2, wall[8..11] norms */
static void tlayer_init(Interp *in, Obj *o, int64_t d, int heads, int64_t ff, double p, bool gelu,
                        bool batch_first, bool norm_first)
{
    o->a = d;
    o->k = heads;
    o->b = ff;
    o->p = p;
    o->c = gelu;
    o->groups = batch_first;
    o->stride = norm_first;
    mha_params(in, o, true);
    o->wall[4] = param4(in, d, ff, 1, 1);
    o->wall[5] = param4(in, ff, 1, 1, 1);
    o->wall[6] = param4(in, ff, d, 1, 1);
    o->wall[7] = param4(in, d, 1, 1, 1);
    for (int i = 8; i < 12 && i < (int)(sizeof o->wall / sizeof o->wall[0]); i++)
        o->wall[i] = param4(in, d, 1, 1, 1);
}

static void tlayer_drop(Interp *in, Obj *o)
{
    for (size_t i = 0; i < sizeof o->wall / sizeof o->wall[0]; i++)
        tr_param_drop(in->tr, o->wall[i]);
}

static AVal *new_module(Interp *in, NnKind kind, Obj **o)
{
    AVal *m = av_obj(in, kind);
    *o = m->obj;
    return m;
}

/* An int, or the first of a tuple (kernel_size=(3, 3), output_size=(1, 1)). */
static int64_t first_int(const AVal *v, int64_t dflt)
{
    if (v && v->k == AV_SEQ && v->n)
        av_int_of(v->items[0], &dflt);
    else if (v)
        av_int_of(v, &dflt);
    return dflt;
}

static AVal *nn_linear(Interp *in, const char *name, Args *a)
{
    Obj *o;
    AVal *m = new_module(in, NN_LINEAR, &o);
    (void)name;
    o->a = size_arg(in, a, 0, "in_features", 0, "nn.Linear");
    o->b = size_arg(in, a, 1, "out_features", 0, "nn.Linear");
    o->w = param4(in, o->a, o->b, 1, 1);
    o->bias = bool_or(a, 2, "bias", true) ? param4(in, o->b, 1, 1, 1) : 0;
    return m;
}

static AVal *nn_embedding(Interp *in, const char *name, Args *a)
{
    Obj *o;
    AVal *m = new_module(in, NN_EMBEDDING, &o);
    (void)name;
    o->a = size_arg(in, a, 0, "num_embeddings", 0, "nn.Embedding");
    o->b = size_arg(in, a, 1, "embedding_dim", 0, "nn.Embedding");
    o->w = param4(in, o->a, o->b, 1, 1);
    return m;
}

/* The elements one norm covers: the product of normalized_shape. */
static int64_t norm_size(Args *a, int from)
{
    int64_t dim[TR_MAXDIM];
    int nd = shape_args(a, from, dim);
    if (arg(a, -1, "normalized_shape")) {
        Args one = {{arg(a, -1, "normalized_shape")}, {NULL}, 1};
        nd = shape_args(&one, 0, dim);
    }
    uint64_t n = 1;
    for (int i = 0; i < nd; i++)
        n = dim[i] > 0 ? ck_mul(n, (uint64_t)dim[i]) : 0;
    return nd > 0 && n <= CK_NUMEL_MAX ? (int64_t)n : 0;   /* 0: no weight (and no elements to check) */
}

/* LayerNorm, RMSNorm (no bias) and GroupNorm (its channels come second). */
static AVal *nn_norm(Interp *in, const char *name, Args *a)
{
    Obj *o;
    AVal *m = new_module(in, eq(name, "RMSNorm") ? NN_RMSNORM : NN_LAYERNORM, &o);
    o->a = norm_size(a, eq(name, "GroupNorm") ? 1 : 0);
    bool affine = bool_or(a, -1, "elementwise_affine", true) && bool_or(a, -1, "affine", true);
    o->w = affine ? param4(in, o->a, 1, 1, 1) : 0;
    o->bias = affine && !eq(name, "RMSNorm") && bool_or(a, -1, "bias", true) ? param4(in, o->a, 1, 1, 1) : 0;
    return m;
}

/* A convolution's kernel side, stride and groups: positive, and at most
 * 2**16 (wider than any image side pfc models); returns the kernel side. */
static int64_t conv_geometry(Interp *in, Obj *o, const Args *a, const char *what, int64_t kk)
{
    if (kk <= 0) {
        refuse(in, arena_printf(in->a, "%s's kernel_size is %lld, not a positive integer", what, (long long)kk));
        kk = 1;
    }
    o->stride = (int)size_arg(in, a, 3, "stride", 1, what);
    o->groups = (int)size_arg(in, a, 6, "groups", 1, what);
    if (kk > 65536 || o->stride > 65536 || o->groups > 65536) {
        refuse(in, arena_printf(in->a, "%s's kernel, stride or groups is too large to estimate", what));
        kk = o->stride = o->groups = 1;
    }
    o->k = (int)kk;
    return kk;
}

static AVal *nn_conv_transpose(Interp *in, const char *name, Args *a)
{
    Obj *o;
    AVal *m = new_module(in, NN_CONVT2D, &o);
    (void)name;
    o->a = size_arg(in, a, 0, "in_channels", 0, "nn.ConvTranspose2d");
    o->b = size_arg(in, a, 1, "out_channels", 0, "nn.ConvTranspose2d");
    int64_t kk = conv_geometry(in, o, a, "nn.ConvTranspose2d", first_int(arg(a, 2, "kernel_size"), 1));
    o->pad = (int)count_arg(in, a, 4, "padding", 0, "nn.ConvTranspose2d");
    o->c = count_arg(in, a, 5, "output_padding", 0, "nn.ConvTranspose2d");
    o->w = param4(in, o->a / o->groups, o->b, kk, kk);
    o->bias = bool_or(a, 7, "bias", true) ? param4(in, o->b, 1, 1, 1) : 0;
    return m;
}

/* Conv2d and Conv1d (whose kernel has one side). */
static AVal *nn_conv(Interp *in, const char *name, Args *a)
{
    Obj *o;
    AVal *m = new_module(in, NN_CONV2D, &o);
    const char *what = eq(name, "Conv1d") ? "nn.Conv1d" : "nn.Conv2d";
    o->a = size_arg(in, a, 0, "in_channels", 0, what);
    o->b = size_arg(in, a, 1, "out_channels", 0, what);
    int64_t kk = conv_geometry(in, o, a, what, first_int(arg(a, 2, "kernel_size"), 1));
    AVal *p = arg(a, 4, "padding");
    o->pad = p && p->k == AV_STR ? o->k / 2 : (int)count_arg(in, a, 4, "padding", 0, what);
    o->w = param4(in, o->a / o->groups, o->b, kk, eq(name, "Conv1d") ? 1 : kk);
    o->bias = bool_or(a, 7, "bias", true) ? param4(in, o->b, 1, 1, 1) : 0;
    return m;
}

/* The running mean and variance (fp32) and num_batches_tracked are buffers. */
static AVal *nn_batch_norm(Interp *in, const char *name, Args *a)
{
    Obj *o;
    AVal *m = new_module(in, NN_BATCHNORM, &o);
    (void)name;
    o->a = size_arg(in, a, 0, "num_features", 0, "nn.BatchNorm");
    bool affine = bool_or(a, -1, "affine", true);
    o->w = affine ? param4(in, o->a, 1, 1, 1) : 0;
    o->bias = affine ? param4(in, o->a, 1, 1, 1) : 0;
    tr_buffer(in->tr, (uint64_t)o->a * 4);
    tr_buffer(in->tr, (uint64_t)o->a * 4);
    tr_buffer(in->tr, 8);
    return m;
}

/* LSTM and GRU: per layer, gates x hidden rows over (input + hidden) plus
 * two bias vectors; kept in wall[]. */
static AVal *nn_rnn(Interp *in, const char *name, Args *a)
{
    Obj *o;
    AVal *m = new_module(in, NN_LSTM, &o);
    const char *what = eq(name, "GRU") ? "nn.GRU" : "nn.LSTM";
    o->a = size_arg(in, a, 0, "input_size", 0, what);
    o->b = size_arg(in, a, 1, "hidden_size", 0, what);
    o->c = size_arg(in, a, 2, "num_layers", 1, what);
    o->p = num_or(a, -1, "dropout", 0);
    o->groups = bool_or(a, -1, "batch_first", false);
    o->k = eq(name, "GRU") ? 3 : 4;                          /* gates */
    o->stride = bool_or(a, -1, "bidirectional", false) ? 2 : 1;   /* directions */
    /* per layer and direction: W_ih (gates*h x in), W_hh (gates*h x h), two
     * biases; a later layer's input is the previous output, h per direction;
     * one parameter per layer holds both directions */
    for (int64_t l = 0; l < o->c && l < 11; l++) {
        int64_t inl = l ? o->b * o->stride : o->a;
        uint64_t gh = ck_mul((uint64_t)o->k, (uint64_t)o->b);
        uint64_t n = ck_add(ck_mul(gh, (uint64_t)(inl + o->b)), ck_mul(2, gh));
        o->wall[l] = o->b > 0 && o->a > 0 ? param(in, ck_mul(n, (uint64_t)o->stride)) : 0;
    }
    return m;
}

static AVal *nn_dropout(Interp *in, const char *name, Args *a)
{
    Obj *o;
    AVal *m = new_module(in, NN_DROPOUT, &o);
    (void)name;
    o->p = num_or(a, 0, "p", 0.5);
    return m;
}

static AVal *nn_pool(Interp *in, const char *name, Args *a)
{
    Obj *o;
    AVal *m = new_module(in, eq(name, "MaxPool2d") ? NN_MAXPOOL : NN_AVGPOOL, &o);
    o->k = (int)int_or(a, 0, "kernel_size", 2);
    o->stride = (int)int_or(a, 1, "stride", o->k);
    o->pad = (int)int_or(a, 2, "padding", 0);
    return m;
}

static AVal *nn_adaptive_pool(Interp *in, const char *name, Args *a)
{
    Obj *o;
    AVal *m = new_module(in, NN_ADAPTIVEPOOL, &o);
    (void)name;
    o->a = first_int(arg(a, 0, "output_size"), 1);
    return m;
}

/* Sequential(*modules) and ModuleList(modules) keep their modules in
 * "__items__" (a Sequential of an OrderedDict keeps none). */
static AVal *nn_container(Interp *in, const char *name, Args *a)
{
    Obj *o;
    AVal *m = new_module(in, eq(name, "Sequential") ? NN_SEQUENTIAL : NN_MODULELIST, &o);
    AVal *items;
    if (eq(name, "ModuleList")) {
        items = arg(a, 0, "modules");
        items = items ? iter_items(in, items) : NULL;
    } else {
        items = av_seq(in, a->n);
        for (uint32_t i = 0; i < a->n; i++)
            items->items[i] = a->v[i];
        if (a->n == 1 && a->v[0]->k == AV_DICT)
            items = av_seq(in, 0);
    }
    obj_set(in, o, "__items__", items ? items : av_seq(in, 0));
    return m;
}

static AVal *nn_module_dict(Interp *in, const char *name, Args *a)
{
    Obj *o;
    AVal *m = new_module(in, NN_MODULEDICT, &o);
    (void)name;
    AVal *d = arg(a, 0, "modules");
    obj_set(in, o, "__dict__", d ? d : av_unknown(in));
    return m;
}

static AVal *nn_mha(Interp *in, const char *name, Args *a)
{
    Obj *o;
    AVal *m = new_module(in, NN_MHA, &o);
    (void)name;
    o->a = size_arg(in, a, 0, "embed_dim", 0, "nn.MultiheadAttention");
    o->k = (int)size_arg(in, a, 1, "num_heads", 0, "nn.MultiheadAttention");
    o->p = num_or(a, 2, "dropout", 0);
    o->groups = bool_or(a, -1, "batch_first", false);
    mha_params(in, o, bool_or(a, 3, "bias", true));
    return m;
}

static AVal *nn_tlayer(Interp *in, const char *name, Args *a)
{
    Obj *o;
    AVal *m = new_module(in, NN_TLAYER, &o);
    (void)name;
    AVal *act = arg(a, 4, "activation");
    const char *what = "nn.TransformerEncoderLayer";
    tlayer_init(in, o, size_arg(in, a, 0, "d_model", 0, what), (int)size_arg(in, a, 1, "nhead", 0, what),
                size_arg(in, a, 2, "dim_feedforward", 2048, what), num_or(a, 3, "dropout", 0.1),
                act && ((act->k == AV_STR && strcmp(act->s, "gelu") == 0) ||
                        (act->k == AV_QUAL && strstr(act->s, "gelu"))),
                bool_or(a, -1, "batch_first", false), bool_or(a, -1, "norm_first", false));
    return m;
}

static AVal *nn_tencoder(Interp *in, const char *name, Args *a)
{
    /* num_layers deep copies of the layer given (which itself is not part
     * of the model): each copy has its own parameters */
    Obj *o;
    AVal *m = new_module(in, NN_SEQUENTIAL, &o);
    (void)name;
    AVal *layer = arg(a, 0, "encoder_layer");
    int64_t n = int_or(a, 1, "num_layers", 1);
    AVal *norm = arg(a, 2, "norm");
    if (!layer || layer->k != AV_OBJECT || layer->obj->nn != NN_TLAYER || n < 1 || n > 4096)
        return av_obj(in, NN_OPAQUE);
    Obj *t = layer->obj;
    tlayer_drop(in, t);
    bool has_norm = norm && norm->k == AV_OBJECT;
    AVal *items = av_seq(in, (uint32_t)n + has_norm);
    for (int64_t i = 0; i < n; i++) {
        AVal *c = av_obj(in, NN_TLAYER);
        tlayer_init(in, c->obj, t->a, t->k, t->b, t->p, t->c, t->groups, t->stride);
        items->items[i] = c;
    }
    if (has_norm)
        items->items[n] = norm;
    obj_set(in, o, "__items__", items);
    return m;
}

static AVal *nn_parameter(Interp *in, const char *name, Args *a)
{
    AVal *t = arg(a, 0, "data");
    AVal *p = av_new(in, AV_PARAM);
    (void)name;
    p->param = t && t->k == AV_TENSOR ? param(in, numel_of(t)) : 0;
    if (t && t->k == AV_TENSOR) {
        p->nd = t->nd;
        memcpy(p->dim, t->dim, sizeof p->dim);
    }
    return p;
}

/* Modules without parameters: activations, losses, Flatten, Identity.
 * LogSoftmax, Flatten's start_dim and inplace= ride in spare fields. */
static AVal *nn_simple(Interp *in, const char *name, Args *a)
{
    static const struct { const char *name; NnKind kind; } simple[] = {
        {"ReLU", NN_RELU}, {"GELU", NN_GELU}, {"SiLU", NN_SILU}, {"Tanh", NN_TANH},
        {"Sigmoid", NN_SIGMOID}, {"Softmax", NN_SOFTMAX}, {"LogSoftmax", NN_SOFTMAX},
        {"Flatten", NN_FLATTEN}, {"Identity", NN_IDENTITY}, {"CrossEntropyLoss", NN_CE_LOSS},
        {"NLLLoss", NN_NLL_LOSS}, {"MSELoss", NN_MSE_LOSS}, {"L1Loss", NN_MSE_LOSS},
        {"ReLU6", NN_RELU}, {"LeakyReLU", NN_RELU}, {"ELU", NN_RELU}, {"Mish", NN_SILU},
        {"Hardswish", NN_SILU}, {"Softplus", NN_SILU}, {"BCELoss", NN_MSE_LOSS},
        {"BCEWithLogitsLoss", NN_MSE_LOSS}, {"SmoothL1Loss", NN_MSE_LOSS}, {"HuberLoss", NN_MSE_LOSS},
        {"KLDivLoss", NN_MSE_LOSS},
    };
    for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++)
        if (eq(name, simple[i].name)) {
            Obj *o;
            AVal *m = new_module(in, simple[i].kind, &o);
            o->groups = eq(name, "LogSoftmax");
            o->k = (int)int_or(a, -1, "start_dim", 1);
            o->stride = bool_or(a, 0, "inplace", false);
            return m;
        }
    return NULL;
}

typedef AVal *NnCtor(Interp *in, const char *name, Args *a);

AVal *nn_module(Interp *in, const char *name, Args *a)
{
    static const struct { const char *name; NnCtor *ctor; } ctors[] = {
        {"Linear", nn_linear}, {"Embedding", nn_embedding}, {"LayerNorm", nn_norm},
        {"RMSNorm", nn_norm}, {"GroupNorm", nn_norm}, {"ConvTranspose2d", nn_conv_transpose},
        {"Conv2d", nn_conv}, {"Conv1d", nn_conv}, {"BatchNorm2d", nn_batch_norm},
        {"BatchNorm1d", nn_batch_norm}, {"LSTM", nn_rnn}, {"GRU", nn_rnn}, {"Dropout", nn_dropout},
        {"Dropout2d", nn_dropout}, {"Dropout1d", nn_dropout}, {"MaxPool2d", nn_pool},
        {"AvgPool2d", nn_pool}, {"AdaptiveAvgPool2d", nn_adaptive_pool}, {"Sequential", nn_container},
        {"ModuleList", nn_container}, {"ModuleDict", nn_module_dict}, {"MultiheadAttention", nn_mha},
        {"TransformerEncoderLayer", nn_tlayer}, {"TransformerEncoder", nn_tencoder},
        {"Parameter", nn_parameter},
    };
    for (size_t i = 0; i < sizeof ctors / sizeof ctors[0]; i++)
        if (eq(name, ctors[i].name))
            return ctors[i].ctor(in, name, a);
    AVal *m = nn_simple(in, name, a);
    if (m)
        return m;
    if (name[0] >= 'A' && name[0] <= 'Z')
        interp_note(in, 0, arena_printf(in->a, "torch.nn.%s is not modelled: its parameters and "
                                               "activations are missing", name));
    return av_obj(in, NN_OPAQUE);
}

void tie_weight(Interp *in, Obj *m, const char *name, AVal *v)
{
    if ((eq(name, "weight") || eq(name, "bias")) && v->k == AV_PARAM) {
        uint32_t *slot = eq(name, "weight") ? &m->w : &m->bias;
        if (*slot != v->param)
            tr_param_drop(in->tr, *slot);
        *slot = v->param;
        return;
    }
    obj_set(in, m, name, v);
}

/* ---- modules ---------------------------------------------------------------------------- */

/* F.multi_head_attention_forward as nn.MultiheadAttention runs it in
 * training, self-attention: the packed in-projection and its contiguous
 * (3, S, N, E) copy; with need_weights=False scaled_dot_product_attention,
 * else the explicit path (q scaled, bmm, softmax, dropout, bmm) that
 * materialises the (N*heads, S, S) weights. *weights gets the head-averaged
 * weights, or 0. */
static TId mha_forward(Interp *in, Obj *o, TId x, bool need_weights, TId *weights)
{
    Trace *tr = in->tr;
    int64_t e = o->a, h = o->k > 0 ? o->k : 1, hd = e / h;
    bool batch_first = o->groups;
    int64_t S = tr_dim(tr, x, batch_first ? 1 : 0), N = tr_dim(tr, x, batch_first ? 0 : 1);
    int64_t fold[2] = {S * N, e};
    TId src = x;
    if (batch_first) {
        /* query.transpose(1, 0) is not contiguous: the projection's matmul
         * folds it into a (S*N, E) copy (16-bit under autocast) and saves that */
        if (tr->autocast_on)
            src = tr_cast(tr, src, tr->autocast);
        src = tr_copy(tr, src, 2, fold);
    }
    TId qkv = tr_linear(tr, src, 3 * e, o->wall[0], o->wall[1]);
    int64_t packed[4] = {3, S, N, e};
    qkv = tr_copy(tr, qkv, 4, packed);
    TId y;
    *weights = 0;
    if (!need_weights) {
        int64_t hv[4] = {N, h, S, hd};
        TId q = tr_view(tr, qkv, 4, hv), k = tr_view(tr, qkv, 4, hv), v = tr_view(tr, qkv, 4, hv);
        y = tr_sdpa(tr, q, k, v, tr->training ? o->p : 0);
        DType dt = tr_dtype(tr, y);
        /* the 16-bit kernels write the (S, N, heads, hd) layout the permute asks for */
        y = dt == DT_F16 || dt == DT_BF16 ? tr_view(tr, y, 2, fold) : tr_copy(tr, y, 2, fold);
    } else {
        int64_t bh[3] = {N * h, S, hd}, kt[3] = {N * h, hd, S};
        TId q = tr_view(tr, qkv, 3, bh), k = tr_view(tr, qkv, 3, kt), v = tr_view(tr, qkv, 3, bh);
        TId att = tr_matmul(tr, tr_scale(tr, q), k);
        att = tr_softmax(tr, att, false);
        att = tr_dropout(tr, att, o->p);
        y = tr_matmul(tr, att, v);
        y = tr_copy(tr, y, 2, fold);   /* transpose(0, 1).contiguous().view(S*N, E) */
        int64_t wd[3] = {N, S, S};
        *weights = tr_new(tr, tr_dtype(tr, att), 3, wd);   /* averaged over the heads */
    }
    TId out = tr_linear(tr, y, e, o->wall[2], o->wall[3]);
    int64_t d3[3] = {batch_first ? N : S, batch_first ? S : N, e};
    return tr_view(tr, out, 3, d3);
}

/* nn.TransformerEncoderLayer in training (not the inference fast path):
 * self-attention without weights, dropout, residual, LayerNorm (after, or
 * before with norm_first), then linear1, activation, dropout, linear2,
 * dropout, residual, LayerNorm. */
static TId tlayer_forward(Interp *in, Obj *o, TId x)
{
    Trace *tr = in->tr;
    TId w;
    bool pre = o->stride;
    TId h = pre ? tr_layer_norm(tr, x, o->wall[8], o->wall[9]) : x;
    TId sa = tr_dropout(tr, mha_forward(in, o, h, false, &w), o->p);
    x = tr_add(tr, x, sa);
    if (!pre)
        x = tr_layer_norm(tr, x, o->wall[8], o->wall[9]);
    h = pre ? tr_layer_norm(tr, x, o->wall[10], o->wall[11]) : x;
    TId f = tr_linear(tr, h, o->b, o->wall[4], o->wall[5]);
    f = tr_act(tr, f, o->c ? ACT_GELU : ACT_RELU, false);
    f = tr_dropout(tr, f, o->p);
    f = tr_linear(tr, f, o->a, o->wall[6], o->wall[7]);
    f = tr_dropout(tr, f, o->p);
    x = tr_add(tr, x, f);
    return pre ? x : tr_layer_norm(tr, x, o->wall[10], o->wall[11]);
}

static AVal *lstm_call(Interp *in, Obj *m, AVal *x)
{
    TId t = av_gpu(in, x);
    if (!t)
        return av_unknown(in);
    if (!m->groups && in->tr->t.v[t].nd == 3) {
        /* (seq, batch, in): the same bytes either way */
    }
    AVal *out = av_seq(in, 2);
    out->items[0] = tensor_result(in, tr_lstm(in->tr, t, m->b, (int)m->c, m->k, m->stride, m->p, m->wall));
    out->items[1] = av_unknown(in);
    return out;
}

/* The layers that map one GPU tensor to one; 0 when the shape does not fit. */
static TId layer_forward(Interp *in, Obj *m, TId t)
{
    Trace *tr = in->tr;
    switch (m->nn) {
    case NN_LINEAR: return tr_linear(tr, t, m->b, m->w, m->bias);
    case NN_EMBEDDING: return tr_embedding(tr, t, m->b, m->w);
    case NN_LAYERNORM: case NN_RMSNORM: return tr_layer_norm(tr, t, m->w, m->bias);
    case NN_CONV2D: return tr_conv2d(tr, t, m->b, m->k, m->stride, m->pad, m->groups, m->w, m->bias);
    case NN_CONVT2D:
        return tr->t.v[t].nd == 4
                   ? tr_conv_transpose2d(tr, t, m->b, m->k, m->stride, m->pad, (int)m->c, m->w, m->bias)
                   : 0;
    case NN_BATCHNORM: return tr_batch_norm(tr, t, m->w, m->bias);
    case NN_DROPOUT: return tr_dropout(tr, t, m->p);
    case NN_SOFTMAX: return tr_softmax(tr, t, m->groups);
    case NN_MAXPOOL: case NN_AVGPOOL:
        return tr_pool2d(tr, t, m->k, m->stride, m->pad, m->nn == NN_MAXPOOL);
    case NN_ADAPTIVEPOOL: return tr_adaptive_pool(tr, t, m->a, m->a);
    case NN_TLAYER: return tr->t.v[t].nd == 3 ? tlayer_forward(in, m, t) : 0;
    case NN_MSE_LOSS: return tr_mse(tr, t);
    default: return 0;
    }
}

static AVal *sequential_call(Interp *in, Obj *m, AVal *x)
{
    AVal *items = obj_get(m, "__items__");
    AVal *cur = x ? x : av_unknown(in);
    for (uint32_t i = 0; items && i < items->n && !interp_error(in); i++) {
        Args one = {{cur}, {NULL}, 1};
        cur = call_value(in, items->items[i], &one);
    }
    return cur;
}

/* nn.MultiheadAttention returns (output, weights or None). */
static AVal *mha_call(Interp *in, Obj *m, AVal *x, Args *a)
{
    TId t = av_gpu(in, x), weights;
    if (!t || in->tr->t.v[t].nd != 3)
        return av_unknown(in);
    AVal *pair = av_seq(in, 2);
    pair->items[0] = tensor_result(in, mha_forward(in, m, t, bool_or(a, -1, "need_weights", true), &weights));
    pair->items[1] = weights ? tensor_result(in, weights) : av_none(in);
    return pair;
}

AVal *module_call(Interp *in, Obj *m, Args *a)
{
    AVal *x = arg(a, 0, NULL);
    if (m->nn < NN_SEQUENTIAL && (!x || x->k != AV_TENSOR))
        interp_lost_here(in, "a layer's input is not a tensor pfc could follow");
    switch (m->nn) {
    case NN_LINEAR: case NN_EMBEDDING: case NN_LAYERNORM: case NN_RMSNORM: case NN_CONV2D:
    case NN_CONVT2D: case NN_BATCHNORM: case NN_DROPOUT: case NN_SOFTMAX: case NN_MAXPOOL:
    case NN_AVGPOOL: case NN_ADAPTIVEPOOL: case NN_TLAYER: case NN_MSE_LOSS: {
        TId t = av_gpu(in, x);
        return tensor_result(in, t ? layer_forward(in, m, t) : 0);
    }
    case NN_LSTM: return lstm_call(in, m, x);
    case NN_RELU: return act(in, x, ACT_RELU, m->stride);
    case NN_GELU: return act(in, x, ACT_GELU, false);
    case NN_SILU: return act(in, x, ACT_SILU, false);
    case NN_TANH: return act(in, x, ACT_TANH, false);
    case NN_SIGMOID: return act(in, x, ACT_SIGMOID, false);
    case NN_FLATTEN: {
        Args f = {{av_int(in, m->k)}, {NULL}, 1};
        return x ? method_call(in, x, "flatten", &f) : av_unknown(in);
    }
    case NN_SEQUENTIAL: return sequential_call(in, m, x);
    case NN_IDENTITY: return x ? x : av_unknown(in);
    case NN_MHA: return mha_call(in, m, x, a);
    case NN_CE_LOSS: return cross_entropy(in, x, arg(a, 1, "target"));
    case NN_NLL_LOSS: return nll_loss(in, x, arg(a, 1, "target"));
    case NN_HF: case NN_VISION:
        return in->hooks.call_model ? in->hooks.call_model(in->hooks.ctx, in, m, a->v, a->kw, a->n)
                                    : av_unknown(in);
    default:
        return av_unknown(in);
    }
}

/* register_buffer(name, tensor): the tensor moves to the GPU with the
 * module and is kept under name. */
static void register_buffer(Interp *in, AVal *self, Args *a)
{
    AVal *n = arg(a, 0, "name"), *t = arg(a, 1, "tensor");
    if (!n || n->k != AV_STR || !t)
        return;
    if (t->k == AV_TENSOR) {
        tr_buffer(in->tr, numel_of(t) * dtype_size((DType)t->dtype));
        AVal *g = av_new(in, AV_TENSOR);
        *g = *t;
        g->gpu = true;
        int64_t dim[TR_MAXDIM];
        memcpy(dim, t->dim, sizeof dim);
        g->t = tr_new(in->tr, (DType)t->dtype, t->nd, dim);
        /* a buffer is persistent: its bytes are counted with the weights */
        in->tr->t.v[g->t].kept = false;
        g->t = tr_detach(in->tr, g->t);
        t = g;
    }
    obj_set(in, self->obj, n->s, t);
}

/* ModuleList / Sequential .append(m): a new items list, one longer. */
static void append_module(Interp *in, AVal *self, Args *a)
{
    AVal *items = obj_get(self->obj, "__items__");
    AVal *s = av_seq(in, (items ? items->n : 0) + 1);
    if (items)
        memcpy(s->items, items->items, items->n * sizeof *s->items);
    s->items[s->n - 1] = arg(a, 0, NULL) ? arg(a, 0, NULL) : av_unknown(in);
    obj_set(in, self->obj, "__items__", s);
}

/* Methods every nn.Module has. */
AVal *module_method(Interp *in, AVal *self, const char *name, Args *a)
{
    if (eq(name, "to") || eq(name, "cuda") || eq(name, "cpu") || eq(name, "half") || eq(name, "float") ||
        eq(name, "bfloat16") || eq(name, "train") || eq(name, "eval") || eq(name, "requires_grad_") ||
        eq(name, "apply") || eq(name, "double"))
        return self;
    if (eq(name, "register_buffer")) {
        register_buffer(in, self, a);
        return av_none(in);
    }
    if (eq(name, "add_module") || eq(name, "register_module")) {
        AVal *n = arg(a, 0, NULL), *m = arg(a, 1, NULL);
        if (n && n->k == AV_STR && m)
            obj_set(in, self->obj, n->s, m);
        return av_none(in);
    }
    if (eq(name, "forward") || eq(name, "__call__"))
        return call_value(in, self, a);
    if (eq(name, "append") && (self->obj->nn == NN_MODULELIST || self->obj->nn == NN_SEQUENTIAL)) {
        append_module(in, self, a);
        return av_none(in);
    }
    return av_unknown(in);
}

/* An attribute of a library module: set ones first, then weight and bias
 * (as out x in), ModuleDict entries, Linear's sizes. */
AVal *module_attr(Interp *in, AVal *base, const char *name)
{
    Obj *o = base->obj;
    AVal *v = obj_get(o, name);
    if (v)
        return v;
    if (eq(name, "weight") || eq(name, "bias")) {
        AVal *p = av_new(in, AV_PARAM);
        p->param = eq(name, "weight") ? o->w : o->bias;
        p->nd = 2;
        p->dim[0] = o->b;
        p->dim[1] = o->a;
        return p;
    }
    if (o->nn == NN_MODULEDICT) {
        AVal *d = obj_get(o, "__dict__");
        for (uint32_t i = 0; d && d->k == AV_DICT && i < d->n; i++)
            if (eq(d->keys[i], name))
                return d->items[i];
    }
    if (o->nn == NN_LINEAR && eq(name, "out_features"))
        return av_int(in, o->b);
    if (o->nn == NN_LINEAR && eq(name, "in_features"))
        return av_int(in, o->a);
    if (eq(name, "training"))
        return av_bool(in, in->tr->training);
    return av_bound(in, base, name);
}
