/* torch.nn modules: constructors (the parameters they register) and
 * forwards of the built-in layers (Linear, Conv, norms, RNNs, containers),
 * and module methods and attributes. Attention and the Transformer modules
 * are in torchlib_transformer.c. */
#include "torchlib.h"
#include <math.h>
#include <stdlib.h>

/* ---- torch.nn constructors -------------------------------------------------------------- */

static uint32_t param(Interp *in, uint64_t n) { return n ? tr_param(in->tr, n) : 0; }

/* A weight of a x b (x c x d) elements: saturating, so that an absurd size
 * is refused by the trace instead of wrapping to a small one. */
uint32_t param4(Interp *in, int64_t a, int64_t b, int64_t c, int64_t d)
{
    if (a <= 0 || b <= 0 || c <= 0 || d <= 0)
        return 0;
    return param(in, ck_mul(ck_mul((uint64_t)a, (uint64_t)b), ck_mul((uint64_t)c, (uint64_t)d)));
}

uint32_t *weight_slots(Interp *in, Obj *o, uint32_t n)
{
    o->wall = arena_zalloc(in->a, (n ? n : 1) * sizeof *o->wall);
    o->nwall = n;
    return o->wall;
}

static AVal *new_module(Interp *in, NnKind kind, Obj **o)
{
    AVal *m = av_obj(in, kind);
    *o = m->obj;
    return m;
}

/* A flag that changes what a module registers (bias=, affine=): a value
 * pfc cannot read takes the default, and the report says so. */
bool flag_arg(Interp *in, const Args *a, int pos, const char *kw, bool dflt, const char *module)
{
    AVal *v = arg(a, pos, kw);
    bool known = false, t = v ? av_truth(v, &known) : false;
    if (!v || known)
        return v ? t : dflt;
    interp_note(in, in->cur_node, arena_printf(in->a, "%s's %s%s is not a value pfc can read: taken as %s "
                                                      "(its default)", module, kw, arg_shown(in, pos, kw),
                                               dflt ? "True" : "False"));
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
    o->bias = flag_arg(in, a, 2, "bias", true, "nn.Linear") ? param4(in, o->b, 1, 1, 1) : 0;
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

/* nn.Embedding.from_pretrained(embeddings, freeze=True): a table of the
 * tensor's (num, dim) shape, frozen unless freeze=False. */
AVal *nn_embedding_from_pretrained(Interp *in, Args *a)
{
    Obj *o;
    AVal *m = new_module(in, NN_EMBEDDING, &o);
    AVal *t = arg(a, 0, "embeddings");
    if (!t || t->k != AV_TENSOR || t->nd != 2) {
        refuse(in, arena_printf(in->a, "nn.Embedding.from_pretrained's embeddings are not a 2-D tensor whose shape "
                                       "pfc can read%s", arg_shown(in, 0, "embeddings")));
        return m;
    }
    o->a = t->dim[0];
    o->b = t->dim[1];
    bool was = in->tr->frozen;
    in->tr->frozen = was || flag_arg(in, a, 1, "freeze", true, "nn.Embedding.from_pretrained");
    o->w = param4(in, o->a, o->b, 1, 1);
    in->tr->frozen = was;
    return m;
}

/* The elements one norm covers: the product of normalized_shape (GroupNorm:
 * num_channels, its second argument), each a positive size; a shape pfc
 * cannot read is refused, as a module size is. */
static int64_t norm_size(Interp *in, Args *a, const char *name)
{
    bool group = eq(name, "GroupNorm");
    int pos = group ? 1 : 0;
    const char *kw = group ? "num_channels" : "normalized_shape";
    const char *what = arena_printf(in->a, "nn.%s", name);
    AVal *v = arg(a, pos, kw);
    if (!v || v->k != AV_SEQ)
        return size_arg(in, a, pos, kw, 0, what);
    uint64_t n = 1;
    for (uint32_t i = 0; i < v->n; i++) {
        Args one = {{v->items[i]}, {NULL}, 1};
        int64_t d = av_int_of(v->items[i], &(int64_t){0}) ? size_arg(in, &one, 0, kw, 0, what) : 0;
        if (!d) {
            if (!interp_error(in))
                refuse_unread(in, v, pos, kw, what);
            return 0;
        }
        n = ck_mul(n, (uint64_t)d);
    }
    if (!v->n || n > CK_NUMEL_MAX) {
        refuse(in, arena_printf(in->a, "%s's %s is not a shape pfc can estimate", what, kw));
        return 0;
    }
    return (int64_t)n;
}

/* LayerNorm, RMSNorm (no bias) and GroupNorm (its channels come second). */
static AVal *nn_norm(Interp *in, const char *name, Args *a)
{
    Obj *o;
    AVal *m = new_module(in, eq(name, "RMSNorm") ? NN_RMSNORM : NN_LAYERNORM, &o);
    const char *what = arena_printf(in->a, "nn.%s", name);
    o->a = norm_size(in, a, name);
    bool affine = flag_arg(in, a, -1, "elementwise_affine", true, what) && flag_arg(in, a, -1, "affine", true, what);
    o->w = affine ? param4(in, o->a, 1, 1, 1) : 0;
    bool bias = affine && !eq(name, "RMSNorm") && flag_arg(in, a, -1, "bias", true, what);
    o->bias = bias ? param4(in, o->a, 1, 1, 1) : 0;
    return m;
}

/* BatchNorm1d/2d/3d(num_features, eps, momentum, affine, track_running_stats):
 * the running mean and variance (fp32) and num_batches_tracked (int64)
 * are buffers unless track_running_stats=False. o->k: the spatial
 * dimensions the name gives (SyncBatchNorm: 0, any). */
static AVal *nn_batch_norm(Interp *in, const char *name, Args *a)
{
    Obj *o;
    AVal *m = new_module(in, NN_BATCHNORM, &o);
    const char *what = arena_printf(in->a, "nn.%s", name);
    o->k = eq(name, "BatchNorm1d") ? 1 : eq(name, "BatchNorm2d") ? 2 : eq(name, "BatchNorm3d") ? 3 : 0;
    o->a = size_arg(in, a, 0, "num_features", 0, what);
    bool affine = flag_arg(in, a, 3, "affine", true, what);
    o->w = affine ? param4(in, o->a, 1, 1, 1) : 0;
    o->bias = affine ? param4(in, o->a, 1, 1, 1) : 0;
    if (flag_arg(in, a, 4, "track_running_stats", true, what)) {
        tr_buffer(in->tr, (uint64_t)o->a * 4);
        tr_buffer(in->tr, (uint64_t)o->a * 4);
        tr_buffer(in->tr, 8);
    }
    return m;
}

/* BatchNorm1d takes (N, C) or (N, C, L), 2d (N, C, H, W), 3d (N, C, D, H,
 * W); torch refuses other ranks, and so does pfc. */
static TId batch_norm_forward(Interp *in, Obj *m, TId t)
{
    int nd = in->tr->t.v[t].nd;
    bool fits = m->k == 0 ? nd >= 2 : m->k == 1 ? nd == 2 || nd == 3 : nd == m->k + 2;
    if (!fits) {
        refuse(in, arena_printf(in->a, "nn.BatchNorm%dd expects a %s input, not a %d-D one: torch refuses it", m->k,
                                m->k == 1 ? "2-D or 3-D" : m->k == 2 ? "4-D" : "5-D", nd));
        return 0;
    }
    return tr_batch_norm(in->tr, t, m->w, m->bias);
}

/* LSTM, GRU and RNN: per layer, gates x hidden rows over (input + hidden)
 * plus two bias vectors; kept in wall[], one per layer. A plain RNN's one
 * "gate" is its tanh; its reserve space is taken as the gated ones' (cuDNN
 * keeps each step's activations), which is unmeasured. */
static AVal *nn_rnn(Interp *in, const char *name, Args *a)
{
    Obj *o;
    AVal *m = new_module(in, NN_LSTM, &o);
    const char *what = arena_printf(in->a, "nn.%s", name);
    o->a = size_arg(in, a, 0, "input_size", 0, what);
    o->b = size_arg(in, a, 1, "hidden_size", 0, what);
    o->c = size_arg(in, a, 2, "num_layers", 1, what);
    o->p = dropout_p(in, a, -1, "dropout", 0, what);
    o->groups = flag_arg(in, a, -1, "batch_first", false, what);
    o->k = eq(name, "GRU") ? 3 : eq(name, "RNN") ? 1 : 4;          /* gates */
    /* directions: twice the weights or not, not a default to assume */
    AVal *bi = arg(a, -1, "bidirectional");
    bool known = true, two = bi && av_truth(bi, &known);
    if (!known)
        refuse(in, arena_printf(in->a, "%s's bidirectional is not a value pfc can read%s", what,
                                arg_shown(in, -1, "bidirectional")));
    o->stride = two ? 2 : 1;
    if (o->c > NN_MAX_LAYERS) {
        refuse(in, arena_printf(in->a, "%s's num_layers is %lld: more layers than pfc can estimate (%d)", what,
                                (long long)o->c, NN_MAX_LAYERS));
        o->c = 1;
    }
    weight_slots(in, o, (uint32_t)o->c);
    /* per layer and direction: W_ih (gates*h x in), W_hh (gates*h x h), two
     * biases; a later layer's input is the previous output, h per direction;
     * one parameter per layer holds both directions */
    for (int64_t l = 0; l < o->c; l++) {
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
    o->p = dropout_p(in, a, 0, "p", 0.5, "nn.Dropout");
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

static AVal *nn_parameter(Interp *in, const char *name, Args *a)
{
    AVal *t = arg(a, 0, "data");
    AVal *p = av_new(in, AV_PARAM);
    (void)name;
    if (!t || t->k != AV_TENSOR) {   /* a parameter of no size would be a silent zero */
        refuse(in, arena_printf(in->a, "nn.Parameter's data is not a tensor whose shape pfc can read%s",
                                arg_shown(in, 0, "data")));
        return p;
    }
    p->param = param(in, numel_of(t));
    p->nd = t->nd;
    memcpy(p->dim, t->dim, sizeof p->dim);
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

/* torch.nn layers that register no parameters and that pfc does not model: each is run as an elementwise
 * op the report lists, so the tensor it receives is not lost. */
static bool parameterless(const char *name)
{
    static const char *const names[] = {
        "Unflatten", "LPPool1d", "LPPool2d", "LPPool3d", "FractionalMaxPool2d",
        "FractionalMaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d",
        "Hardtanh", "Hardsigmoid", "Hardshrink", "Softshrink", "Tanhshrink", "Softsign", "Threshold",
        "GLU", "Softmin", "Softmax2d", "LogSigmoid", "CELU", "SELU", "RReLU", "AlphaDropout",
        "FeatureAlphaDropout", "ChannelShuffle", "LocalResponseNorm", "CosineSimilarity",
        "PairwiseDistance", "Fold", "Unfold",
    };
    if (ends(name, "Loss"))
        return true;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (eq(name, names[i]))
            return true;
    return false;
}

/* A torch.nn class pfc does not model. One without parameters is taken as
 * elementwise where it is called; one with parameters is refused: an
 * estimate without them would be a confident wrong count. */
static AVal *unmodelled_module(Interp *in, const char *name, Args *a)
{
    AVal *m = av_obj(in, NN_OPAQUE);
    m->obj->is_module = true;   /* a torch.nn class */
    (void)a;
    if (parameterless(name)) {
        m->obj->a = OPAQUE_LAYER;
        m->obj->arch = arena_printf(in->a, "torch.nn.%s", name);
        return m;
    }
    refuse(in, arena_printf(in->a, "torch.nn.%s is not modelled: pfc cannot count its parameters", name));
    return m;
}

typedef AVal *NnCtor(Interp *in, const char *name, Args *a);

AVal *nn_module(Interp *in, const char *name, Args *a)
{
    static const struct { const char *name; NnCtor *ctor; } ctors[] = {
        {"Linear", nn_linear}, {"Embedding", nn_embedding}, {"LayerNorm", nn_norm}, {"RMSNorm", nn_norm},
        {"GroupNorm", nn_norm}, {"BatchNorm2d", nn_batch_norm}, {"BatchNorm1d", nn_batch_norm},
        {"BatchNorm3d", nn_batch_norm}, {"SyncBatchNorm", nn_batch_norm}, {"LSTM", nn_rnn}, {"GRU", nn_rnn},
        {"RNN", nn_rnn}, {"Dropout", nn_dropout}, {"Dropout2d", nn_dropout}, {"Dropout1d", nn_dropout},
        {"Dropout3d", nn_dropout},
        {"Sequential", nn_container}, {"ModuleList", nn_container}, {"ModuleDict", nn_module_dict},
        {"Parameter", nn_parameter},
    };
    for (size_t i = 0; i < sizeof ctors / sizeof ctors[0]; i++)
        if (eq(name, ctors[i].name))
            return ctors[i].ctor(in, name, a);
    AVal *m = window_module(in, name, a);
    if (!m)
        m = transformer_module(in, name, a);
    if (!m)
        m = nn_simple(in, name, a);
    if (m)
        return m;
    if (name[0] >= 'A' && name[0] <= 'Z')
        return unmodelled_module(in, name, a);
    m = av_obj(in, NN_OPAQUE);
    m->obj->is_module = true;   /* from torch.nn: taken for a module, as before */
    return m;
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

int module_batch_dim(const Obj *m)
{
    switch (m->nn) {
    case NN_LSTM: case NN_MHA: return !m->groups;
    case NN_TLAYER: case NN_TDLAYER: case NN_TSTACK: case NN_TRANSFORMER: return !transformer_batch_first(m);
    default: return 0;
    }
}

/* ---- modules ---------------------------------------------------------------------------- */

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
    case NN_BATCHNORM: return batch_norm_forward(in, m, t);
    case NN_DROPOUT: return tr_dropout(tr, t, m->p);
    case NN_SOFTMAX: return tr_softmax(tr, t, m->groups);
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

/* A library model records its parameters as it runs: frozen ones if the
 * script froze it before, and the range they take, for parameters(). */
static AVal *library_model_call(Interp *in, Obj *m, Args *a)
{
    if (!in->hooks.call_model)
        return av_unknown(in);
    uint32_t from = in->tr->params.n;
    bool was = in->tr->frozen;
    in->tr->frozen = was || m->frozen;
    AVal *r = in->hooks.call_model(in->hooks.ctx, in, m, a->v, a->kw, a->n);
    in->tr->frozen = was;
    in->tr->head_grad = HEAD_AS_MODEL;
    vision_rebind_head(in, m);
    if (m->params_to <= m->params_from) {
        m->params_from = from;
        m->params_to = in->tr->params.n;
    }
    return r;
}

AVal *module_call(Interp *in, Obj *m, Args *a)
{
    AVal *x = arg(a, 0, NULL);
    if (m->nn < NN_SEQUENTIAL && (!x || x->k != AV_TENSOR))
        interp_lost_here(in, "a layer's input is not a tensor pfc could follow");
    switch (m->nn) {
    case NN_CONV2D: case NN_CONVT2D: case NN_MAXPOOL: case NN_AVGPOOL: case NN_ADAPTIVEPOOL:
    case NN_ADAPTIVEMAX: case NN_INSTANCENORM: case NN_RESAMPLE: case NN_PIXELSHUFFLE: case NN_PAD:
        return window_module_call(in, m, x);
    case NN_LINEAR: case NN_EMBEDDING: case NN_LAYERNORM: case NN_RMSNORM: case NN_BATCHNORM:
    case NN_DROPOUT: case NN_SOFTMAX: case NN_MSE_LOSS: {
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
    case NN_MHA: case NN_TLAYER: case NN_TDLAYER: case NN_TSTACK: case NN_TRANSFORMER:
        return transformer_module_call(in, m, a);
    case NN_CE_LOSS: return cross_entropy(in, x, arg(a, 1, "target"));
    case NN_NLL_LOSS: return nll_loss(in, x, arg(a, 1, "target"));
    case NN_OPAQUE:
        return m->a == OPAQUE_LAYER ? assumed_op(in, x, m->arch) : av_unknown(in);
    case NN_HF: case NN_VISION: case NN_DIFFUSERS:
        return library_model_call(in, m, a);
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
        eq(name, "bfloat16") || eq(name, "train") || eq(name, "eval") || eq(name, "apply") ||
        eq(name, "double"))
        return self;
    if (eq(name, "requires_grad_"))
        return requires_grad_call(in, self, a);
    if (eq(name, "parameters") || eq(name, "named_parameters")) {
        AVal *prefix = arg(a, 0, "prefix");
        return module_parameters(in, self, eq(name, "named_parameters"),
                                 prefix && prefix->k == AV_STR ? prefix->s : NULL);
    }
    AVal *base = self->obj->nn == NN_NONE ? obj_get(self->obj, LIBRARY_BASE) : NULL;
    if (base)   /* a class of the project derived from a library module: the base's methods */
        return method_call(in, base, name, a);
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
    if (eq(name, "generate_square_subsequent_mask") && self->obj->nn == NN_TRANSFORMER)
        return square_subsequent_mask(in, a);
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
    AVal *lib = o->nn == NN_NONE ? obj_get(o, LIBRARY_BASE) : NULL;
    if (lib && (v = module_attr(in, lib, name))->k != AV_BOUND)   /* its library base's weight, sizes */
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
    if (o->nn == NN_VISION && (v = vision_head_attr(in, base, name)))
        return v;
    if (o->nn == NN_LINEAR && eq(name, "out_features"))
        return av_int(in, o->b);
    if (o->nn == NN_LINEAR && eq(name, "in_features"))
        return av_int(in, o->a);
    if (eq(name, "training"))
        return av_bool(in, in->tr->training);
    return av_bound(in, base, name);
}
