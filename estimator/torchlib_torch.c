/* torch.* functions: creation (zeros, randn, arange, ...), cat/stack,
 * einsum, and the functions that are also tensor methods. */
#include "torchlib.h"
#include <math.h>
#include <stdlib.h>

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
AVal *torch_call(Interp *in, const char *f, Args *a)
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
