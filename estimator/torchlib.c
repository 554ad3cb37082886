/* The interpreter's library: what torch, torch.nn, torch.nn.functional,
 * tensor methods and torch.utils.data do to abstract values. Tensor ops go
 * through the trace (trace.c), which knows what autograd saves. */
#include "checked.h"
#include "interp_int.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool eq(const char *a, const char *b) { return a && strcmp(a, b) == 0; }

static AVal *transform(Interp *in, const char *name, Args *a);
static AVal *vision_dataset(Interp *in, const char *name, Args *a);

static bool ends(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0 && (n == k || s[n - k - 1] == '.');
}

/* The last component of a qualified name. */
static const char *leaf(const char *q)
{
    const char *d = strrchr(q, '.');
    return d ? d + 1 : q;
}

static bool in_ns(const char *q, const char *ns)
{
    size_t n = strlen(ns);
    return strncmp(q, ns, n) == 0 && q[n] == '.' && !strchr(q + n + 1, '.');
}

static AVal *arg(const Args *a, int pos, const char *kw) { return args_get(a, pos, kw); }

static bool int_arg(const Args *a, int pos, const char *kw, int64_t *out)
{
    AVal *v = arg(a, pos, kw);
    return v && av_int_of(v, out);
}

static int64_t int_or(const Args *a, int pos, const char *kw, int64_t dflt)
{
    int64_t v;
    return int_arg(a, pos, kw, &v) ? v : dflt;
}

/* Refuses the estimate (the trace keeps the first reason and the line of
 * the call being evaluated) and ends the interpretation. */
static void refuse(Interp *in, const char *why)
{
    tr_refuse(in->tr, why);
    interp_fail(in, in->tr->error);
}

/* A module's size (features, channels, embeddings, heads): a positive
 * integer up to CK_DIM_MAX. A value pfc cannot see gives dflt (0: the module
 * has no weight of that size, as when the sizes are unknown); a missing
 * required one, a non-integer, zero, a negative number or an absurd one
 * is a refusal with the module and argument named. */
static int64_t size_arg(Interp *in, const Args *a, int pos, const char *kw, int64_t dflt, const char *module)
{
    AVal *v = arg(a, pos, kw);
    int64_t n;
    if (!v && !dflt) {
        refuse(in, arena_printf(in->a, "%s lacks its %s", module, kw));
        return 0;
    }
    if (!v || (v->k != AV_INT && v->k != AV_FLOAT && v->k != AV_BOOL))
        return dflt;
    if (!av_int_of(v, &n)) {
        if (v->k == AV_FLOAT && fabs(v->f) < 1e15)
            refuse(in, arena_printf(in->a, "%s's %s is %g, not an integer", module, kw, v->f));
        else
            refuse(in, arena_printf(in->a, "%s's %s is %g: too large to estimate", module, kw, v->f));
        return 0;
    }
    if (n <= 0) {
        refuse(in, arena_printf(in->a, "%s's %s is %lld, not a positive integer", module, kw, (long long)n));
        return 0;
    }
    if (n > CK_DIM_MAX) {
        refuse(in, arena_printf(in->a, "%s's %s is %lld: too large to estimate", module, kw, (long long)n));
        return 0;
    }
    return n;
}

/* A count the script gives where zero is meaningful (padding, layers past
 * the first): 0 .. CK_DIM_MAX, else refused like size_arg. */
static int64_t count_arg(Interp *in, const Args *a, int pos, const char *kw, int64_t dflt, const char *module)
{
    AVal *v = arg(a, pos, kw);
    int64_t n;
    if (!v || !av_int_of(v, &n))
        return dflt;
    if (n < 0 || n > CK_DIM_MAX) {
        refuse(in, arena_printf(in->a, "%s's %s is %lld, not a count pfc can estimate", module, kw, (long long)n));
        return dflt;
    }
    return n;
}

static double num_or(const Args *a, int pos, const char *kw, double dflt)
{
    double v;
    AVal *x = arg(a, pos, kw);
    return x && av_num(x, &v) ? v : dflt;
}

static bool bool_or(const Args *a, int pos, const char *kw, bool dflt)
{
    AVal *x = arg(a, pos, kw);
    bool known;
    bool t = x ? av_truth(x, &known) : (known = false);
    return known ? t : dflt;
}

/* A dtype named by a value: torch.bfloat16, "bfloat16", AV_DTYPE. */
static bool dtype_of(const AVal *v, DType *out)
{
    if (!v)
        return false;
    if (v->k == AV_DTYPE) {
        *out = (DType)v->dtype;
        return true;
    }
    const char *s = v->k == AV_QUAL || v->k == AV_STR ? v->s : NULL;
    if (!s)
        return false;
    const char *l = leaf(s);
    static const struct { const char *name; DType dt; } names[] = {
        {"float32", DT_F32}, {"float", DT_F32}, {"bfloat16", DT_BF16}, {"float16", DT_F16},
        {"half", DT_F16}, {"int64", DT_I64}, {"long", DT_I64}, {"bool", DT_BOOL}, {"uint8", DT_U8},
        {"int32", DT_I64}, {"int", DT_I64},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (eq(l, names[i].name)) {
            *out = names[i].dt;
            return true;
        }
    return false;
}

/* Whether a device value means the GPU. */
static bool device_is_gpu(const AVal *v)
{
    if (!v)
        return false;
    if (v->k == AV_DEVICE)
        return v->i != 0;
    if (v->k == AV_STR)
        return v->s && strncmp(v->s, "cuda", 4) == 0;
    if (v->k == AV_INT)
        return true;   /* a device index */
    return v->k == AV_UNKNOWN;   /* `device` we cannot see: the script's target */
}

/* ---- tensors: shapes -------------------------------------------------------------------- */

static AVal *tensor_result(Interp *in, TId t) { return t ? av_tensor_of(in, t) : av_unknown(in); }

/* A new tensor of the given shape made from x by a copy that autograd
 * needs nothing for (repeat, pad, flip): on the GPU when x is. */
static AVal *copy_shaped(Interp *in, AVal *x, int nd, const int64_t *dim)
{
    if (!x->gpu)
        return av_tensor_new(in, (DType)x->dtype, nd, dim, false);
    return tensor_result(in, tr_copy(in->tr, x->t, nd, dim));
}

/* An op on a tensor that pfc does not model. Rather than losing the tensor
 * (and with it everything computed from it), it is taken as elementwise:
 * the same shape and dtype, its input kept for the backward (what most ops
 * keep), and the report lists it with its line. */
static AVal *assumed_op(Interp *in, AVal *x, const char *what)
{
    if (!x || x->k != AV_TENSOR)
        return av_unknown(in);
    if (!x->gpu)
        return av_tensor_new(in, (DType)x->dtype, x->nd, x->dim, false);
    interp_note(in, in->cur_node, arena_printf(in->a, "%s is not modelled: taken as elementwise "
                                               "(same shape, its input kept for the backward)", what));
    return tensor_result(in, tr_assumed(in->tr, what, av_gpu(in, x)));
}

/* One size of a shape: an int, or a number that is none (1.5, 2**64) as
 * TR_NOT_INT, which the shape check refuses; false when unknown. */
static bool shape_item(const AVal *v, int64_t *out)
{
    if (av_int_of(v, out))
        return true;
    if (v->k != AV_FLOAT)
        return false;
    *out = TR_NOT_INT;
    return true;
}

/* A shape given as varargs ints or one tuple/list/torch.Size. */
static int shape_args(const Args *a, int from, int64_t *dim)
{
    int nd = 0;
    AVal *first = arg(a, from, NULL);
    if (first && first->k == AV_SEQ) {
        for (uint32_t i = 0; i < first->n && nd < TR_MAXDIM; i++)
            if (!shape_item(first->items[i], &dim[nd++]))
                return -1;
        return nd;
    }
    for (int i = from; nd < TR_MAXDIM; i++) {
        AVal *v = arg(a, i, NULL);
        if (!v)
            break;
        if (!shape_item(v, &dim[nd++]))
            return -1;
    }
    return nd;
}

static AVal *shape_value(Interp *in, const AVal *x)
{
    AVal *s = av_seq(in, x->nd);
    for (int i = 0; i < x->nd; i++)
        s->items[i] = av_int(in, x->dim[i]);
    return s;
}

static uint64_t numel_of(const AVal *x)
{
    return ck_numel(x->dim, x->nd);
}

/* A reshaped view (or copy, when the memory is transposed). */
static AVal *reshape(Interp *in, AVal *x, int nd, int64_t *dim, bool copy_ok)
{
    uint64_t known = 1;
    int infer = -1;
    for (int i = 0; i < nd; i++) {
        if (dim[i] == -1 && infer < 0)
            infer = i;
        else
            known = ck_mul(known, (uint64_t)(dim[i] > 0 ? dim[i] : 1));
    }
    /* a zero, negative or absurd size is refused by the shape check of the
     * tensor it makes; the inferred one is the elements left over */
    if (infer >= 0)
        dim[infer] = (int64_t)(numel_of(x) / known);
    if (!x->gpu) {
        AVal *r = av_tensor_new(in, (DType)x->dtype, nd, dim, false);
        return r;
    }
    TId t = x->transposed && copy_ok ? tr_copy(in->tr, x->t, nd, dim) : tr_view(in->tr, x->t, nd, dim);
    return tensor_result(in, t);
}

static AVal *same_shape(Interp *in, AVal *x, TId t, bool transposed)
{
    AVal *r = tensor_result(in, t);
    r->transposed = transposed;
    (void)x;
    return r;
}

/* A dimension index counted from the end when negative; out of range
 * (also for absurd values) it stays out of range. */
static int norm_dim(const AVal *x, int64_t d)
{
    if (d < -TR_MAXDIM - 1 || d > TR_MAXDIM + 1)
        return -1;
    return (int)(d < 0 ? d + x->nd : d);
}

/* Memory layout: the logical dimension stored i-th (identity when row-major). */
static void layout(const AVal *x, uint8_t *p)
{
    bool set = false;
    for (int i = 0; i < x->nd; i++)
        set |= x->perm[i] != 0;
    for (int i = 0; i < x->nd; i++)
        p[i] = set ? x->perm[i] : (uint8_t)i;
}

static bool is_identity(const uint8_t *p, int nd)
{
    for (int i = 0; i < nd; i++)
        if (p[i] != i)
            return false;
    return true;
}

static void set_layout(AVal *r, const uint8_t *p, int nd)
{
    memset(r->perm, 0, sizeof r->perm);
    if (!is_identity(p, nd))
        memcpy(r->perm, p, (size_t)nd);
    r->transposed = !is_identity(p, nd);
}

/* A batched matmul reads an operand in place when its batch dimensions are
 * in order (the last two may be swapped: a transposed matrix); otherwise
 * torch.matmul makes a contiguous copy first, and that copy is what the
 * product saves. */
static bool matmul_needs_copy(const AVal *x)
{
    if (x->nd < 3)
        return false;
    uint8_t p[TR_MAXDIM];
    layout(x, p);
    for (int i = 0; i < x->nd - 2; i++)
        if (p[i] != i)
            return true;
    return false;
}

static AVal *transpose(Interp *in, AVal *x, int64_t d0, int64_t d1)
{
    int a = norm_dim(x, d0), b = norm_dim(x, d1);
    if (a < 0 || b < 0 || a >= x->nd || b >= x->nd)
        return av_unknown(in);
    int64_t dim[TR_MAXDIM];
    memcpy(dim, x->dim, sizeof dim);
    int64_t t = dim[a];
    dim[a] = dim[b];
    dim[b] = t;
    uint8_t p[TR_MAXDIM];
    layout(x, p);
    /* the logical dims a and b trade places in the memory order */
    for (int i = 0; i < x->nd; i++)
        p[i] = p[i] == a ? (uint8_t)b : p[i] == b ? (uint8_t)a : p[i];
    AVal *r = x->gpu ? tensor_result(in, tr_view(in->tr, x->t, x->nd, dim))
                     : av_tensor_new(in, (DType)x->dtype, x->nd, dim, false);
    set_layout(r, p, x->nd);
    return r;
}

static AVal *insert_dim(Interp *in, AVal *x, int at, int64_t size)
{
    if (x->nd >= TR_MAXDIM)
        return x;
    int64_t dim[TR_MAXDIM];
    int nd = 0;
    for (int i = 0; i <= x->nd; i++) {
        if (i == at)
            dim[nd++] = size;
        if (i < x->nd)
            dim[nd++] = x->dim[i];
    }
    return reshape(in, x, nd, dim, false);
}

static AVal *new_tensor_value(Interp *in, DType dt, int nd, int64_t *dim, bool gpu)
{
    if (!gpu)
        return av_tensor_new(in, dt, nd, dim, false);
    return tensor_result(in, tr_new(in->tr, dt, nd, dim));
}

/* ---- torch.* creation ------------------------------------------------------------------- */

/* randint(high, size) / randint(low, high, size) */
static int randint_shape(const Args *a, int64_t *dim)
{
    AVal *s = arg(a, 2, NULL) ? arg(a, 2, NULL) : arg(a, 1, NULL);
    if (arg(a, -1, "size"))
        s = arg(a, -1, "size");
    Args one = {{s}, {NULL}, 1};
    return s ? shape_args(&one, 0, dim) : -1;
}

/* arange(end) / arange(start, end[, step]); -1 when the bounds are unknown. */
static int arange_shape(const Args *a, int64_t *dim)
{
    int64_t lo = 0, hi = 0, step = 1;
    if (arg(a, 1, NULL)) {
        int_arg(a, 0, NULL, &lo);
        if (!int_arg(a, 1, NULL, &hi))
            return -1;
        int_arg(a, 2, NULL, &step);
    } else if (!int_arg(a, 0, "end", &hi)) {
        return -1;
    }
    int64_t span;
    if (!step || !ck_isub(hi, lo, &span))
        return -1;
    /* the elements of [lo, hi) by step, rounded up; a range that runs the
     * wrong way (torch raises) gives 0 or less, which the shape check refuses */
    dim[0] = span / step + (span % step != 0 && (span > 0) == (step > 0));
    return 1;
}

/* The shape (and, for integer makers, the dtype) a torch.* maker asks for;
 * -1 when unknown. */
static int creation_shape(const char *name, const Args *a, int64_t *dim, DType *dt)
{
    if (eq(name, "randint") || eq(name, "arange")) {
        *dt = DT_I64;
        return eq(name, "randint") ? randint_shape(a, dim) : arange_shape(a, dim);
    }
    if (eq(name, "tensor") || eq(name, "as_tensor")) {
        AVal *d = arg(a, 0, NULL);
        dim[0] = d && d->k == AV_SEQ ? d->n : 1;
        return d && d->k != AV_SEQ ? 0 : 1;
    }
    if (eq(name, "full")) {
        Args one = {{arg(a, 0, "size")}, {NULL}, 1};
        return one.v[0] ? shape_args(&one, 0, dim) : -1;
    }
    /* zeros(2, 3), zeros((2, 3)), zeros(size=(2, 3)) */
    Args one = {{arg(a, -1, "size")}, {NULL}, 1};
    return one.v[0] ? shape_args(&one, 0, dim) : shape_args(a, 0, dim);
}

/* zeros_like(x) and friends: x's shape, dtype and device. */
static AVal *creation_like(Interp *in, const char *name, Args *a)
{
    AVal *x = arg(a, 0, NULL);
    if (!x || x->k != AV_TENSOR)
        return av_unknown(in);
    int64_t dim[TR_MAXDIM];
    memcpy(dim, x->dim, sizeof dim);
    DType dt = eq(name, "randint_like") ? DT_I64 : (DType)x->dtype;
    dtype_of(arg(a, -1, "dtype"), &dt);
    return new_tensor_value(in, dt, x->nd, dim, x->gpu);
}

static AVal *creation(Interp *in, const char *name, Args *a)
{
    if (strstr(name, "_like"))
        return creation_like(in, name, a);
    int64_t dim[TR_MAXDIM];
    DType dt = DT_F32;
    int nd = creation_shape(name, a, dim, &dt);
    if (nd < 0)
        return av_unknown(in);
    dtype_of(arg(a, -1, "dtype"), &dt);
    AVal *dev = arg(a, -1, "device");
    return new_tensor_value(in, dt, nd, dim, dev && device_is_gpu(dev));
}

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

static AVal *nn_module(Interp *in, const char *name, Args *a)
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

/* ---- torch.nn.functional and tensor math ------------------------------------------------ */

static TId gpu_arg(Interp *in, const Args *a, int pos, const char *kw)
{
    return av_gpu(in, arg(a, pos, kw));
}

static AVal *act(Interp *in, AVal *x, Act kind, bool inplace)
{
    TId t = av_gpu(in, x);
    return t ? tensor_result(in, tr_act(in->tr, t, kind, inplace)) : av_unknown(in);
}

static AVal *cross_entropy(Interp *in, AVal *logits, AVal *target)
{
    TId l = av_gpu(in, logits);
    if (!l)
        return av_unknown(in);
    TId t = target && target->k == AV_TENSOR ? av_gpu(in, target) : 0;
    return tensor_result(in, tr_cross_entropy(in->tr, l, t));
}

static AVal *sdpa(Interp *in, Args *a)
{
    TId q = gpu_arg(in, a, 0, "query"), k = gpu_arg(in, a, 1, "key"), v = gpu_arg(in, a, 2, "value");
    if (!q || !k || !v)
        return av_unknown(in);
    AVal *out = tensor_result(in, tr_sdpa(in->tr, q, k, v, num_or(a, 4, "dropout_p", 0)));
    if (out->nd == 4) {
        /* the fused kernels write (b, s, h, d) memory and return it as (b, h, s, d) */
        uint8_t p[4] = {0, 2, 1, 3};
        set_layout(out, p, 4);
    }
    return out;
}

static AVal *nll_loss(Interp *in, AVal *logp, AVal *target)
{
    TId l = av_gpu(in, logp);
    return l ? tensor_result(in, tr_nll_loss(in->tr, l, target && target->k == AV_TENSOR ? av_gpu(in, target) : 0))
             : av_unknown(in);
}

/* F.relu and friends; the relu family alone honours inplace=. */
static AVal *f_activation(Interp *in, const char *name, Args *a)
{
    static const struct { const char *name; Act kind; bool inplace; } acts[] = {
        {"relu", ACT_RELU, true}, {"relu6", ACT_RELU, true}, {"leaky_relu", ACT_RELU, true},
        {"gelu", ACT_GELU, false}, {"silu", ACT_SILU, false}, {"tanh", ACT_TANH, false},
        {"sigmoid", ACT_SIGMOID, false},
    };
    for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++)
        if (eq(name, acts[i].name))
            return act(in, arg(a, 0, "input"), acts[i].kind,
                       acts[i].inplace && bool_or(a, -1, "inplace", false));
    return NULL;
}

/* F.dropout(training=False) is the identity. */
static AVal *f_dropout(Interp *in, AVal *x, Args *a)
{
    TId t = av_gpu(in, x);
    bool training = bool_or(a, 2, "training", true);
    if (!t || !training)
        return x ? x : av_unknown(in);
    return tensor_result(in, tr_dropout(in->tr, t, num_or(a, 1, "p", 0.5)));
}

static AVal *f_pool(Interp *in, const char *name, AVal *x, Args *a)
{
    TId t = av_gpu(in, x);
    int k = (int)int_or(a, 1, "kernel_size", 2);
    int s = (int)int_or(a, 2, "stride", k);
    int p = (int)int_or(a, 3, "padding", 0);
    return t ? tensor_result(in, tr_pool2d(in->tr, t, k, s, p, eq(name, "max_pool2d"))) : av_unknown(in);
}

static AVal *f_adaptive_pool(Interp *in, AVal *x, Args *a)
{
    TId t = av_gpu(in, x);
    int64_t o = int_or(a, 1, "output_size", 1);
    return t ? tensor_result(in, tr_adaptive_pool(in->tr, t, o, o)) : av_unknown(in);
}

/* F.linear with an nn.Parameter weight (out_features x in_features). */
static AVal *f_linear(Interp *in, AVal *x, Args *a)
{
    TId t = av_gpu(in, x);
    AVal *w = arg(a, 1, "weight");
    if (!t || !w || w->k != AV_PARAM)
        return av_unknown(in);
    int64_t out = w->nd ? w->dim[0] : 0;
    return tensor_result(in, tr_linear(in->tr, t, out, w->param, 0));
}

/* The losses F.* and torch.nn share. */
static AVal *f_loss(Interp *in, const char *name, AVal *x, Args *a)
{
    if (eq(name, "cross_entropy"))
        return cross_entropy(in, x, arg(a, 1, "target"));
    if (eq(name, "nll_loss"))
        return nll_loss(in, x, arg(a, 1, "target"));
    /* elementwise losses: each keeps the difference (or its input) for the backward */
    if (eq(name, "mse_loss") || eq(name, "l1_loss") || eq(name, "smooth_l1_loss") || eq(name, "huber_loss") ||
        eq(name, "binary_cross_entropy") || eq(name, "binary_cross_entropy_with_logits") ||
        eq(name, "kl_div") || eq(name, "cosine_embedding_loss")) {
        TId t = av_gpu(in, x);
        return t ? tensor_result(in, tr_mse(in->tr, t)) : av_unknown(in);
    }
    return NULL;
}

/* F.pad(x, (left, right, top, bottom, ...)): pairs from the last dimension
 * inwards; a new tensor, nothing kept for the backward. */
static AVal *f_pad(Interp *in, AVal *x, AVal *pad)
{
    if (!x || x->k != AV_TENSOR)
        return av_unknown(in);
    AVal *p = pad ? iter_items(in, pad) : NULL;
    int64_t dim[TR_MAXDIM];
    memcpy(dim, x->dim, sizeof dim);
    for (uint32_t i = 0; p && i < p->n; i += 2) {
        int64_t lo, hi = 0;
        int d = x->nd - 1 - (int)(i / 2);
        if (d < 0 || !av_int_of(p->items[i], &lo) || (i + 1 < p->n && !av_int_of(p->items[i + 1], &hi)))
            return assumed_op(in, x, "`F.pad` with sizes pfc cannot read");
        dim[d] = ck_sadd(dim[d], ck_sadd(lo, hi));
    }
    if (!p)
        return assumed_op(in, x, "`F.pad` with sizes pfc cannot read");
    return copy_shaped(in, x, x->nd, dim);
}

static AVal *functional(Interp *in, const char *name, Args *a)
{
    AVal *x = arg(a, 0, "input");
    AVal *r = f_activation(in, name, a);
    if (!r)
        r = f_loss(in, name, x, a);
    if (r)
        return r;
    if (eq(name, "softmax") || eq(name, "log_softmax")) {
        TId t = av_gpu(in, x);
        return t ? tensor_result(in, tr_softmax(in->tr, t, eq(name, "log_softmax"))) : av_unknown(in);
    }
    if (eq(name, "dropout"))
        return f_dropout(in, x, a);
    if (eq(name, "scaled_dot_product_attention"))
        return sdpa(in, a);
    if (eq(name, "max_pool2d") || eq(name, "avg_pool2d"))
        return f_pool(in, name, x, a);
    if (eq(name, "adaptive_avg_pool2d"))
        return f_adaptive_pool(in, x, a);
    if (eq(name, "linear"))
        return f_linear(in, x, a);
    if (eq(name, "layer_norm")) {
        TId t = av_gpu(in, x);
        return t ? tensor_result(in, tr_layer_norm(in->tr, t, 0, 0)) : av_unknown(in);
    }
    if (eq(name, "pad"))
        return f_pad(in, x, arg(a, 1, "pad"));
    if (eq(name, "normalize") || eq(name, "softplus") || eq(name, "elu") || eq(name, "mish") ||
        eq(name, "hardswish") || eq(name, "softsign") || eq(name, "logsigmoid"))
        return act(in, x, ACT_GELU, false);   /* keeps its input (normalize: and the norms) */
    return assumed_op(in, x, arena_printf(in->a, "`F.%s`", name));
}

/* ---- library calls ---------------------------------------------------------------------- */

/* range() up to 100000 items; a longer or unknown one is not unrolled. */
static AVal *b_range(Interp *in, const char *name, Args *a)
{
    int64_t lo = 0, hi, step = 1;
    (void)name;
    if (arg(a, 1, NULL)) {
        if (!int_arg(a, 0, NULL, &lo) || !int_arg(a, 1, NULL, &hi))
            return av_unknown(in);
        int_arg(a, 2, NULL, &step);
    } else if (!int_arg(a, 0, NULL, &hi)) {
        return av_unknown(in);
    }
    int64_t span;
    if (step <= 0 || !ck_isub(hi, lo, &span) || span > 100000)
        return av_unknown(in);
    AVal *s = av_seq(in, span > 0 ? (uint32_t)((span + step - 1) / step) : 0);
    for (uint32_t i = 0; i < s->n; i++)
        s->items[i] = av_int(in, lo + (int64_t)i * step);
    return s;
}

static AVal *b_len(Interp *in, const char *name, Args *a)
{
    AVal *x = arg(a, 0, NULL);
    (void)name;
    if (x && (x->k == AV_SEQ || x->k == AV_DICT))
        return av_int(in, x->n);
    if (x && x->k == AV_TENSOR && x->nd)
        return av_int(in, x->dim[0]);
    if (x && x->k == AV_OBJECT && x->obj->cls >= 0) {
        Args none = {{0}, {0}, 0};
        bool found;
        AVal *r = run_method(in, x, "__len__", &none, &found);
        return found ? r : av_unknown(in);
    }
    return av_unknown(in);
}

/* int(), float() (of a number or a numeric string), abs(), round(). */
static AVal *b_number(Interp *in, const char *name, Args *a)
{
    AVal *x = arg(a, 0, NULL);
    if ((eq(name, "int") || eq(name, "float")) && x && x->k == AV_STR) {
        char *end;
        double v = strtod(x->s, &end);
        if (!*x->s || *end)
            return av_unknown(in);
        return eq(name, "int") ? av_int(in, (int64_t)v) : av_float(in, v);
    }
    double v;
    if (!x || !av_num(x, &v))
        return av_unknown(in);
    if (eq(name, "abs"))
        v = fabs(v);
    return eq(name, "float") ? av_float(in, v) : av_int(in, (int64_t)(eq(name, "round") ? llround(v) : v));
}

/* min() and max() of the arguments, or of the one iterable given. */
static AVal *b_minmax(Interp *in, const char *name, Args *a)
{
    AVal *x = arg(a, 0, NULL);
    AVal *items = a->n == 1 && x ? iter_items(in, x) : NULL;
    double best = 0;
    bool any = false, all_int = true;
    for (uint32_t i = 0; i < (items ? items->n : a->n); i++) {
        AVal *v = items ? items->items[i] : a->v[i];
        double d;
        if (!av_num(v, &d))
            return av_unknown(in);
        all_int &= v->k == AV_INT;
        if (!any || (eq(name, "min") ? d < best : d > best))
            best = d;
        any = true;
    }
    return !any ? av_unknown(in) : all_int ? av_int(in, (int64_t)best) : av_float(in, best);
}

static AVal *b_list(Interp *in, const char *name, Args *a)
{
    AVal *x = arg(a, 0, NULL);
    (void)name;
    AVal *items = x ? iter_items(in, x) : av_seq(in, 0);
    return items ? items : av_unknown(in);
}

/* dict(k=v, ...): the keyword arguments. */
static AVal *b_dict(Interp *in, const char *name, Args *a)
{
    AVal *d = av_new(in, AV_DICT);
    (void)name;
    d->items = arena_zalloc(in->a, (a->n + 1) * sizeof *d->items);
    d->keys = arena_zalloc(in->a, (a->n + 1) * sizeof *d->keys);
    for (uint32_t i = 0; i < a->n; i++)
        if (a->kw[i]) {
            d->keys[d->n] = a->kw[i];
            d->items[d->n++] = a->v[i];
        }
    return d;
}

/* enumerate(), iter(), zip(): a DataLoader iterates as its one batch. */
static AVal *b_iterate(Interp *in, const char *name, Args *a)
{
    AVal *x = arg(a, 0, NULL);
    if (x && x->k == AV_OBJECT && x->obj->nn == NN_LOADER && eq(name, "iter"))
        return x;
    AVal *items = x ? iter_items(in, x) : NULL;
    if (!items && x && x->k == AV_OBJECT && x->obj->nn == NN_LOADER) {
        items = av_seq(in, 1);
        items->items[0] = loader_batch(in, x);
    }
    if (!items)
        return av_unknown(in);
    if (eq(name, "iter"))
        return items;
    AVal *s = av_seq(in, items->n);
    AVal *other = eq(name, "zip") && arg(a, 1, NULL) ? iter_items(in, arg(a, 1, NULL)) : NULL;
    for (uint32_t i = 0; i < items->n; i++) {
        AVal *pair = av_seq(in, 2);
        pair->items[0] = eq(name, "zip") ? items->items[i] : av_int(in, i);
        pair->items[1] = eq(name, "zip") ? (other && i < other->n ? other->items[i] : av_unknown(in))
                                         : items->items[i];
        s->items[i] = pair;
    }
    return s;
}

static AVal *b_next(Interp *in, const char *name, Args *a)
{
    AVal *x = arg(a, 0, NULL);
    (void)name;
    if (x && x->k == AV_OBJECT && x->obj->nn == NN_LOADER)
        return loader_batch(in, x);
    AVal *items = x ? iter_items(in, x) : NULL;
    return items && items->n ? items->items[0] : av_unknown(in);
}

static AVal *b_getattr(Interp *in, const char *name, Args *a)
{
    AVal *x = arg(a, 0, NULL), *n = arg(a, 1, NULL);
    (void)name;
    if (x && n && n->k == AV_STR) {
        AVal *r = x->k == AV_OBJECT ? obj_get(x->obj, n->s) : NULL;
        if (r)
            return r;
    }
    AVal *d = arg(a, 2, NULL);
    return d ? d : av_unknown(in);
}

static AVal *b_none(Interp *in, const char *name, Args *a)
{
    (void)name;
    (void)a;
    return av_none(in);
}

typedef AVal *Builtin(Interp *in, const char *name, Args *a);

static AVal *builtin(Interp *in, const char *name, Args *a)
{
    static const struct { const char *name; Builtin *fn; } fns[] = {
        {"range", b_range}, {"len", b_len}, {"int", b_number}, {"float", b_number},
        {"abs", b_number}, {"round", b_number}, {"min", b_minmax}, {"max", b_minmax},
        {"list", b_list}, {"tuple", b_list}, {"dict", b_dict}, {"enumerate", b_iterate},
        {"iter", b_iterate}, {"zip", b_iterate}, {"next", b_next}, {"getattr", b_getattr},
        {"print", b_none}, {"setattr", b_none},
    };
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
        if (eq(name, fns[i].name))
            return fns[i].fn(in, name, a);
    return av_unknown(in);
}

static AVal *context(Interp *in, int kind, bool enabled, DType dt)
{
    AVal *c = av_obj(in, NN_OPAQUE);
    c->obj->a = kind;
    c->obj->b = enabled;
    c->obj->c = dt;
    return c;
}

static AVal *autocast(Interp *in, Args *a)
{
    DType dt = DT_F16;   /* CUDA autocast's default */
    AVal *d = arg(a, -1, "dtype");
    if (d)
        dtype_of(d, &dt);
    AVal *dev = arg(a, 0, "device_type");
    bool cuda = !dev || dev->k != AV_STR || strncmp(dev->s, "cuda", 4) == 0;
    return context(in, OPAQUE_AUTOCAST, cuda && bool_or(a, -1, "enabled", true), dt);
}

static AVal *checkpoint(Interp *in, Args *a)
{
    AVal *fn = arg(a, 0, "function");
    if (!fn || a->n < 2)
        return av_unknown(in);
    Args rest = {{0}, {0}, 0};
    for (uint32_t i = 1; i < a->n; i++)
        if (!a->kw[i]) {
            rest.v[rest.n] = a->v[i];
            rest.kw[rest.n++] = NULL;
        }
    TId x = rest.n ? av_gpu(in, rest.v[0]) : 0;
    if (x)
        tr_ckpt_begin(in->tr, x);
    AVal *r = call_value(in, fn, &rest);
    if (x)
        tr_ckpt_end(in->tr);
    return r;
}

static AVal *data_loader(Interp *in, Args *a)
{
    AVal *m = av_obj(in, NN_LOADER);
    AVal *ds = arg(a, 0, "dataset");
    obj_set(in, m->obj, "dataset", ds ? ds : av_unknown(in));
    AVal *bs = arg(a, 1, "batch_size");
    obj_set(in, m->obj, "batch_size", bs ? bs : av_int(in, 1));
    return m;
}

/* A model the host recognises by name (a Hugging Face or torchvision
 * constructor), built from its configuration; NULL when none. */
static AVal *library_model(Interp *in, const char *q, Args *a)
{
    if (!in->hooks.library_model)
        return NULL;
    Obj o;
    memset(&o, 0, sizeof o);
    o.cls = -1;
    if (!in->hooks.library_model(in->hooks.ctx, in, q, a->v, a->kw, a->n, &o))
        return NULL;
    AVal *m = av_obj(in, o.nn);
    *m->obj = o;
    m->obj->is_module = true;
    return m;
}

static AVal *math_call(Interp *in, const char *f, Args *a)
{
    double v;
    if (!arg(a, 0, NULL) || !av_num(arg(a, 0, NULL), &v))
        return av_unknown(in);
    return eq(f, "sqrt") ? av_float(in, sqrt(v)) : eq(f, "log") ? av_float(in, log(v))
         : eq(f, "ceil") ? av_int(in, (int64_t)ceil(v)) : eq(f, "floor") ? av_int(in, (int64_t)floor(v))
         : av_unknown(in);
}

/* The environment the script runs in: os.environ, the device, grad mode,
 * autocast, activation checkpointing. */
static AVal *runtime_call(Interp *in, const char *q, Args *a)
{
    if (eq(q, "os.environ.get") || eq(q, "os.getenv")) {
        AVal *name = arg(a, 0, "key");
        if (name && name->k == AV_STR)
            interp_note(in, 0, arena_printf(in->a, "environment variable %s: its default in the script", name->s));
        return arg(a, 1, "default") ? arg(a, 1, "default") : av_none(in);
    }
    if (eq(q, "torch.device")) {
        AVal *d = av_new(in, AV_DEVICE);
        d->i = device_is_gpu(arg(a, 0, "type"));
        return d;
    }
    if (eq(q, "torch.cuda.is_available"))
        return av_bool(in, true);
    if (eq(q, "torch.cuda.device_count"))
        return av_int(in, 1);
    if (eq(q, "torch.no_grad") || eq(q, "torch.inference_mode"))
        return context(in, OPAQUE_NO_GRAD, true, DT_F32);
    if (eq(q, "torch.enable_grad"))
        return context(in, OPAQUE_ENABLE_GRAD, true, DT_F32);
    if (eq(q, "torch.autocast") || eq(q, "torch.cuda.amp.autocast") || eq(q, "torch.amp.autocast") ||
        eq(q, "torch.cpu.amp.autocast"))
        return autocast(in, a);
    if (eq(q, "torch.utils.checkpoint.checkpoint"))
        return checkpoint(in, a);
    return NULL;
}

static AVal *tensor_dataset(Interp *in, Args *a)
{
    AVal *d = av_obj(in, NN_OPAQUE);
    AVal *s = av_seq(in, a->n);
    for (uint32_t i = 0; i < a->n; i++)
        s->items[i] = a->v[i];
    obj_set(in, d->obj, "__tensors__", s);
    return d;
}

/* Datasets, loaders, transforms and the optimizer. */
static AVal *data_call(Interp *in, const char *q, Args *a)
{
    if (eq(q, "torch.utils.data.DataLoader") || eq(q, "torch.utils.data.dataloader.DataLoader"))
        return data_loader(in, a);
    if (eq(q, "torch.utils.data.TensorDataset"))
        return tensor_dataset(in, a);
    if (strncmp(q, "torch.optim.", 12) == 0)
        return av_obj(in, NN_OPTIMIZER);
    if (strncmp(q, "torchvision.transforms.", 23) == 0)
        return transform(in, leaf(q), a);
    if (strncmp(q, "torchvision.datasets.", 21) == 0)
        return vision_dataset(in, leaf(q), a);
    if (eq(q, "torch.utils.data.random_split")) {
        /* the splits yield the dataset's items */
        AVal *ds = arg(a, 0, "dataset"), *lens = arg(a, 1, "lengths");
        uint32_t n = lens && lens->k == AV_SEQ ? lens->n : 2;
        AVal *s = av_seq(in, n);
        for (uint32_t i = 0; i < n; i++)
            s->items[i] = ds ? ds : av_unknown(in);
        return s;
    }
    if (eq(q, "torch.utils.data.Subset"))
        return arg(a, 0, "dataset") ? arg(a, 0, "dataset") : av_unknown(in);
    return NULL;
}

/* Wrappers that run the same module (or iterate the same loader): the
 * result is their first argument. */
static AVal *wrapper_call(Interp *in, const char *q, Args *a)
{
    if (eq(q, "torch.compile"))
        interp_note(in, 0, "torch.compile: estimated as eager execution (compiled graphs often save less)");
    if (ends(q, "get_peft_model") || ends(q, "prepare_model_for_kbit_training") || eq(q, "torch.compile") ||
        strstr(q, "DistributedDataParallel") || strstr(q, "FullyShardedDataParallel") ||
        ends(q, "DataParallel") || ends(q, "fully_shard") || eq(q, "tqdm.tqdm") || eq(q, "tqdm.auto.tqdm") ||
        eq(q, "tqdm") || eq(q, "torch.jit.script"))
        return arg(a, 0, NULL) ? arg(a, 0, NULL) : av_unknown(in);
    return NULL;
}

static AVal *deepspeed_initialize(Interp *in, Args *a)
{
    /* (engine, optimizer, loader, scheduler): the engine runs the model */
    AVal *s = av_seq(in, 4);
    AVal *model = arg(a, -1, "model");
    s->items[0] = model ? model : av_unknown(in);
    s->items[1] = arg(a, -1, "optimizer") ? arg(a, -1, "optimizer") : av_obj(in, NN_OPTIMIZER);
    s->items[2] = arg(a, -1, "training_data") ? arg(a, -1, "training_data") : av_none(in);
    s->items[3] = av_none(in);
    return s;
}

static AVal *accelerator(Interp *in, Args *a)
{
    AVal *o = av_obj(in, NN_OPAQUE);
    o->obj->a = OPAQUE_ACCELERATOR;
    AVal *mp = arg(a, -1, "mixed_precision");
    if (mp && mp->k == AV_STR)
        obj_set(in, o->obj, "mixed_precision", mp);
    return o;
}

/* TrainingArguments, SFTConfig, Trainer, SFTTrainer: keyword arguments
 * become attributes; the Trainer's train() runs a step. */
static AVal *trainer_object(Interp *in, const char *q, Args *a)
{
    AVal *o = av_obj(in, NN_OPAQUE);
    o->obj->a = strstr(q, "Trainer") ? OPAQUE_TRAINER : OPAQUE_ARGS;
    for (uint32_t i = 0; i < a->n; i++)
        if (a->kw[i])
            obj_set(in, o->obj, a->kw[i], a->v[i]);
    if (o->obj->a == OPAQUE_TRAINER && !obj_get(o->obj, "model") && arg(a, 0, NULL))
        obj_set(in, o->obj, "model", arg(a, 0, NULL));
    return o;
}

/* Objects that hold the run's configuration: argparse, deepspeed,
 * Accelerate, the Hugging Face Trainer. */
static AVal *config_call(Interp *in, const char *q, Args *a)
{
    if (eq(q, "argparse.ArgumentParser")) {
        AVal *p = av_obj(in, NN_OPAQUE);
        p->obj->a = OPAQUE_ARGPARSER;
        return p;
    }
    if (eq(q, "deepspeed.initialize"))
        return deepspeed_initialize(in, a);
    if (eq(q, "accelerate.Accelerator"))
        return accelerator(in, a);
    if (eq(q, "transformers.TrainingArguments") || eq(q, "trl.SFTConfig") ||
        eq(q, "transformers.Trainer") || eq(q, "trl.SFTTrainer"))
        return trainer_object(in, q, a);
    return NULL;
}

/* torch.cat / stack / concat of GPU tensors. */
static AVal *torch_cat(Interp *in, const char *f, Args *a)
{
    AVal *xs = arg(a, 0, "tensors");
    xs = xs ? iter_items(in, xs) : NULL;
    if (!xs || !xs->n || xs->n > TR_MAXIN)
        return av_unknown(in);
    TId ts[TR_MAXIN];
    for (uint32_t i = 0; i < xs->n; i++)
        if (!(ts[i] = av_gpu(in, xs->items[i])))
            return av_unknown(in);
    int axis = (int)int_or(a, 1, "dim", 0);
    if (eq(f, "stack")) {
        /* stack is cat along a new axis: each input viewed with a 1 there */
        int nd = xs->items[0]->nd;
        int at = axis < 0 ? axis + nd + 1 : axis;
        if (at < 0 || at > nd || nd >= TR_MAXDIM)
            return av_unknown(in);
        for (uint32_t i = 0; i < xs->n; i++) {
            AVal *v = insert_dim(in, xs->items[i], at, 1);
            if (!(ts[i] = av_gpu(in, v)))
                return av_unknown(in);
        }
        axis = at;
    }
    return tensor_result(in, tr_cat(in->tr, ts, (int)xs->n, axis));
}

/* torch.f(x, ...) where x.f(...) is the method: the method, with the
 * remaining arguments shifted down. */
static AVal *as_method(Interp *in, const char *f, Args *a)
{
    AVal *x = arg(a, 0, "input");
    if (!x)
        return av_unknown(in);
    Args rest = {{0}, {0}, 0};
    bool dropped = false;
    for (uint32_t i = 0; i < a->n; i++) {
        if (!dropped && (a->v[i] == x)) {
            dropped = true;
            continue;
        }
        rest.v[rest.n] = a->v[i];
        rest.kw[rest.n++] = a->kw[i];
    }
    return method_call(in, x, f, &rest);
}

static int einsum_letters(const char *spec, int64_t nd, char *out)
{
    int n = 0;
    for (const char *c = spec; *c && n < TR_MAXDIM; c++)
        if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z'))
            out[n++] = *c;
        else if (*c == '.' && c[1] == '.' && c[2] == '.')
            return -1;   /* an ellipsis: not followed */
    return n == nd ? n : -1;
}

/* torch.einsum("bhid,bhjd->bhij", q, k) with two operands and explicit
 * output letters: each output letter's size from the operand that has it;
 * both operands kept (a product). */
static AVal *einsum(Interp *in, Args *a)
{
    AVal *eqn = arg(a, 0, "equation"), *x = arg(a, 1, NULL), *y = arg(a, 2, NULL);
    if (x && x->k == AV_SEQ && x->n == 2) {
        y = x->items[1];
        x = x->items[0];
    }
    if (!eqn || eqn->k != AV_STR || !x || x->k != AV_TENSOR)
        return av_unknown(in);
    const char *arrow = strstr(eqn->s, "->"), *comma = strchr(eqn->s, ',');
    char lx[TR_MAXDIM], ly[TR_MAXDIM], lo[TR_MAXDIM];
    if (!arrow || !comma || comma > arrow || !y || y->k != AV_TENSOR)
        return assumed_op(in, x, "`torch.einsum` of this form");
    char *sx = arena_strndup(in->a, eqn->s, (size_t)(comma - eqn->s));
    char *sy = arena_strndup(in->a, comma + 1, (size_t)(arrow - comma - 1));
    int nx = einsum_letters(sx, x->nd, lx), ny = einsum_letters(sy, y->nd, ly);
    int no = einsum_letters(arrow + 2, (int64_t)strlen(arrow + 2), lo);
    if (nx < 0 || ny < 0 || no < 0)
        return assumed_op(in, x, "`torch.einsum` with an ellipsis or a shape it does not match");
    int64_t dim[TR_MAXDIM];
    for (int i = 0; i < no; i++) {
        const char *px = memchr(lx, lo[i], (size_t)nx), *py = memchr(ly, lo[i], (size_t)ny);
        if (!px && !py)
            return av_unknown(in);
        dim[i] = px ? x->dim[px - lx] : y->dim[py - ly];
    }
    if (!x->gpu && !y->gpu)
        return av_tensor_new(in, (DType)x->dtype, no, dim, false);
    return tensor_result(in, tr_contract(in->tr, "einsum", av_gpu(in, x), av_gpu(in, y), no, dim));
}

/* torch.<f>: creation, and the ops that have a tensor or F.* form. */
static AVal *torch_call(Interp *in, const char *f, Args *a)
{
    static const char *const makers[] = {"randn", "rand", "zeros", "ones", "empty", "randint",
                                         "arange", "tensor", "as_tensor", "full", "zeros_like",
                                         "ones_like", "randn_like", "empty_like", "rand_like",
                                         "randint_like", "full_like", "tril", "triu"};
    if (eq(f, "tril") || eq(f, "triu"))
        return arg(a, 0, NULL) ? arg(a, 0, NULL) : av_unknown(in);
    for (size_t i = 0; i < sizeof makers / sizeof makers[0]; i++)
        if (eq(f, makers[i]))
            return creation(in, f, a);
    if (eq(f, "cat") || eq(f, "stack") || eq(f, "concat"))
        return torch_cat(in, f, a);
    static const char *const methods[] = {"flatten", "split", "chunk", "gather", "index_select",
                                          "take_along_dim", "repeat_interleave", "outer", "ger",
                                          "transpose", "permute", "reshape", "squeeze", "unsqueeze",
                                          "flip", "roll", "cumsum", "sum", "mean", "amax", "logsumexp",
                                          "isnan", "isinf", "isfinite", "logical_not"};
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        if (eq(f, methods[i]))
            return as_method(in, f, a);
    if (eq(f, "einsum"))
        return einsum(in, a);
    if (eq(f, "matmul") || eq(f, "bmm"))
        return tensor_binop(in, T_AT, arg(a, 0, NULL), arg(a, 1, NULL));
    if (eq(f, "relu") || eq(f, "tanh") || eq(f, "sigmoid") || eq(f, "softmax") ||
        eq(f, "log_softmax") || eq(f, "dropout"))
        return functional(in, f, a);
    if (eq(f, "exp") || eq(f, "log") || eq(f, "sqrt") || eq(f, "rsqrt")) {
        AVal *x = arg(a, 0, NULL);
        return x && x->k == AV_TENSOR ? act(in, x, ACT_TANH, false) : av_unknown(in);
    }
    if (eq(f, "abs") || eq(f, "clamp") || eq(f, "clip") || eq(f, "sin") || eq(f, "cos") || eq(f, "square")) {
        AVal *x = arg(a, 0, NULL);
        return x && x->k == AV_TENSOR ? act(in, x, ACT_GELU, false) : av_unknown(in);
    }
    if (eq(f, "pow")) {
        AVal *x = arg(a, 0, NULL);
        return x && x->k == AV_TENSOR ? tensor_binop(in, T_DOUBLESTAR, x, av_int(in, 2)) : av_unknown(in);
    }
    if (eq(f, "where")) {
        /* where(cond, a, b): a tensor like the larger operand; the condition
         * (bool) is what the backward keeps */
        AVal *x = arg(a, 1, NULL), *y = arg(a, 2, NULL);
        return x && y ? tensor_binop(in, T_PLUS, x, y) : av_unknown(in);
    }
    return assumed_op(in, arg(a, 0, NULL), arena_printf(in->a, "`torch.%s`", f));
}

typedef AVal *LibGroup(Interp *in, const char *q, Args *a);

AVal *lib_call(Interp *in, const char *q, Args *a)
{
    /* the namespaces come last: they would also take wrappers
     * (torch.nn.DataParallel, torch.compile) and contexts (torch.no_grad) */
    static LibGroup *const groups[] = {runtime_call, data_call, wrapper_call, config_call};
    AVal *r = library_model(in, q, a);
    if (r)
        return r;
    if (strncmp(q, "builtins.", 9) == 0)
        return builtin(in, q + 9, a);
    if (in_ns(q, "math"))
        return math_call(in, leaf(q), a);
    if (ends(q, "dataclasses.dataclass") || ends(q, "dataclass"))
        return arg(a, 0, NULL) ? arg(a, 0, NULL) : av_unknown(in);
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
        if ((r = groups[i](in, q, a)))
            return r;
    if (in_ns(q, "torch.nn"))
        return nn_module(in, leaf(q), a);
    if (in_ns(q, "torch.nn.functional"))
        return functional(in, leaf(q), a);
    if (in_ns(q, "torch"))
        return torch_call(in, leaf(q), a);
    /* torch.special.*, torch.linalg.*, einops, a fused kernel: whatever the
     * function, a tensor passed to it is not dropped */
    return assumed_op(in, arg(a, 0, NULL), arena_printf(in->a, "`%s`", q));
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

/* ---- data ------------------------------------------------------------------------------- */

/* The batch a DataLoader yields: the dataset's item, stacked batch_size times. */
static AVal *collate(Interp *in, AVal *item, int64_t batch)
{
    switch (item->k) {
    case AV_TENSOR: {
        int64_t dim[TR_MAXDIM];
        int nd = item->nd < TR_MAXDIM ? item->nd : TR_MAXDIM - 1;
        dim[0] = batch;
        memcpy(dim + 1, item->dim, (size_t)nd * sizeof *dim);
        return av_tensor_new(in, (DType)item->dtype, nd + 1, dim, false);
    }
    case AV_INT: case AV_BOOL: case AV_FLOAT:
        return av_tensor_new(in, item->k == AV_FLOAT ? DT_F32 : DT_I64, 1, &batch, false);
    case AV_SEQ: {
        AVal *s = av_seq(in, item->n);
        for (uint32_t i = 0; i < item->n; i++)
            s->items[i] = collate(in, item->items[i], batch);
        return s;
    }
    case AV_DICT: {
        AVal *d = av_new(in, AV_DICT);
        d->n = item->n;
        d->keys = item->keys;
        d->items = arena_zalloc(in->a, (item->n + 1) * sizeof *d->items);
        for (uint32_t i = 0; i < item->n; i++)
            d->items[i] = collate(in, item->items[i], batch);
        return d;
    }
    default:
        return av_unknown(in);
    }
}

AVal *loader_batch(Interp *in, AVal *loader)
{
    AVal *cached = obj_get(loader->obj, "__batch__");
    if (cached)
        return cached;
    AVal *ds = obj_get(loader->obj, "dataset");
    int64_t batch = 1;
    av_int_of(obj_get(loader->obj, "batch_size"), &batch);
    AVal *item = av_unknown(in);
    if (ds && ds->k == AV_OBJECT && ds->obj->cls >= 0) {
        Args one = {{av_int(in, 0)}, {NULL}, 1};
        bool found;
        item = run_method(in, ds, "__getitem__", &one, &found);
    } else if (ds && ds->k == AV_OBJECT && obj_get(ds->obj, "__item__")) {
        item = obj_get(ds->obj, "__item__");
    } else if (ds && ds->k == AV_OBJECT && obj_get(ds->obj, "__tensors__")) {
        AVal *ts = obj_get(ds->obj, "__tensors__");
        AVal *s = av_seq(in, ts->n);
        for (uint32_t i = 0; i < ts->n; i++)
            s->items[i] = tensor_subscript(in, ts->items[i], av_int(in, 0));
        item = s;
    }
    AVal *b = collate(in, item, batch);
    obj_set(in, loader->obj, "__batch__", b);
    return b;
}

/* ---- torchvision datasets and transforms ------------------------------------------------------ */

/* A transform: the ones that set the image size keep it ("__size__");
 * Compose keeps its list. */
static AVal *transform(Interp *in, const char *name, Args *a)
{
    AVal *t = av_obj(in, NN_OPAQUE);
    t->obj->a = OPAQUE_TRANSFORM;
    if (eq(name, "Compose")) {
        AVal *list = arg(a, 0, "transforms");
        obj_set(in, t->obj, "__list__", list ? list : av_seq(in, 0));
    } else if (eq(name, "Resize") || eq(name, "CenterCrop") || eq(name, "RandomResizedCrop") ||
               eq(name, "RandomCrop")) {
        AVal *size = arg(a, 0, "size");
        if (size)
            obj_set(in, t->obj, "__size__", size);
    }
    return t;
}

/* The (height, width) the transform pipeline ends with, if it sets one. */
static bool transform_size(AVal *t, int64_t *h, int64_t *w)
{
    if (!t || t->k != AV_OBJECT || t->obj->a != OPAQUE_TRANSFORM)
        return false;
    AVal *list = obj_get(t->obj, "__list__");
    bool found = false;
    for (uint32_t i = 0; list && list->k == AV_SEQ && i < list->n; i++)
        found |= transform_size(list->items[i], h, w);
    AVal *size = obj_get(t->obj, "__size__");
    if (size && av_int_of(size, h)) {
        *w = *h;
        return true;
    }
    if (size && size->k == AV_SEQ && size->n == 2 && av_int_of(size->items[0], h) && av_int_of(size->items[1], w))
        return true;
    return found;
}

/* torchvision's datasets yield (image tensor, class index); the image's
 * channels and size are the dataset's, or what its transform makes them. */
static AVal *vision_dataset(Interp *in, const char *name, Args *a)
{
    static const struct { const char *name; int c, size; } known[] = {
        {"MNIST", 1, 28}, {"FashionMNIST", 1, 28}, {"KMNIST", 1, 28}, {"EMNIST", 1, 28},
        {"QMNIST", 1, 28}, {"CIFAR10", 3, 32}, {"CIFAR100", 3, 32}, {"SVHN", 3, 32},
        {"STL10", 3, 96}, {"ImageFolder", 3, 224}, {"ImageNet", 3, 224}, {"FakeData", 3, 224},
        {"LSUN", 3, 224}, {"CelebA", 3, 224}, {"Food101", 3, 224}, {"Flowers102", 3, 224},
        {"OxfordIIITPet", 3, 224}, {"StanfordCars", 3, 224}, {"Caltech101", 3, 224},
        {"Places365", 3, 224}, {"DatasetFolder", 3, 224},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        if (!eq(name, known[i].name))
            continue;
        int64_t h = known[i].size, w = known[i].size;
        AVal *tf = arg(a, -1, "transform");
        bool sized = transform_size(tf, &h, &w);
        AVal *img = arg(a, -1, "image_size");
        if (img && img->k == AV_SEQ && img->n == 3) {
            av_int_of(img->items[1], &h);
            av_int_of(img->items[2], &w);
            sized = true;
        }
        if (!sized && known[i].size == 224)
            interp_note(in, 0, arena_printf(in->a, "%s: images assumed 224 x 224 (no size in its transform)", name));
        int64_t dim[3] = {known[i].c, h, w};
        AVal *item = av_seq(in, 2);
        item->items[0] = av_tensor_new(in, DT_F32, 3, dim, false);
        item->items[1] = av_int(in, 0);
        AVal *ds = av_obj(in, NN_OPAQUE);
        obj_set(in, ds->obj, "__item__", item);
        return ds;
    }
    return av_unknown(in);
}

/* ---- argparse: the defaults are the configuration ----------------------------------------- */

/* add_argument("--batch-size", "-b", type=int, default="64", dest=...,
 * action="store_true"): records dest -> default (string defaults go
 * through type, as argparse does). */
static void add_argument(Interp *in, void *ctx, Args *a)
{
    Obj *parser = ctx;
    const char *dest = NULL;
    AVal *d = arg(a, -1, "dest");
    if (d && d->k == AV_STR)
        dest = d->s;
    for (int i = 0; !dest && i < 4; i++) {
        AVal *n = arg(a, i, NULL);
        if (!n || n->k != AV_STR)
            break;
        if (strncmp(n->s, "--", 2) == 0 || n->s[0] != '-' || !arg(a, i + 1, NULL))
            dest = n->s + (strncmp(n->s, "--", 2) == 0 ? 2 : n->s[0] == '-' ? 1 : 0);
    }
    if (!dest)
        return;
    char *key = arena_strndup(in->a, dest, strlen(dest));
    for (char *c = key; *c; c++)
        if (*c == '-')
            *c = '_';
    AVal *def = arg(a, -1, "default");
    AVal *action = arg(a, -1, "action");
    if (!def && action && action->k == AV_STR)
        def = av_bool(in, strcmp(action->s, "store_false") == 0);
    AVal *type = arg(a, -1, "type");
    if (def && def->k == AV_STR && type && type->k == AV_QUAL) {
        Args one = {{def}, {NULL}, 1};
        def = builtin(in, strchr(type->s, '.') ? strchr(type->s, '.') + 1 : type->s, &one);
    }
    obj_set(in, parser, key, def ? def : av_none(in));
}

static AVal *parse_args(Interp *in, Obj *parser)
{
    interp_note(in, 0, "command-line arguments: argparse's defaults");
    if (!obj_get(parser, "__scanned__")) {
        obj_set(in, parser, "__scanned__", av_bool(in, true));
        for_each_call_on(in, "add_argument", parser, add_argument, parser);
    }
    AVal *ns = av_obj(in, NN_OPAQUE);
    for (uint32_t i = 0; i < parser->nattr; i++)
        if (strcmp(parser->names[i], "__scanned__") != 0)
            obj_set(in, ns->obj, parser->names[i], parser->vals[i]);
    return ns;
}

/* ---- the Hugging Face Trainer ----------------------------------------------------------- */

/* One training step as the Trainer runs it: a batch of
 * per_device_train_batch_size items from train_dataset, the model in train
 * mode, under autocast with bf16=True / fp16=True; returns the loss. */
static AVal *trainer_step(Interp *in, Obj *trainer)
{
    AVal *model = obj_get(trainer, "model");
    AVal *args = obj_get(trainer, "args");
    AVal *ds = obj_get(trainer, "train_dataset");
    if (!model || model->k != AV_OBJECT || !ds)
        return av_unknown(in);
    AVal *bs = args && args->k == AV_OBJECT ? obj_get(args->obj, "per_device_train_batch_size") : NULL;
    in->trainer_batch = 8;   /* TrainingArguments' default */
    av_int_of(bs, &in->trainer_batch);
    Args la = {{ds, bs ? bs : av_int(in, 8)}, {NULL, "batch_size"}, 2};
    AVal *loader = data_loader(in, &la);
    AVal *batch = loader_batch(in, loader);
    Args ma = {{0}, {0}, 0};
    if (batch->k == AV_DICT) {
        for (uint32_t i = 0; i < batch->n && i < ARGS_MAX; i++) {
            ma.kw[ma.n] = batch->keys[i];
            ma.v[ma.n++] = batch->items[i];
        }
    } else {
        ma.v[ma.n++] = batch;
    }
    bool ac = false, fp16 = false, known;
    AVal *v = args && args->k == AV_OBJECT ? obj_get(args->obj, "bf16") : NULL;
    ac = v && av_truth(v, &known);
    v = args && args->k == AV_OBJECT ? obj_get(args->obj, "fp16") : NULL;
    fp16 = v && av_truth(v, &known);
    Trace *tr = in->tr;
    bool was_training = tr->training, was_on = tr->autocast_on;
    DType was_dt = tr->autocast;
    tr->training = true;
    if ((ac || fp16) && !in->no_autocast) {
        tr->autocast_on = true;
        tr->autocast = fp16 ? DT_F16 : DT_BF16;
    }
    in->model_called = true;
    in->in_trainer = true;
    AVal *out = call_value(in, model, &ma);
    in->in_trainer = false;
    tr->training = was_training;
    tr->autocast_on = was_on;
    tr->autocast = was_dt;
    return attr_of_value(in, out, "loss");
}

/* ---- methods and attributes ------------------------------------------------------------- */

/* view / reshape / expand (-1 keeps a dimension) and their *_as forms. */
static AVal *reshape_method(Interp *in, AVal *x, const char *name, Args *a)
{
    int64_t dim[TR_MAXDIM];
    if (eq(name, "view_as") || eq(name, "reshape_as") || eq(name, "expand_as")) {
        AVal *o = arg(a, 0, NULL);
        if (!o || o->k != AV_TENSOR)
            return av_unknown(in);
        memcpy(dim, o->dim, sizeof dim);
        return reshape(in, x, o->nd, dim, true);
    }
    int nd = shape_args(a, 0, dim);
    if (nd < 0)
        return av_unknown(in);
    if (eq(name, "expand"))
        for (int i = 0; i < nd; i++)
            if (dim[i] == -1 && i < x->nd)
                dim[i] = x->dim[i];
    return reshape(in, x, nd, dim, eq(name, "reshape"));
}

static AVal *permute(Interp *in, AVal *x, Args *a)
{
    int64_t dim[TR_MAXDIM];
    int nd = shape_args(a, 0, dim);
    if (nd != x->nd)
        return av_unknown(in);
    int64_t out[TR_MAXDIM];
    uint8_t p[TR_MAXDIM], q[TR_MAXDIM], where[TR_MAXDIM] = {0}, from[TR_MAXDIM];
    for (int i = 0; i < nd && i < TR_MAXDIM; i++) {
        int d = norm_dim(x, dim[i]);
        if (d < 0 || d >= nd)
            return av_unknown(in);   /* torch raises: a dimension out of range */
        from[i] = (uint8_t)d;
    }
    layout(x, p);
    for (int i = 0; i < nd && i < TR_MAXDIM; i++) {
        out[i] = x->dim[from[i]];
        where[from[i]] = (uint8_t)i;   /* old logical dim -> new */
    }
    for (int i = 0; i < nd && i < TR_MAXDIM; i++)
        q[i] = where[p[i] % TR_MAXDIM];
    AVal *r = x->gpu ? tensor_result(in, tr_view(in->tr, x->t, nd, out)) : av_tensor_new(in, (DType)x->dtype, nd, out, false);
    set_layout(r, q, nd);
    return r;
}

static AVal *size_method(Interp *in, AVal *x, Args *a)
{
    int64_t d;
    if (int_arg(a, 0, "dim", &d)) {
        int i = norm_dim(x, d);
        return i >= 0 && i < x->nd ? av_int(in, x->dim[i]) : av_unknown(in);
    }
    return shape_value(in, x);
}

/* split(size) and chunk(n): up to 64 views along one dimension. */
/* split([s0, s1, ...], dim): one view per listed size. */
static AVal *split_sizes(Interp *in, AVal *x, AVal *sizes, Args *a)
{
    int d = norm_dim(x, int_or(a, 1, "dim", 0));
    if (d < 0 || d >= x->nd || sizes->n > 64)
        return av_unknown(in);
    AVal *s = av_seq(in, sizes->n);
    int64_t dim[TR_MAXDIM];
    memcpy(dim, x->dim, sizeof dim);
    for (uint32_t i = 0; i < sizes->n; i++) {
        if (!av_int_of(sizes->items[i], &dim[d]))
            return av_unknown(in);
        AVal *r = x->gpu ? tensor_result(in, tr_view(in->tr, x->t, x->nd, dim)) : av_tensor_new(in, (DType)x->dtype, x->nd, dim, false);
        memcpy(r->perm, x->perm, sizeof r->perm);
        r->transposed = true;
        s->items[i] = r;
    }
    return s;
}

static AVal *split(Interp *in, AVal *x, const char *name, Args *a)
{
    AVal *sizes = arg(a, 0, "split_size_or_sections");
    if (sizes && sizes->k == AV_SEQ && eq(name, "split"))
        return split_sizes(in, x, sizes, a);
    int64_t dim[TR_MAXDIM];
    int64_t size = int_or(a, 0, NULL, 1);
    int d = norm_dim(x, int_or(a, 1, "dim", 0));
    if (size <= 0) {
        refuse(in, arena_printf(in->a, "%s(%lld): the %s is not positive", name, (long long)size,
                                eq(name, "chunk") ? "number of chunks" : "split size"));
        return av_unknown(in);
    }
    if (d < 0 || d >= x->nd)
        return av_unknown(in);
    int64_t up = ck_sadd(x->dim[d], size - 1);   /* rounding up, without wrapping */
    int64_t n = eq(name, "chunk") ? size : up / size;
    int64_t part = eq(name, "chunk") ? up / size : size;
    if (n > 64)
        return av_unknown(in);
    AVal *s = av_seq(in, (uint32_t)n);
    memcpy(dim, x->dim, sizeof dim);
    dim[d] = part;
    for (int64_t i = 0; i < n; i++) {
        AVal *r = x->gpu ? tensor_result(in, tr_view(in->tr, x->t, x->nd, dim)) : av_tensor_new(in, (DType)x->dtype, x->nd, dim, false);
        /* a slice: not dense, but its dimensions keep their order */
        memcpy(r->perm, x->perm, sizeof r->perm);
        r->transposed = true;
        s->items[i] = r;
    }
    return s;
}

/* squeeze() drops the 1s; flatten(start_dim, end_dim) folds a range. */
static AVal *squeeze(Interp *in, AVal *x, const char *name, Args *a)
{
    int64_t dim[TR_MAXDIM];
    int nd = 0;
    if (eq(name, "flatten")) {
        int s = norm_dim(x, int_or(a, 0, "start_dim", 0)), e = norm_dim(x, int_or(a, 1, "end_dim", -1));
        for (int i = 0; i < x->nd; i++) {
            if (i > s && i <= e && nd > 0)
                dim[nd - 1] = ck_smul(dim[nd - 1], x->dim[i]);
            else
                dim[nd++] = x->dim[i];
        }
    } else {
        for (int i = 0; i < x->nd; i++)
            if (x->dim[i] != 1)
                dim[nd++] = x->dim[i];
    }
    return reshape(in, x, nd, dim, true);
}

/* Methods that change or read the shape; NULL when name is not one. */
static AVal *shape_method(Interp *in, AVal *x, const char *name, Args *a)
{
    if (eq(name, "view") || eq(name, "reshape") || eq(name, "expand") || eq(name, "view_as") ||
        eq(name, "reshape_as") || eq(name, "expand_as"))
        return reshape_method(in, x, name, a);
    if (eq(name, "transpose"))
        return transpose(in, x, int_or(a, 0, NULL, 0), int_or(a, 1, NULL, 1));
    if (eq(name, "t") && x->nd == 2)
        return transpose(in, x, 0, 1);
    if (eq(name, "permute"))
        return permute(in, x, a);
    if (eq(name, "contiguous"))
        return x->transposed && x->gpu ? tensor_result(in, tr_copy(in->tr, x->t, x->nd, x->dim)) : x;
    if (eq(name, "size") || eq(name, "shape"))
        return size_method(in, x, a);
    if (eq(name, "dim") || eq(name, "ndimension"))
        return av_int(in, x->nd);
    if (eq(name, "numel"))
        return av_int(in, (int64_t)numel_of(x));
    if (eq(name, "split") || eq(name, "chunk"))
        return split(in, x, name, a);
    if (eq(name, "unsqueeze")) {
        int d = (int)int_or(a, 0, "dim", 0);
        return insert_dim(in, x, d < 0 ? d + x->nd + 1 : d, 1);
    }
    if (eq(name, "squeeze") || eq(name, "flatten"))
        return squeeze(in, x, name, a);
    return NULL;
}

/* The dtype and device x.to(...), .cuda(), .float(), ... ask for. */
static void conversion_target(const AVal *x, const char *name, Args *a, DType *dt, bool *to_gpu)
{
    *dt = (DType)x->dtype;
    *to_gpu = x->gpu || eq(name, "cuda");
    for (uint32_t i = 0; i < a->n; i++) {
        DType d;
        if (dtype_of(a->v[i], &d))
            *dt = d;
        else if (!a->kw[i] || eq(a->kw[i], "device"))
            *to_gpu |= device_is_gpu(a->v[i]) || (a->v[i]->k == AV_TENSOR && a->v[i]->gpu);
    }
    if (eq(name, "float")) *dt = DT_F32;
    if (eq(name, "half")) *dt = DT_F16;
    if (eq(name, "bfloat16")) *dt = DT_BF16;
    if (eq(name, "long") || eq(name, "int")) *dt = DT_I64;
    if (eq(name, "cpu"))
        *to_gpu = false;
}

static AVal *cast_value(Interp *in, AVal *x, DType dt, bool to_gpu)
{
    AVal *r = x;
    if (to_gpu && !x->gpu) {
        r = av_tensor_new(in, dt, x->nd, x->dim, true);
    } else if (x->gpu && dt != x->dtype) {
        r = tensor_result(in, tr_cast(in->tr, x->t, dt));
    } else if (!x->gpu && dt != x->dtype) {
        r = av_tensor_new(in, dt, x->nd, x->dim, false);
    }
    return r;
}

static AVal *convert(Interp *in, AVal *x, const char *name, Args *a)
{
    DType dt;
    bool to_gpu;
    conversion_target(x, name, a, &dt, &to_gpu);
    return cast_value(in, x, dt, to_gpu);
}

/* x.type_as(other): other's dtype (and its device, as .to(other) would). */
static AVal *type_as(Interp *in, AVal *x, AVal *other)
{
    if (!other || other->k != AV_TENSOR)
        return x;
    return cast_value(in, x, (DType)other->dtype, x->gpu || other->gpu);
}

/* Conversions and copies: to / cuda / float / ..., detach, clone,
 * new_zeros; NULL when name is not one. */
static AVal *conversion_method(Interp *in, AVal *x, const char *name, Args *a)
{
    if (eq(name, "type_as"))
        return type_as(in, x, arg(a, 0, "other"));
    if (eq(name, "to") || eq(name, "cuda") || eq(name, "cpu") || eq(name, "float") || eq(name, "half") ||
        eq(name, "bfloat16") || eq(name, "long") || eq(name, "int") || eq(name, "double") || eq(name, "type"))
        return convert(in, x, name, a);
    if (eq(name, "item") || eq(name, "tolist"))
        return av_unknown(in);
    if (eq(name, "detach") || eq(name, "data"))
        return x->gpu ? tensor_result(in, tr_detach(in->tr, x->t)) : x;
    if (eq(name, "clone"))
        return x->gpu ? tensor_result(in, tr_copy(in->tr, x->t, x->nd, x->dim)) : x;
    if (eq(name, "new_zeros") || eq(name, "new_ones") || eq(name, "new_empty")) {
        int64_t dim[TR_MAXDIM];
        int nd = shape_args(a, 0, dim);
        return nd < 0 ? av_unknown(in) : new_tensor_value(in, (DType)x->dtype, nd, dim, x->gpu);
    }
    return NULL;
}

/* sum / mean / max / min / norm: of everything, or along dim= (keepdim=). */
static AVal *reduce(Interp *in, AVal *x, Args *a)
{
    if (!a->n && x->gpu)
        return tensor_result(in, tr_reduce(in->tr, x->t));
    if (x->gpu && x->nd) {
        int64_t dim[TR_MAXDIM];
        int d = norm_dim(x, int_or(a, 0, "dim", -1));
        bool keep = bool_or(a, 1, "keepdim", false);
        int nd = 0;
        for (int i = 0; i < x->nd; i++)
            if (i != d)
                dim[nd++] = x->dim[i];
            else if (keep)
                dim[nd++] = 1;
        return tensor_result(in, tr_reduce_to(in->tr, x->t, nd, dim));
    }
    return av_unknown(in);
}

/* Elementwise math, reductions, products; NULL when name is not one. */
static AVal *math_method(Interp *in, AVal *x, const char *name, Args *a)
{
    if (eq(name, "masked_fill") || eq(name, "masked_fill_"))
        return x->gpu ? same_shape(in, x, tr_masked_fill(in->tr, x->t), x->transposed) : x;
    if (eq(name, "softmax") || eq(name, "log_softmax"))
        return x->gpu ? tensor_result(in, tr_softmax(in->tr, x->t, eq(name, "log_softmax"))) : x;
    if (eq(name, "relu") || eq(name, "relu_"))
        return act(in, x, ACT_RELU, eq(name, "relu_"));
    /* pointwise ops whose backward needs their input */
    if (eq(name, "abs") || eq(name, "neg") || eq(name, "clamp") || eq(name, "clip") || eq(name, "clamp_min") ||
        eq(name, "sin") || eq(name, "cos") || eq(name, "erf") || eq(name, "square") || eq(name, "gelu") ||
        eq(name, "silu"))
        return act(in, x, eq(name, "silu") ? ACT_SILU : ACT_GELU, false);
    if (eq(name, "pow"))
        return tensor_binop(in, T_DOUBLESTAR, x, arg(a, 0, "exponent") ? arg(a, 0, "exponent") : av_int(in, 2));
    if (eq(name, "tanh") || eq(name, "exp") || eq(name, "log") || eq(name, "sqrt") || eq(name, "rsqrt"))
        return act(in, x, ACT_TANH, false);
    if (eq(name, "sigmoid"))
        return act(in, x, ACT_SIGMOID, false);
    if (eq(name, "sum") || eq(name, "mean") || eq(name, "max") || eq(name, "min") || eq(name, "norm") ||
        eq(name, "amax") || eq(name, "amin") || eq(name, "logsumexp") || eq(name, "std") || eq(name, "var") ||
        eq(name, "prod"))
        return reduce(in, x, a);
    if (eq(name, "backward") || eq(name, "zero_") || eq(name, "fill_") || eq(name, "retain_grad"))
        return av_none(in);
    if (eq(name, "argmax") || eq(name, "argmin"))
        return av_unknown(in);
    if (eq(name, "matmul"))
        return tensor_binop(in, T_AT, x, arg(a, 0, NULL));
    if (eq(name, "mul") || eq(name, "add") || eq(name, "sub") || eq(name, "div"))
        return tensor_binop(in, eq(name, "mul") ? T_STAR : eq(name, "div") ? T_SLASH : T_PLUS, x,
                            arg(a, 0, NULL));
    return NULL;
}

/* repeat(*sizes): leading new dimensions, each old one multiplied. */
static AVal *repeat(Interp *in, AVal *x, Args *a)
{
    int64_t times[TR_MAXDIM], dim[TR_MAXDIM];
    int n = shape_args(a, 0, times);
    if (n < x->nd)
        return assumed_op(in, x, "`.repeat()` with sizes pfc cannot read");
    for (int i = 0; i < n; i++) {
        int old = i - (n - x->nd);
        dim[i] = old < 0 ? times[i] : ck_smul(x->dim[old], times[i]);
    }
    return copy_shaped(in, x, n, dim);
}

/* repeat_interleave(repeats, dim=None): along dim, or of the flattened tensor. */
static AVal *repeat_interleave(Interp *in, AVal *x, Args *a)
{
    int64_t r, d, dim[TR_MAXDIM];
    if (!int_arg(a, 0, "repeats", &r))
        return assumed_op(in, x, "`.repeat_interleave()` with repeats pfc cannot read");
    if (!int_arg(a, 1, "dim", &d)) {
        dim[0] = ck_smul((int64_t)numel_of(x), r);
        return copy_shaped(in, x, 1, dim);
    }
    int k = norm_dim(x, d);
    if (k < 0 || k >= x->nd)
        return av_unknown(in);
    memcpy(dim, x->dim, sizeof dim);
    dim[k] = ck_smul(dim[k], r);
    return copy_shaped(in, x, x->nd, dim);
}

/* a.outer(b) for vectors: an (n, m) product keeping both. */
static AVal *outer(Interp *in, AVal *x, AVal *y)
{
    if (!y || y->k != AV_TENSOR || x->nd != 1 || y->nd != 1)
        return assumed_op(in, x, "`outer` of operands that are not vectors");
    int64_t dim[2] = {x->dim[0], y->dim[0]};
    if (!x->gpu && !y->gpu)
        return av_tensor_new(in, (DType)x->dtype, 2, dim, false);
    return tensor_result(in, tr_contract(in->tr, "outer", av_gpu(in, x), av_gpu(in, y), 2, dim));
}

/* gather(dim, index) and take_along_dim: the index's shape;
 * index_select(dim, index): x with dim resized to the index's length. */
static AVal *gather(Interp *in, AVal *x, const char *name, Args *a)
{
    bool select = eq(name, "index_select");
    AVal *idx = arg(a, eq(name, "take_along_dim") ? 0 : 1, "index");
    if (!idx || idx->k != AV_TENSOR)
        idx = arg(a, 0, "indices");
    if (!idx || idx->k != AV_TENSOR)
        return assumed_op(in, x, arena_printf(in->a, "`.%s()` with an index pfc cannot follow", name));
    int64_t dim[TR_MAXDIM];
    int nd = idx->nd;
    memcpy(dim, idx->dim, sizeof dim);
    if (select) {
        int k = norm_dim(x, int_or(a, 0, "dim", 0));
        if (k < 0 || k >= x->nd)
            return av_unknown(in);
        memcpy(dim, x->dim, sizeof dim);
        dim[k] = (int64_t)numel_of(idx);
        nd = x->nd;
    }
    if (!x->gpu)
        return av_tensor_new(in, (DType)x->dtype, nd, dim, false);
    return tensor_result(in, tr_gather(in->tr, x->t, av_gpu(in, idx), nd, dim));
}

/* Indexing and products: gathers, repeat, outer; NULL when name is not one. */
static AVal *index_method(Interp *in, AVal *x, const char *name, Args *a)
{
    if (eq(name, "gather") || eq(name, "index_select") || eq(name, "take_along_dim"))
        return gather(in, x, name, a);
    if (eq(name, "repeat"))
        return repeat(in, x, a);
    if (eq(name, "repeat_interleave"))
        return repeat_interleave(in, x, a);
    if (eq(name, "outer") || eq(name, "ger"))
        return outer(in, x, arg(a, 0, "vec2"));
    if (eq(name, "flip") || eq(name, "roll") || eq(name, "tril") || eq(name, "triu") || eq(name, "cumsum"))
        return copy_shaped(in, x, x->nd, x->dim);
    if (eq(name, "eq") || eq(name, "ne") || eq(name, "lt") || eq(name, "le") || eq(name, "gt") ||
        eq(name, "ge") || eq(name, "isnan") || eq(name, "isinf") || eq(name, "isfinite") ||
        eq(name, "logical_not"))
        return tensor_binop(in, T_EQEQUAL, x, arg(a, 0, NULL) ? arg(a, 0, NULL) : av_int(in, 0));
    return NULL;
}

/* Methods that answer a question about the tensor rather than make one
 * (item and tolist are conversions: conversion_method answers them). */
static bool is_query_method(const char *name)
{
    static const char *const queries[] = {
        "is_contiguous", "is_floating_point", "is_complex", "get_device", "element_size",
        "data_ptr", "stride", "storage_offset", "numpy", "register_hook", "nelement", "any", "all",
        "equal", "allclose", "nonzero", "unique", "bincount", "untyped_storage",
    };
    for (size_t i = 0; i < sizeof queries / sizeof queries[0]; i++)
        if (eq(name, queries[i]))
            return true;
    return false;
}

/* A method none of the tables knows: in-place ones (`add_`, `copy_`) give the
 * tensor back; the rest are assumed elementwise, and said so. */
static AVal *unmodelled_method(Interp *in, AVal *x, const char *name)
{
    size_t n = strlen(name);
    if (is_query_method(name))
        return av_unknown(in);
    if (n > 1 && name[n - 1] == '_' && name[n - 2] != '_')
        return x;
    return assumed_op(in, x, arena_printf(in->a, "`.%s()`", name));
}

static AVal *tensor_method(Interp *in, AVal *x, const char *name, Args *a)
{
    AVal *r = shape_method(in, x, name, a);
    if (!r)
        r = conversion_method(in, x, name, a);
    if (!r)
        r = math_method(in, x, name, a);
    if (!r)
        r = index_method(in, x, name, a);
    return r ? r : unmodelled_method(in, x, name);
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
static AVal *module_method(Interp *in, AVal *self, const char *name, Args *a)
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

static AVal *accelerator_method(Interp *in, Obj *acc, const char *name, Args *a)
{
    if (eq(name, "prepare")) {
        /* returns what it was given, wrapped: the same module, optimizer, loader */
        if (a->n == 1)
            return a->v[0];
        AVal *s = av_seq(in, a->n);
        for (uint32_t i = 0; i < a->n; i++)
            s->items[i] = a->v[i];
        return s;
    }
    if (eq(name, "autocast")) {
        AVal *mp = obj_get(acc, "mixed_precision");
        bool on = mp && mp->k == AV_STR && (strcmp(mp->s, "bf16") == 0 || strcmp(mp->s, "fp16") == 0);
        return context(in, OPAQUE_AUTOCAST, on, on && strcmp(mp->s, "fp16") == 0 ? DT_F16 : DT_BF16);
    }
    if (eq(name, "unwrap_model") || eq(name, "prepare_model"))
        return arg(a, 0, NULL) ? arg(a, 0, NULL) : av_unknown(in);
    return av_none(in);
}

static AVal *argparse_method(Interp *in, Obj *parser, const char *name, Args *a)
{
    if (eq(name, "add_argument")) {
        add_argument(in, parser, a);
        return av_none(in);
    }
    if (eq(name, "parse_args"))
        return parse_args(in, parser);
    if (eq(name, "parse_known_args")) {
        AVal *pair = av_seq(in, 2);
        pair->items[0] = parse_args(in, parser);
        pair->items[1] = av_seq(in, 0);
        return pair;
    }
    return av_unknown(in);
}

static AVal *object_method(Interp *in, AVal *recv, const char *name, Args *a)
{
    Obj *o = recv->obj;
    if (o->nn == NN_LOADER && eq(name, "__iter__"))
        return recv;
    if (o->nn == NN_OPAQUE && o->a == OPAQUE_TRAINER && eq(name, "train"))
        return trainer_step(in, o);
    if (o->nn == NN_OPAQUE && o->a == OPAQUE_ACCELERATOR)
        return accelerator_method(in, o, name, a);
    if (o->nn == NN_OPAQUE && o->a == OPAQUE_ARGPARSER)
        return argparse_method(in, o, name, a);
    if (o->nn == NN_OPAQUE && eq(name, "scale"))
        return arg(a, 0, NULL) ? arg(a, 0, NULL) : av_unknown(in);
    if (o->is_module || o->nn != NN_NONE)
        return module_method(in, recv, name, a);
    return av_unknown(in);
}

static AVal *seq_method(Interp *in, AVal *recv, const char *name, Args *a)
{
    if (eq(name, "append") && recv->n < 100000) {
        AVal **items = arena_alloc(in->a, (recv->n + 1) * sizeof *items);
        if (recv->n)
            memcpy(items, recv->items, recv->n * sizeof *items);
        items[recv->n++] = arg(a, 0, NULL) ? arg(a, 0, NULL) : av_unknown(in);
        recv->items = items;
        return av_none(in);
    }
    return av_unknown(in);
}

static AVal *dict_method(Interp *in, AVal *recv, const char *name, Args *a)
{
    if (eq(name, "get") || eq(name, "pop")) {
        AVal *k = arg(a, 0, NULL);
        for (uint32_t i = 0; k && k->k == AV_STR && i < recv->n; i++)
            if (eq(recv->keys[i], k->s))
                return recv->items[i];
        return arg(a, 1, NULL) ? arg(a, 1, NULL) : av_none(in);
    }
    if (eq(name, "items") || eq(name, "values") || eq(name, "keys")) {
        AVal *s = av_seq(in, recv->n);
        for (uint32_t i = 0; i < recv->n; i++) {
            if (eq(name, "items")) {
                AVal *p = av_seq(in, 2);
                p->items[0] = av_str(in, recv->keys[i]);
                p->items[1] = recv->items[i];
                s->items[i] = p;
            } else {
                s->items[i] = eq(name, "values") ? recv->items[i] : av_str(in, recv->keys[i]);
            }
        }
        return s;
    }
    return av_unknown(in);
}

/* ---- parameters used as tensors ---------------------------------------------------------- */

/* A parameter's transpose (`W.T`, `W.t()`): the same parameter, its two
 * dimensions presented the other way round. */
static AVal *param_transpose(Interp *in, AVal *p)
{
    if (p->nd != 2)
        return av_unknown(in);
    AVal *r = arena_copy(in->a, p, sizeof *p);
    r->dim[0] = p->dim[1];
    r->dim[1] = p->dim[0];
    r->transposed = !p->transposed;
    return r;
}

/* A parameter indexed or reshaped (`self.pos[:, :T]`, `self.b.view(1, -1)`):
 * the same parameter with the shape the tensor op would give. */
static AVal *param_reshaped(Interp *in, AVal *p, AVal *as_tensor)
{
    if (!as_tensor || as_tensor->k != AV_TENSOR)
        return av_unknown(in);
    AVal *r = arena_copy(in->a, p, sizeof *p);
    r->nd = as_tensor->nd;
    memcpy(r->dim, as_tensor->dim, sizeof r->dim);
    return r;
}

static AVal *param_as_cpu_tensor(Interp *in, AVal *p)
{
    return av_tensor_new(in, DT_F32, p->nd, p->dim, false);
}

/* A method of an nn.Parameter: a transpose, a reshape, a view or a
 * conversion is still that parameter (its gradient flows to it); sizes are
 * read from its shape. */
static AVal *param_method(Interp *in, AVal *p, const char *name, Args *a)
{
    if (eq(name, "t"))
        return param_transpose(in, p);
    AVal *as_tensor = param_as_cpu_tensor(in, p);
    AVal *r = shape_method(in, as_tensor, name, a);
    if (!r && (eq(name, "to") || eq(name, "type_as") || eq(name, "float") || eq(name, "half") ||
               eq(name, "bfloat16") || eq(name, "contiguous") || eq(name, "cuda")))
        return p;
    if (!r || r->k != AV_TENSOR)
        return r ? r : av_unknown(in);
    return param_reshaped(in, p, r);
}

AVal *method_call(Interp *in, AVal *recv, const char *name, Args *a)
{
    if (!recv)
        return av_unknown(in);
    switch (recv->k) {
    case AV_TENSOR: return tensor_method(in, recv, name, a);
    case AV_PARAM: return param_method(in, recv, name, a);
    case AV_OBJECT: return object_method(in, recv, name, a);
    case AV_SEQ: return seq_method(in, recv, name, a);
    case AV_DICT: return dict_method(in, recv, name, a);
    default: return av_unknown(in);
    }
}

static AVal *tensor_attr(Interp *in, AVal *base, const char *name)
{
    if (eq(name, "shape"))
        return shape_value(in, base);
    if (eq(name, "dtype")) {
        AVal *d = av_new(in, AV_DTYPE);
        d->dtype = base->dtype;
        return d;
    }
    if (eq(name, "device")) {
        AVal *d = av_new(in, AV_DEVICE);
        d->i = base->gpu;
        return d;
    }
    if (eq(name, "T") && base->nd == 2)
        return transpose(in, base, 0, 1);
    if (eq(name, "ndim"))
        return av_int(in, base->nd);
    if (eq(name, "data"))
        return base->gpu ? tensor_result(in, tr_detach(in->tr, base->t)) : base;
    return av_bound(in, base, name);
}

/* An attribute of a library module: set ones first, then weight and bias
 * (as out x in), ModuleDict entries, Linear's sizes. */
static AVal *module_attr(Interp *in, AVal *base, const char *name)
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

static AVal *param_attr(Interp *in, AVal *p, const char *name)
{
    if (eq(name, "T") || eq(name, "mT"))
        return param_transpose(in, p);
    if (eq(name, "shape"))
        return shape_value(in, p);
    if (eq(name, "ndim"))
        return av_int(in, p->nd);
    return av_bound(in, p, name);
}

AVal *attr_of_value(Interp *in, AVal *base, const char *name)
{
    if (base->k == AV_TENSOR)
        return tensor_attr(in, base, name);
    if (base->k == AV_PARAM)
        return param_attr(in, base, name);
    if (base->k == AV_OBJECT)
        return module_attr(in, base, name);
    if (base->k == AV_SEQ || base->k == AV_DICT)
        return av_bound(in, base, name);
    return av_unknown(in);
}

/* ---- operators on tensors --------------------------------------------------------------- */

static AVal *broadcast_cpu(Interp *in, AVal *x, AVal *y, DType dt)
{
    AVal *big = y && y->k == AV_TENSOR && numel_of(y) > numel_of(x) ? y : x;
    return av_tensor_new(in, dt, big->nd, big->dim, false);
}

/* An operator between a tensor and an nn.Parameter (a hand-written norm's
 * `x * self.weight`, a bias `x + self.b`, a projection `x @ self.W` or
 * `x @ self.W.T`): the parameter is resident, so what matters is what the
 * op keeps for the parameter's gradient. */
static AVal *param_binop(Interp *in, int tok, AVal *x, AVal *p, bool param_first)
{
    TId t = av_gpu(in, x);
    if (!t)
        return av_unknown(in);
    switch (tok) {
    case T_AT: case T_ATEQUAL:
        if (param_first || p->nd != 2)
            return assumed_op(in, x, "`@` with a parameter on the left or not a matrix");
        return tensor_result(in, tr_linear(in->tr, t, p->dim[1], p->param, 0));
    case T_STAR: case T_STAREQUAL: case T_SLASH: case T_SLASHEQUAL:
        return tensor_result(in, tr_with_param(in->tr, t, p->param, true));
    case T_PLUS: case T_MINUS: case T_PLUSEQUAL: case T_MINEQUAL:
        return tensor_result(in, tr_with_param(in->tr, t, p->param, false));
    default:
        return assumed_op(in, x, "an operator with a parameter");
    }
}

AVal *tensor_binop(Interp *in, int tok, AVal *x, AVal *y)
{
    if (!x || !y)
        return av_unknown(in);
    if (x->k == AV_TENSOR && y->k == AV_PARAM)
        return param_binop(in, tok, x, y, false);
    if (x->k == AV_PARAM && y->k == AV_TENSOR)
        return param_binop(in, tok, y, x, true);
    bool xt = x->k == AV_TENSOR, yt = y->k == AV_TENSOR;
    if (!xt && !yt)
        return av_unknown(in);
    AVal *t = xt ? x : y;
    bool is_cmp = tok == T_EQEQUAL || tok == T_NOTEQUAL || tok == T_LESS || tok == T_GREATER ||
                  tok == T_LESSEQUAL || tok == T_GREATEREQUAL;
    if (!t->gpu && (!xt || !x->gpu) && (!yt || !y->gpu))
        return broadcast_cpu(in, xt ? x : y, xt && yt ? y : NULL, is_cmp ? DT_BOOL : (DType)t->dtype);
    if (is_cmp) {
        AVal *big = xt && yt && numel_of(y) > numel_of(x) ? y : t;
        int64_t dim[TR_MAXDIM];
        memcpy(dim, big->dim, sizeof dim);
        return tensor_result(in, tr_new(in->tr, DT_BOOL, big->nd, dim));
    }
    TId a = xt ? av_gpu(in, x) : 0, b = yt ? av_gpu(in, y) : 0;
    Trace *tr = in->tr;
    switch (tok) {
    case T_AT: case T_ATEQUAL:
        if (!a || !b)
            return av_unknown(in);
        if (matmul_needs_copy(x))
            a = tr_copy(tr, a, x->nd, x->dim);
        if (matmul_needs_copy(y))
            b = tr_copy(tr, b, y->nd, y->dim);
        return tensor_result(in, tr_matmul(tr, a, b));
    case T_PLUS: case T_MINUS: case T_PLUSEQUAL: case T_MINEQUAL:
        return a && b ? tensor_result(in, tr_add(tr, a, b)) : tensor_result(in, tr_scale(tr, a ? a : b));
    case T_STAR: case T_STAREQUAL: case T_SLASH: case T_SLASHEQUAL:
        return a && b ? tensor_result(in, tr_mul(tr, a, b)) : tensor_result(in, tr_scale(tr, a ? a : b));
    case T_DOUBLESTAR:
        return a ? tensor_result(in, tr_mul(tr, a, a)) : av_unknown(in);
    default:
        return av_unknown(in);
    }
}

/* One index of a subscript: how it changes one dimension. */
static bool index_dim(const AVal *idx, int64_t size, int64_t *out, bool *drop)
{
    *drop = false;
    if (idx->k == AV_INT) {
        *drop = true;
        return true;
    }
    if (idx->k == AV_SLICE) {
        int64_t lo = 0, hi = size, step = 1;
        if ((idx->i & 1) && idx->items[0]->k != AV_NONE && !av_int_of(idx->items[0], &lo))
            return false;
        if ((idx->i & 2) && idx->items[1]->k != AV_NONE && !av_int_of(idx->items[1], &hi))
            return false;
        if ((idx->i & 4) && idx->items[2]->k != AV_NONE && !av_int_of(idx->items[2], &step))
            return false;
        if (lo < 0) lo += size;
        if (hi < 0) hi += size;
        if (hi > size) hi = size;
        if (lo < 0) lo = 0;
        *out = hi > lo ? (hi - lo + step - 1) / (step > 0 ? step : 1) : 0;
        return true;
    }
    return false;
}

/* The indices of x[idx]: a tuple's items, or a copy of the one index. */
static AVal **index_items(Interp *in, AVal *idx, uint32_t *n)
{
    if (idx->k == AV_SEQ) {
        *n = idx->n;
        return idx->items;
    }
    AVal **heap = arena_alloc(in->a, sizeof *heap);
    heap[0] = arena_copy(in->a, idx, sizeof *idx);
    *n = 1;
    return heap;
}

/* An index that is a tensor: integer indices replace one dimension by the
 * index's shape (the first one; later ones broadcast with it), a boolean
 * mask replaces the dimensions it covers by one, sized as if every element
 * were selected (the count is data: the upper bound, said so). */
static bool tensor_index(Interp *in, const AVal *x, const AVal *it, int *src, int64_t *dim, int *nd,
                         AVal **first)
{
    if (it->dtype == DT_BOOL) {
        int64_t n = 1;
        for (int k = 0; k < it->nd && *src < x->nd; k++)
            n = ck_smul(n, x->dim[(*src)++]);
        if (*nd < TR_MAXDIM)
            dim[(*nd)++] = n;
        interp_note(in, in->cur_node, "indexing by a boolean mask: every element assumed selected");
    } else {
        (*src)++;
        for (int k = 0; !*first && k < it->nd && *nd < TR_MAXDIM; k++)
            dim[(*nd)++] = it->dim[k];
    }
    if (!*first)
        *first = (AVal *)it;
    return true;
}

AVal *tensor_subscript(Interp *in, AVal *x, AVal *idx)
{
    if (x->k == AV_PARAM)
        return param_reshaped(in, x, tensor_subscript(in, param_as_cpu_tensor(in, x), idx));
    uint32_t n;
    AVal **items = index_items(in, idx, &n);
    int64_t dim[TR_MAXDIM];
    int nd = 0, src = 0;
    AVal *gather_index = NULL;
    for (uint32_t i = 0; i < n; i++) {
        AVal *it = items[i];
        if (it->k == AV_TENSOR) {
            tensor_index(in, x, it, &src, dim, &nd, &gather_index);
            continue;
        }
        if (it->k == AV_ELLIPSIS) {
            /* ... stands for the dimensions the indices after it leave */
            int rest = 0;
            for (uint32_t k = i + 1; k < n; k++)
                rest += items[k]->k != AV_NONE;
            while (src < x->nd - rest && nd < TR_MAXDIM)
                dim[nd++] = x->dim[src++];
            continue;
        }
        if (it->k == AV_NONE) {
            if (nd < TR_MAXDIM)
                dim[nd++] = 1;
            continue;
        }
        if (src >= x->nd)
            return av_unknown(in);
        int64_t size;
        bool drop;
        if (!index_dim(it, x->dim[src], &size, &drop))
            return av_unknown(in);
        if (!drop && nd < TR_MAXDIM)
            dim[nd++] = size;
        src++;
    }
    while (src < x->nd && nd < TR_MAXDIM)
        dim[nd++] = x->dim[src++];
    if (!x->gpu)
        return av_tensor_new(in, (DType)x->dtype, nd, dim, false);
    if (gather_index)
        return tensor_result(in, tr_gather(in->tr, x->t, av_gpu(in, gather_index), nd, dim));
    AVal *r = tensor_result(in, tr_view(in->tr, x->t, nd, dim));
    r->transposed = true;
    return r;
}
