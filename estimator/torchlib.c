/* The interpreter's library (see torchlib.h): reading arguments, the shape
 * helpers every op shares, and the dispatch of calls, methods and attributes
 * to the file that models them. */
#include "torchlib.h"
#include <math.h>
#include <stdlib.h>

bool ends(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0 && (n == k || s[n - k - 1] == '.');
}

/* The last component of a qualified name. */
const char *leaf(const char *q)
{
    const char *d = strrchr(q, '.');
    return d ? d + 1 : q;
}

static bool in_ns(const char *q, const char *ns)
{
    size_t n = strlen(ns);
    return strncmp(q, ns, n) == 0 && q[n] == '.' && !strchr(q + n + 1, '.');
}

/* np.floor, np.ceil, np.sqrt, np.log of a Python number (int(np.floor(k / 2))
 * sizes a padding): math's value as a float, as numpy returns float64;
 * NULL for any other call or argument. */
static AVal *numpy_scalar(Interp *in, const char *f, Args *a)
{
    double v;
    if (!eq(f, "floor") && !eq(f, "ceil") && !eq(f, "sqrt") && !eq(f, "log"))
        return NULL;
    if (!arg(a, 0, NULL) || !av_num(arg(a, 0, NULL), &v) || a->n != 1)
        return NULL;
    return av_float(in, eq(f, "floor") ? floor(v) : eq(f, "ceil") ? ceil(v) : eq(f, "sqrt") ? sqrt(v) : log(v));
}

bool int_arg(const Args *a, int pos, const char *kw, int64_t *out)
{
    AVal *v = arg(a, pos, kw);
    return v && av_int_of(v, out);
}

int64_t int_or(const Args *a, int pos, const char *kw, int64_t dflt)
{
    int64_t v;
    return int_arg(a, pos, kw, &v) ? v : dflt;
}

/* Refuses the estimate (the trace keeps the first reason and the line of
 * the call being evaluated) and ends the interpretation. */
void refuse(Interp *in, const char *why)
{
    tr_refuse(in->tr, why);
    interp_fail(in, in->tr->error);
}

/* The refusal for an argument the script gives that pfc cannot read as a
 * number: a weight sized without it would be a confident wrong count. */
void refuse_unread(Interp *in, const AVal *v, int pos, const char *kw, const char *module)
{
    const char *what = arena_printf(in->a, "%s's %s", module, kw);
    if (v && v->k == AV_UNKNOWN && v->origin) {   /* a required argument the command line lacks */
        refuse(in, missing_config(in, what, v));
        return;
    }
    refuse(in, arena_printf(in->a, "%s is not a number pfc can read%s", what, arg_shown(in, pos, kw)));
}

const char *arg_shown(Interp *in, int pos, const char *kw)
{
    const char *src = interp_arg_source(in, pos, kw);
    return src ? arena_printf(in->a, " (%s)", src) : "";
}

/* A module's size (features, channels, embeddings, heads): a positive
 * integer up to CK_DIM_MAX; dflt when the script does not give it (0: it
 * must). A value pfc cannot read, a non-integer, zero, a negative number
 * or an absurd one is a refusal with the module and argument named. */
int64_t size_arg(Interp *in, const Args *a, int pos, const char *kw, int64_t dflt, const char *module)
{
    AVal *v = arg(a, pos, kw);
    int64_t n;
    if (!v && !dflt) {
        refuse(in, arena_printf(in->a, "%s lacks its %s", module, kw));
        return 0;
    }
    if (!v)
        return dflt;
    if (v->k != AV_INT && v->k != AV_FLOAT && v->k != AV_BOOL) {
        refuse_unread(in, v, pos, kw, module);
        return 0;
    }
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
 * the first): 0 .. CK_DIM_MAX, dflt when not given, else refused like
 * size_arg. */
int64_t count_arg(Interp *in, const Args *a, int pos, const char *kw, int64_t dflt, const char *module)
{
    AVal *v = arg(a, pos, kw);
    int64_t n;
    if (!v)
        return dflt;
    if (!av_int_of(v, &n)) {
        refuse_unread(in, v, pos, kw, module);
        return dflt;
    }
    if (n < 0 || n > CK_DIM_MAX) {
        refuse(in, arena_printf(in->a, "%s's %s is %lld, not a count pfc can estimate", module, kw, (long long)n));
        return dflt;
    }
    return n;
}

double num_or(const Args *a, int pos, const char *kw, double dflt)
{
    double v;
    AVal *x = arg(a, pos, kw);
    return x && av_num(x, &v) ? v : dflt;
}

double dropout_p(Interp *in, const Args *a, int pos, const char *kw, double dflt, const char *what)
{
    double v;
    AVal *x = arg(a, pos, kw);
    if (!x || x->k == AV_NONE)
        return dflt;   /* PyTorch's default */
    if (av_num(x, &v))
        return v;
    interp_note(in, in->cur_node,
                arena_printf(in->a, "%s's dropout probability%s is a value pfc cannot read: %g (PyTorch's default) "
                                    "is assumed, %s", what, arg_shown(in, pos, kw), dflt,
                             dflt > 0 ? "so its mask is counted" : "so no dropout mask is counted"));
    return dflt;
}

bool bool_or(const Args *a, int pos, const char *kw, bool dflt)
{
    AVal *x = arg(a, pos, kw);
    bool known;
    bool t = x ? av_truth(x, &known) : (known = false);
    return known ? t : dflt;
}

/* A dtype named by a value: torch.bfloat16, "bfloat16", AV_DTYPE. */
bool dtype_of(const AVal *v, DType *out)
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
bool device_is_gpu(const AVal *v)
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

/* A new tensor of the given shape made from x by a copy that autograd
 * needs nothing for (repeat, pad, flip): on the GPU when x is. */
AVal *copy_shaped(Interp *in, AVal *x, int nd, const int64_t *dim)
{
    if (!x->gpu)
        return av_tensor_new(in, (DType)x->dtype, nd, dim, false);
    return tensor_result(in, tr_copy(in->tr, x->t, nd, dim));
}

/* An op on a tensor that pfc does not model. Rather than losing the tensor
 * (and with it everything computed from it), it is taken as elementwise:
 * the same shape and dtype, its input kept for the backward (what most ops
 * keep), and the report lists it with its line. */
AVal *assumed_op(Interp *in, AVal *x, const char *what)
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
int shape_args(const Args *a, int from, int64_t *dim)
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

AVal *shape_value(Interp *in, const AVal *x)
{
    AVal *s = av_seq(in, x->nd);
    for (int i = 0; i < x->nd; i++)
        s->items[i] = av_int(in, x->dim[i]);
    return s;
}

uint64_t numel_of(const AVal *x)
{
    return ck_numel(x->dim, x->nd);
}

/* A reshaped view (or copy, when the memory is transposed). */
AVal *reshape(Interp *in, AVal *x, int nd, int64_t *dim, bool copy_ok)
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

AVal *same_shape(Interp *in, AVal *x, TId t, bool transposed)
{
    AVal *r = tensor_result(in, t);
    r->transposed = transposed;
    (void)x;
    return r;
}

/* A dimension index counted from the end when negative; out of range
 * (also for absurd values) it stays out of range. */
int norm_dim(const AVal *x, int64_t d)
{
    if (d < -TR_MAXDIM - 1 || d > TR_MAXDIM + 1)
        return -1;
    return (int)(d < 0 ? d + x->nd : d);
}

/* Memory layout: the logical dimension stored i-th (identity when row-major). */
void layout(const AVal *x, uint8_t *p)
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

void set_layout(AVal *r, const uint8_t *p, int nd)
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
bool matmul_needs_copy(const AVal *x)
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

AVal *transpose(Interp *in, AVal *x, int64_t d0, int64_t d1)
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

AVal *insert_dim(Interp *in, AVal *x, int at, int64_t size)
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

AVal *new_tensor_value(Interp *in, DType dt, int nd, int64_t *dim, bool gpu)
{
    if (!gpu)
        return av_tensor_new(in, dt, nd, dim, false);
    return tensor_result(in, tr_new(in->tr, dt, nd, dim));
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
    if (strncmp(q, "builtins.", 9) == 0 && strcmp(q, "builtins.open") != 0)
        return builtin(in, q + 9, a);
    if (in_ns(q, "math"))
        return math_call(in, leaf(q), a);
    if (in_ns(q, "numpy") && (r = numpy_scalar(in, leaf(q), a)))
        return r;
    if (ends(q, "dataclasses.dataclass") || ends(q, "dataclass"))
        return arg(a, 0, NULL) ? arg(a, 0, NULL) : av_unknown(in);
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
        if ((r = groups[i](in, q, a)))
            return r;
    if (eq(q, "torch.nn.Embedding.from_pretrained"))
        return nn_embedding_from_pretrained(in, a);
    if (eq(q, "torch.nn.Transformer.generate_square_subsequent_mask"))
        return square_subsequent_mask(in, a);
    if (in_ns(q, "torch.nn"))
        return nn_module(in, leaf(q), a);
    if (in_ns(q, "torch.nn.functional"))
        return functional(in, leaf(q), a);
    if (in_ns(q, "torch"))
        return torch_call(in, leaf(q), a);
    /* torch.special.*, torch.linalg.*, einops, a fused kernel, a library's
     * wrapper: whatever the function, what is passed to it is not dropped */
    return unmodelled_call(in, q, a);
}

/* A model, an optimizer or a loader: what wrappers take and give back. */
static bool runtime_object(const AVal *v)
{
    return v->k == AV_OBJECT && (v->obj->is_module || v->obj->nn == NN_OPTIMIZER || v->obj->nn == NN_LOADER);
}

/* How the notes name an unmodelled call: `qual`, else the script's text of
 * the call. Built only when a note needs it: most unknown calls carry
 * neither a tensor nor the model. */
static const char *call_named(Interp *in, const char *qual)
{
    const char *src = qual ? qual : interp_call_source(in);
    return src ? arena_printf(in->a, "`%s`", src) : "a call pfc cannot follow";
}

AVal *unmodelled_call(Interp *in, const char *qual, Args *a)
{
    AVal *x = arg(a, 0, NULL);
    if (x && x->k == AV_TENSOR)
        return assumed_op(in, x, call_named(in, qual));
    AVal *model = NULL;
    uint32_t objects = 0;
    for (uint32_t i = 0; i < a->n; i++) {
        if (!model && a->v[i]->k == AV_OBJECT && a->v[i]->obj->is_module)
            model = a->v[i];
        objects += !a->kw[i] && runtime_object(a->v[i]);
    }
    if (!model)
        return av_unknown(in);
    const char *what = call_named(in, qual);
    interp_model_passed(in, what);
    if (objects < 2) {
        interp_note(in, in->cur_node, arena_printf(in->a, "%s is not modelled: the model is taken as returned "
                                                          "unchanged", what));
        return model;
    }
    /* wrap(model, optimizer, ...) gives them back, as accelerator.prepare does */
    interp_note(in, in->cur_node, arena_printf(in->a, "%s is not modelled: the model and the objects passed "
                                                      "with it are taken as returned unchanged, in order", what));
    AVal *s = av_seq(in, 0);
    s->items = arena_alloc(in->a, a->n * sizeof *s->items);
    for (uint32_t i = 0; i < a->n; i++)
        if (!a->kw[i])
            s->items[s->n++] = a->v[i];
    return s;
}

static AVal *object_method(Interp *in, AVal *recv, const char *name, Args *a)
{
    Obj *o = recv->obj;
    if (o->nn == NN_LOADER && eq(name, "__iter__"))
        return recv;
    if (o->nn == NN_OPAQUE && o->a == OPAQUE_TRAINER && eq(name, "train"))
        return trainer_step(in, o);
    if (o->nn == NN_OPAQUE && o->a == OPAQUE_PL_TRAINER)
        return lightning_trainer_method(in, o, name, a);
    if (o->nn == NN_OPAQUE && o->a == OPAQUE_ACCELERATOR)
        return accelerator_method(in, o, name, a);
    if (o->nn == NN_OPAQUE && o->a == OPAQUE_FABRIC)
        return fabric_method(in, o, name, a);
    if (o->nn == NN_OPAQUE && (o->a == OPAQUE_ARGPARSER || o->a == OPAQUE_SUBPARSERS))
        return argparse_method(in, o, name, a);
    if (o->nn == NN_OPAQUE && o->a == OPAQUE_HFPARSER)
        return hf_parser_method(in, o, name, a);
    if (o->nn == NN_OPAQUE && o->a == OPAQUE_SCHEDULER)
        return scheduler_method(in, o, name, a);
    if (o->nn == NN_OPAQUE && eq(name, "scale"))
        return arg(a, 0, NULL) ? arg(a, 0, NULL) : av_unknown(in);
    if (o->is_module || o->nn != NN_NONE)
        return module_method(in, recv, name, a);
    return av_unknown(in);
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
    case AV_STR: return str_method(in, recv, name, a);
    default: return av_unknown(in);
    }
}

AVal *attr_of_value(Interp *in, AVal *base, const char *name)
{
    if (base->k == AV_TENSOR)
        return tensor_attr(in, base, name);
    if (base->k == AV_PARAM)
        return param_attr(in, base, name);
    if (base->k == AV_OBJECT)
        return module_attr(in, base, name);
    if (base->k == AV_SEQ || base->k == AV_DICT || base->k == AV_STR)
        return av_bound(in, base, name);
    if (base->k == AV_CLASS)
        return interp_class_attr(in, base, name);
    return av_unknown(in);
}
