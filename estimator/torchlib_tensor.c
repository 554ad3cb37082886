/* Tensor methods, attributes and operators: views and reshapes,
 * conversions, reductions, math methods, indexing and gathers, Python
 * operators, and nn.Parameter used as a tensor. */
#include "torchlib.h"
#include <math.h>
#include <stdlib.h>

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
    if (nd < 0) {   /* the tensor is lost here: say so, for the refusal that follows */
        interp_lost_here(in, arena_printf(in->a, "a shape of %s() is not a number pfc can read", name));
        return av_unknown(in);
    }
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

AVal *tensor_method(Interp *in, AVal *x, const char *name, Args *a)
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
AVal *param_method(Interp *in, AVal *p, const char *name, Args *a)
{
    if (eq(name, "requires_grad_"))
        return requires_grad_call(in, p, a);
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

AVal *tensor_attr(Interp *in, AVal *base, const char *name)
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

AVal *param_attr(Interp *in, AVal *p, const char *name)
{
    if (eq(name, "T") || eq(name, "mT"))
        return param_transpose(in, p);
    if (eq(name, "shape"))
        return shape_value(in, p);
    if (eq(name, "ndim"))
        return av_int(in, p->nd);
    if (eq(name, "requires_grad"))
        return param_requires_grad(in, p);
    return av_bound(in, p, name);
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
