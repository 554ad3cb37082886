/* torch.nn's convolution, pooling and resampling layers, as PyTorch groups
 * them (conv.py, pooling.py, instancenorm.py, upsampling.py,
 * pixelshuffle.py, padding.py), in 1, 2 and 3 spatial dimensions, and their
 * torch.nn.functional forms. The output sides and what autograd saves are
 * the trace's (tr_conv, tr_pool, tr_adaptive, tr_remap); this file reads
 * the arguments as torch does and refuses what torch would refuse. */
#include "torchlib.h"
#include <math.h>
#include <stdlib.h>

/* The spatial dimensions a layer's name gives (Conv3d: 3), 2 without one
 * (Upsample takes them from its input). */
static int name_dims(const char *name)
{
    size_t n = strlen(name);
    if (n >= 2 && name[n - 1] == 'd' && name[n - 2] >= '1' && name[n - 2] <= '3')
        return name[n - 2] - '0';
    return 2;
}

/* One value per spatial side (kernel_size, stride, padding, dilation,
 * output_size): an int for every side or a tuple of nsp ints, each checked
 * as size_arg (zero_ok: as count_arg) checks one. False when the script
 * gives none (or None): out then holds dflt. */
static bool sides(Interp *in, const Args *a, int pos, const char *kw, int nsp, int64_t dflt, bool zero_ok,
                  const char *what, int64_t *out)
{
    for (int i = 0; i < nsp; i++)
        out[i] = dflt;
    AVal *v = arg(a, pos, kw);
    if (!v || v->k == AV_NONE)
        return false;
    if (v->k != AV_SEQ) {
        int64_t n = zero_ok ? count_arg(in, a, pos, kw, dflt, what) : size_arg(in, a, pos, kw, dflt, what);
        for (int i = 0; i < nsp; i++)
            out[i] = n;
        return true;
    }
    if ((int)v->n != nsp) {
        refuse(in, arena_printf(in->a, "%s's %s%s has %u sides, not %d: torch refuses it", what, kw,
                                arg_shown(in, pos, kw), v->n, nsp));
        return true;
    }
    for (int i = 0; i < nsp; i++) {
        Args one = {{v->items[i]}, {NULL}, 1};
        out[i] = zero_ok ? count_arg(in, &one, 0, kw, dflt, what) : size_arg(in, &one, 0, kw, dflt, what);
    }
    return true;
}

static Window *new_window(Interp *in, int nsp)
{
    Window *w = arena_zalloc(in->a, sizeof *w);
    *w = tr_window(nsp, 1, 1, 0);
    return w;
}

/* ---- convolutions ---------------------------------------------------------------------- */

enum { PAD_ZEROS, PAD_REFLECT, PAD_REPLICATE, PAD_CIRCULAR };

/* padding_mode: anything but "zeros" pads the input first (Conv's
 * _conv_forward calls F.pad with the mode, then convolves without padding). */
static int padding_mode(Interp *in, const Args *a, int pos, const char *what)
{
    AVal *v = arg(a, pos, "padding_mode");
    if (!v || (v->k == AV_STR && eq(v->s, "zeros")))
        return PAD_ZEROS;
    if (v->k == AV_STR && eq(v->s, "reflect"))
        return PAD_REFLECT;
    if (v->k == AV_STR && eq(v->s, "replicate"))
        return PAD_REPLICATE;
    if (v->k == AV_STR && eq(v->s, "circular"))
        return PAD_CIRCULAR;
    refuse(in, arena_printf(in->a, "%s's padding_mode%s is not one of torch's (zeros, reflect, replicate, "
                                   "circular)", what, arg_shown(in, pos, "padding_mode")));
    return PAD_ZEROS;
}

/* padding: sides, or "same" (stride 1 only, as torch requires) or "valid". */
static void conv_padding(Interp *in, const Args *a, bool transposed, Window *w, const char *what)
{
    AVal *p = arg(a, 4, "padding");
    if (!p || p->k != AV_STR) {
        sides(in, a, 4, "padding", w->nsp, 0, true, what, w->pad);
        return;
    }
    bool strided = false;
    for (int i = 0; i < w->nsp; i++)
        strided |= w->stride[i] != 1;
    if (transposed || (!eq(p->s, "same") && !eq(p->s, "valid")))
        refuse(in, arena_printf(in->a, "%s's padding '%s' is not one torch accepts here", what, p->s));
    else if (eq(p->s, "same") && strided)
        refuse(in, arena_printf(in->a, "%s's padding='same' with a stride other than 1: torch refuses it", what));
    w->same = eq(p->s, "same");
}

/* The weight: (out, in/groups, *k) for a convolution, (in, out/groups, *k)
 * for a transposed one; the same count, out * in / groups * prod(k). */
static uint32_t conv_weight(Interp *in, const Obj *o, int64_t groups, const char *what)
{
    if (o->a % groups || o->b % groups) {
        refuse(in, arena_printf(in->a, "%s's in_channels (%lld) and out_channels (%lld) must be divisible by "
                                       "groups (%lld): torch refuses it", what, (long long)o->a, (long long)o->b,
                                (long long)groups));
        return 0;
    }
    uint64_t n = ck_mul((uint64_t)(o->a / groups), (uint64_t)o->b);
    for (int i = 0; i < o->win->nsp; i++)
        n = ck_mul(n, (uint64_t)o->win->k[i]);
    return n ? tr_param(in->tr, n) : 0;
}

/* Conv1d/2d/3d(in, out, kernel_size, stride, padding, dilation, groups,
 * bias, padding_mode) and ConvTranspose1d/2d/3d(in, out, kernel_size,
 * stride, padding, output_padding, groups, bias, dilation, padding_mode). */
static AVal *nn_conv(Interp *in, const char *name, Args *a)
{
    bool transposed = strncmp(name, "ConvTranspose", 13) == 0;
    AVal *m = av_obj(in, transposed ? NN_CONVT2D : NN_CONV2D);
    Obj *o = m->obj;
    const char *what = arena_printf(in->a, "nn.%s", name);
    Window *w = new_window(in, name_dims(name));
    o->win = w;
    o->a = size_arg(in, a, 0, "in_channels", 0, what);
    o->b = size_arg(in, a, 1, "out_channels", 0, what);
    sides(in, a, 2, "kernel_size", w->nsp, 1, false, what, w->k);
    sides(in, a, 3, "stride", w->nsp, 1, false, what, w->stride);
    sides(in, a, transposed ? 8 : 5, "dilation", w->nsp, 1, false, what, w->dil);
    if (transposed)
        sides(in, a, 5, "output_padding", w->nsp, 0, true, what, w->out_pad);
    conv_padding(in, a, transposed, w, what);
    int64_t groups = size_arg(in, a, 6, "groups", 1, what);
    o->pad = transposed ? PAD_ZEROS : padding_mode(in, a, 8, what);
    if (interp_error(in))
        return m;
    o->w = conv_weight(in, o, groups, what);
    o->bias = flag_arg(in, a, 7, "bias", true, what) ? param4(in, o->b, 1, 1, 1) : 0;
    return m;
}

/* F.pad of a padding mode before a convolution: each spatial side grows by
 * twice its padding; reflect and replicate keep their input. */
static TId mode_padded(Trace *tr, TId x, const Window *w, int mode)
{
    int64_t dim[TR_MAXDIM];
    int nd = tr->t.v[x].nd;
    memcpy(dim, tr->t.v[x].dim, sizeof dim);
    for (int i = 0; i < w->nsp; i++)
        dim[nd - w->nsp + i] = ck_sadd(dim[nd - w->nsp + i], ck_smul(2, w->pad[i]));
    static const char *const names[] = {"", "reflection_pad", "replication_pad", "circular_pad"};
    return mode == PAD_CIRCULAR ? tr_remap(tr, names[mode], x, nd, dim) : tr_remap_keep(tr, names[mode], x, nd, dim);
}

static TId conv_forward(Interp *in, Obj *m, TId x)
{
    const Window *w = m->win;
    if (m->nn == NN_CONVT2D)
        return tr_conv_transpose(in->tr, x, m->b, w, m->w, m->bias);
    if (m->pad == PAD_ZEROS || w->same)
        return tr_conv(in->tr, x, m->b, w, m->w, m->bias);
    Window unpadded = *w;
    memset(unpadded.pad, 0, sizeof unpadded.pad);
    int nd = in->tr->t.v[x].nd;
    if (nd != w->nsp + 1 && nd != w->nsp + 2)
        return tr_conv(in->tr, x, m->b, w, m->w, m->bias);   /* refuses the rank */
    return tr_conv(in->tr, mode_padded(in->tr, x, w, m->pad), m->b, &unpadded, m->w, m->bias);
}

/* ---- pooling --------------------------------------------------------------------------- */

/* A pool's window from kernel_size, stride (None: the kernel's), padding,
 * dilation (max pooling only) and ceil_mode, at their positions after
 * `off` leading arguments (0 for the module, 1 for F.*'s input). Torch
 * refuses a padding over half the (dilated) kernel. */
static void pool_window(Interp *in, const Args *a, int off, bool max, Window *w, const char *what)
{
    sides(in, a, off, "kernel_size", w->nsp, 1, false, what, w->k);
    if (!sides(in, a, off + 1, "stride", w->nsp, 1, false, what, w->stride))
        memcpy(w->stride, w->k, sizeof w->stride);
    sides(in, a, off + 2, "padding", w->nsp, 0, true, what, w->pad);
    if (max)
        sides(in, a, off + 3, "dilation", w->nsp, 1, false, what, w->dil);
    w->ceil_mode = bool_or(a, off + (max ? 4 : 3), "ceil_mode", false);
    for (int i = 0; i < w->nsp && !interp_error(in); i++)
        if (ck_smul(2, w->pad[i]) > ck_sadd(ck_smul(w->dil[i], w->k[i] - 1), 1))
            refuse(in, arena_printf(in->a, "%s's padding (%lld) is more than half its kernel (%lld): torch "
                                           "refuses it", what, (long long)w->pad[i], (long long)w->k[i]));
}

/* return_indices=True returns (output, indices), which pfc does not model. */
static void no_indices(Interp *in, const Args *a, int pos, const char *what)
{
    if (bool_or(a, pos, "return_indices", false))
        refuse(in, arena_printf(in->a, "%s with return_indices=True is not modelled (its indices feed "
                                       "MaxUnpool, which pfc does not model)", what));
}

/* MaxPool1d/2d/3d(kernel_size, stride, padding, dilation, return_indices,
 * ceil_mode), AvgPool1d/2d/3d(kernel_size, stride, padding, ceil_mode, ...). */
static AVal *nn_pool(Interp *in, const char *name, Args *a)
{
    bool max = strncmp(name, "Max", 3) == 0;
    AVal *m = av_obj(in, max ? NN_MAXPOOL : NN_AVGPOOL);
    const char *what = arena_printf(in->a, "nn.%s", name);
    Window *w = new_window(in, name_dims(name));
    m->obj->win = w;
    /* MaxPool's ceil_mode comes after return_indices */
    pool_window(in, a, 0, max, w, what);
    if (max) {
        w->ceil_mode = bool_or(a, 5, "ceil_mode", false);
        no_indices(in, a, 4, what);
    }
    return m;
}

/* AdaptiveAvgPool1d/2d/3d(output_size), AdaptiveMaxPool...(output_size,
 * return_indices): a side of None keeps the input's (0 here). */
static void adaptive_sides(Interp *in, const Args *a, int pos, Window *w, const char *what)
{
    AVal *v = arg(a, pos, "output_size");
    if (!v) {
        refuse(in, arena_printf(in->a, "%s lacks its output_size", what));
        return;
    }
    bool nones = v->k == AV_SEQ && (int)v->n == w->nsp;
    for (uint32_t i = 0; nones && i < v->n; i++)
        if (v->items[i]->k == AV_NONE) {
            AVal *copy = av_seq(in, v->n);
            for (uint32_t j = 0; j < v->n; j++)
                copy->items[j] = v->items[j]->k == AV_NONE ? av_int(in, 1) : v->items[j];
            Args one = {{copy}, {NULL}, 1};
            sides(in, &one, 0, "output_size", w->nsp, 0, false, what, w->k);
            for (uint32_t j = 0; j < v->n; j++)
                if (v->items[j]->k == AV_NONE)
                    w->k[j] = 0;
            return;
        }
    sides(in, a, pos, "output_size", w->nsp, 0, false, what, w->k);
}

static AVal *nn_adaptive_pool(Interp *in, const char *name, Args *a)
{
    bool max = strncmp(name, "AdaptiveMax", 11) == 0;
    AVal *m = av_obj(in, max ? NN_ADAPTIVEMAX : NN_ADAPTIVEPOOL);
    const char *what = arena_printf(in->a, "nn.%s", name);
    Window *w = new_window(in, name_dims(name));
    m->obj->win = w;
    adaptive_sides(in, a, 0, w, what);   /* the output sides ride in k */
    if (max)
        no_indices(in, a, 1, what);
    return m;
}

/* ---- InstanceNorm ---------------------------------------------------------------------- */

/* InstanceNorm1d/2d/3d(num_features, eps, momentum, affine=False,
 * track_running_stats=False): a weight and a bias of num_features with
 * affine; running mean and variance (fp32) and num_batches_tracked
 * (int64) as buffers with track_running_stats. */
static AVal *nn_instance_norm(Interp *in, const char *name, Args *a)
{
    AVal *m = av_obj(in, NN_INSTANCENORM);
    Obj *o = m->obj;
    const char *what = arena_printf(in->a, "nn.%s", name);
    o->k = name_dims(name);
    o->a = size_arg(in, a, 0, "num_features", 0, what);
    if (interp_error(in))
        return m;
    if (flag_arg(in, a, 3, "affine", false, what)) {
        o->w = param4(in, o->a, 1, 1, 1);
        o->bias = param4(in, o->a, 1, 1, 1);
    }
    if (flag_arg(in, a, 4, "track_running_stats", false, what)) {
        tr_buffer(in->tr, ck_mul((uint64_t)o->a, 4));
        tr_buffer(in->tr, ck_mul((uint64_t)o->a, 4));
        tr_buffer(in->tr, 8);
    }
    return m;
}

/* ---- resampling: Upsample / F.interpolate, PixelShuffle, padding ----------------------- */

/* The resampling arguments of Upsample(size, scale_factor, mode,
 * align_corners) and F.interpolate(input, size, scale_factor, mode, ...):
 * kept as the values given, read against the input's rank when called. */
static AVal *nn_upsample(Interp *in, const char *name, Args *a)
{
    AVal *m = av_obj(in, NN_RESAMPLE);
    Obj *o = m->obj;
    AVal *size = arg(a, 0, "size"), *scale = arg(a, 1, "scale_factor"), *mode = arg(a, 2, "mode");
    obj_set(in, o, "size", size ? size : av_none(in));
    obj_set(in, o, "scale_factor", scale ? scale : av_none(in));
    const char *fixed = eq(name, "UpsamplingBilinear2d") ? "bilinear" : eq(name, "UpsamplingNearest2d") ? "nearest" : NULL;
    obj_set(in, o, "mode", fixed ? av_str(in, fixed) : mode ? mode : av_str(in, "nearest"));
    return m;
}

/* The modes and the input rank each takes (0: any of 3, 4, 5). */
static const struct { const char *mode, *op; int rank; } resample_modes[] = {
    {"nearest", "upsample_nearest", 0}, {"nearest-exact", "_upsample_nearest_exact", 0},
    {"linear", "upsample_linear1d", 3}, {"bilinear", "upsample_bilinear2d", 4},
    {"bicubic", "upsample_bicubic2d", 4}, {"trilinear", "upsample_trilinear3d", 5}, {"area", "adaptive_avg_pool", 0},
};

/* One output side from scale_factor: floor(side * scale), as interpolate
 * computes it. */
static bool scaled_side(Interp *in, AVal *s, int64_t side, int64_t *out, const char *what)
{
    double f;
    if (!av_num(s, &f) || !(f > 0) || f > 1e9) {
        refuse(in, arena_printf(in->a, "%s's scale_factor is not a positive number pfc can read", what));
        return false;
    }
    double n = floor((double)side * f);
    *out = n > (double)CK_DIM_MAX ? CK_DIM_MAX + 1 : (int64_t)n;   /* too large: the shape check refuses it */
    if (*out <= 0)
        refuse(in, arena_printf(in->a, "%s's scale_factor %g makes a side of %lld empty", what, f, (long long)side));
    return *out > 0;
}

/* The output sides of interpolate on x (batched, nsp = rank - 2): from
 * size (an int for every side, or one per side) or scale_factor (likewise),
 * exactly one of them given, as torch requires. */
static bool resample_sides(Interp *in, const AVal *x, AVal *size, AVal *scale, int64_t *out, const char *what)
{
    int nsp = x->nd - 2;
    bool has_size = size && size->k != AV_NONE, has_scale = scale && scale->k != AV_NONE;
    if (has_size == has_scale) {
        refuse(in, arena_printf(in->a, "%s needs exactly one of size and scale_factor: torch refuses %s", what,
                                has_size ? "both" : "neither"));
        return false;
    }
    if (has_size) {
        Args one = {{size}, {NULL}, 1};
        sides(in, &one, 0, "size", nsp, 1, false, what, out);
        return !interp_error(in);
    }
    if (scale->k == AV_SEQ && (int)scale->n != nsp) {
        refuse(in, arena_printf(in->a, "%s's scale_factor has %u sides, not %d: torch refuses it", what, scale->n,
                                nsp));
        return false;
    }
    for (int i = 0; i < nsp; i++)
        if (!scaled_side(in, scale->k == AV_SEQ ? scale->items[i] : scale, x->dim[2 + i], &out[i], what))
            return false;
    return true;
}

/* Interpolation: a new tensor whose backward needs only the sizes
 * (upsample_*_backward takes none of the forward's tensors); on autocast's
 * fp32 list, so under autocast it reads and writes fp32. "area" is
 * adaptive average pooling to the output sides. */
static AVal *resample(Interp *in, AVal *x, AVal *size, AVal *scale, AVal *mode, const char *what)
{
    TId t = av_gpu(in, x);
    if (!t)
        return av_unknown(in);
    const char *ms = mode && mode->k == AV_STR ? mode->s : mode && mode->k != AV_NONE ? NULL : "nearest";
    int k = -1;
    for (int i = 0; ms && i < (int)(sizeof resample_modes / sizeof resample_modes[0]); i++)
        if (eq(ms, resample_modes[i].mode))
            k = i;
    if (k < 0) {
        refuse(in, arena_printf(in->a, "%s's mode is not one of torch's interpolation modes%s", what,
                                ms ? arena_printf(in->a, " ('%s')", ms) : ""));
        return av_unknown(in);
    }
    int rank = resample_modes[k].rank;
    if (x->nd < 3 || x->nd > 5 || (rank && x->nd != rank)) {
        refuse(in, arena_printf(in->a, "%s with mode '%s' on a %d-D input: torch takes %s", what, ms, x->nd,
                                rank ? arena_printf(in->a, "%d-D only", rank) : "3-D, 4-D or 5-D (batched) inputs"));
        return av_unknown(in);
    }
    int64_t out[TR_MAXSP], dim[TR_MAXDIM];
    if (!resample_sides(in, x, size, scale, out, what))
        return av_unknown(in);
    if (eq(ms, "area"))
        return tensor_result(in, tr_adaptive(in->tr, t, x->nd - 2, out, false));
    memcpy(dim, x->dim, sizeof dim);
    memcpy(dim + 2, out, (size_t)(x->nd - 2) * sizeof *out);
    if (in->tr->autocast_on)
        t = tr_cast(in->tr, t, DT_F32);
    const char *op = rank ? resample_modes[k].op : arena_printf(in->a, "%s%dd", resample_modes[k].op, x->nd - 2);
    return tensor_result(in, tr_remap(in->tr, op, t, x->nd, dim));
}

/* PixelShuffle(r): (*, C*r*r, H, W) -> (*, C, H*r, W*r); PixelUnshuffle(r)
 * the inverse. Each one's backward is the other: nothing is saved. */
static AVal *pixel_shuffle(Interp *in, AVal *x, int64_t r, bool unshuffle, const char *what)
{
    TId t = av_gpu(in, x);
    if (!t || interp_error(in))
        return av_unknown(in);
    if (x->nd < 3) {
        refuse(in, arena_printf(in->a, "%s needs an input of at least 3 dimensions, not %d", what, x->nd));
        return av_unknown(in);
    }
    int64_t dim[TR_MAXDIM], rr = ck_smul(r, r);
    int c = x->nd - 3;
    memcpy(dim, x->dim, sizeof dim);
    bool fits = unshuffle ? dim[c + 1] % r == 0 && dim[c + 2] % r == 0 : dim[c] % rr == 0;
    if (!fits && unshuffle)
        refuse(in, arena_printf(in->a, "%s: the input's height and width (%lld, %lld) are not divisible by %lld: "
                                       "torch refuses it", what, (long long)dim[c + 1], (long long)dim[c + 2],
                                (long long)r));
    else if (!fits)
        refuse(in, arena_printf(in->a, "%s: the input's channels (%lld) are not divisible by %lld: torch refuses it",
                                what, (long long)dim[c], (long long)rr));
    if (!fits)
        return av_unknown(in);
    dim[c] = unshuffle ? ck_smul(dim[c], rr) : dim[c] / rr;
    dim[c + 1] = unshuffle ? dim[c + 1] / r : ck_smul(dim[c + 1], r);
    dim[c + 2] = unshuffle ? dim[c + 2] / r : ck_smul(dim[c + 2], r);
    return tensor_result(in, tr_remap(in->tr, unshuffle ? "pixel_unshuffle" : "pixel_shuffle", t, x->nd, dim));
}

static AVal *nn_pixel_shuffle(Interp *in, const char *name, Args *a)
{
    AVal *m = av_obj(in, NN_PIXELSHUFFLE);
    bool un = eq(name, "PixelUnshuffle");
    m->obj->a = size_arg(in, a, 0, un ? "downscale_factor" : "upscale_factor", 0, arena_printf(in->a, "nn.%s", name));
    m->obj->k = un;
    return m;
}

/* F.pad / the padding modules: pad = (left, right, top, bottom, front,
 * back), pairs from the last dimension inwards (a negative one crops).
 * Constant and circular padding keep nothing for the backward; reflection
 * and replication keep their input (their backward takes `self`), and
 * refuse a padding as wide as the side, as torch does. */
static AVal *padded(Interp *in, AVal *x, AVal *pad, int mode, const char *what)
{
    if (!x || x->k != AV_TENSOR)
        return av_unknown(in);
    AVal *p = pad ? iter_items(in, pad) : NULL;
    if (!p || p->n % 2 || (int)p->n > 2 * x->nd)
        return assumed_op(in, x, arena_printf(in->a, "`%s` with sizes pfc cannot read", what));
    int64_t dim[TR_MAXDIM];
    memcpy(dim, x->dim, sizeof dim);
    for (uint32_t i = 0; i < p->n; i += 2) {
        int64_t lo, hi;
        int d = x->nd - 1 - (int)(i / 2);
        if (!av_int_of(p->items[i], &lo) || !av_int_of(p->items[i + 1], &hi))
            return assumed_op(in, x, arena_printf(in->a, "`%s` with sizes pfc cannot read", what));
        if ((mode == PAD_REFLECT && (lo >= dim[d] || hi >= dim[d])) || (mode == PAD_CIRCULAR && (lo > dim[d] || hi > dim[d]))) {
            refuse(in, arena_printf(in->a, "%s pads a side of %lld by (%lld, %lld): torch refuses it", what,
                                    (long long)dim[d], (long long)lo, (long long)hi));
            return av_unknown(in);
        }
        dim[d] = ck_sadd(dim[d], ck_sadd(lo, hi));
    }
    if (!x->gpu)
        return av_tensor_new(in, (DType)x->dtype, x->nd, dim, false);
    static const char *const ops[] = {"constant_pad_nd", "reflection_pad", "replication_pad", "circular_pad"};
    Trace *tr = in->tr;
    TId y = mode == PAD_REFLECT || mode == PAD_REPLICATE ? tr_remap_keep(tr, ops[mode], x->t, x->nd, dim)
                                                         : tr_remap(tr, ops[mode], x->t, x->nd, dim);
    return tensor_result(in, y);
}

static int pad_mode_named(const char *s)
{
    return eq(s, "reflect") ? PAD_REFLECT : eq(s, "replicate") ? PAD_REPLICATE : eq(s, "circular") ? PAD_CIRCULAR
                                                                                                : PAD_ZEROS;
}

/* ZeroPad/ConstantPad/ReflectionPad/ReplicationPad/CircularPad 1d/2d/3d
 * (padding): an int pads each of the 2N sides; a tuple gives them. */
static AVal *nn_pad(Interp *in, const char *name, Args *a)
{
    AVal *m = av_obj(in, NN_PAD);
    Obj *o = m->obj;
    int nsp = name_dims(name);
    o->pad = strncmp(name, "Reflection", 10) == 0  ? PAD_REFLECT
             : strncmp(name, "Replication", 11) == 0 ? PAD_REPLICATE
             : strncmp(name, "Circular", 8) == 0     ? PAD_CIRCULAR
                                                     : PAD_ZEROS;
    AVal *p = arg(a, 0, "padding");
    int64_t n;
    if (p && av_int_of(p, &n)) {
        AVal *all = av_seq(in, (uint32_t)(2 * nsp));
        for (int i = 0; i < 2 * nsp; i++)
            all->items[i] = p;
        p = all;
    } else if (p && (p->k != AV_SEQ || (int)p->n != 2 * nsp)) {
        refuse(in, arena_printf(in->a, "nn.%s's padding%s is not an int or %d ints pfc can read", name,
                                arg_shown(in, 0, "padding"), 2 * nsp));
    }
    obj_set(in, o, "padding", p ? p : av_unknown(in));
    o->arch = arena_printf(in->a, "nn.%s", name);
    return m;
}

/* ---- the modules' forwards ------------------------------------------------------------- */

static TId window_forward(Interp *in, Obj *m, TId x)
{
    switch (m->nn) {
    case NN_CONV2D: case NN_CONVT2D: return conv_forward(in, m, x);
    case NN_MAXPOOL: case NN_AVGPOOL: return tr_pool(in->tr, x, m->win, m->nn == NN_MAXPOOL);
    case NN_ADAPTIVEPOOL: case NN_ADAPTIVEMAX:
        return tr_adaptive(in->tr, x, m->win->nsp, m->win->k, m->nn == NN_ADAPTIVEMAX);
    case NN_INSTANCENORM: return tr_instance_norm(in->tr, x, m->k, m->w, m->bias);
    default: return 0;
    }
}

AVal *window_module_call(Interp *in, Obj *m, AVal *x)
{
    switch (m->nn) {
    case NN_RESAMPLE:
        return resample(in, x, obj_get(m, "size"), obj_get(m, "scale_factor"), obj_get(m, "mode"), "nn.Upsample");
    case NN_PIXELSHUFFLE:
        return pixel_shuffle(in, x, m->a, m->k, m->k ? "nn.PixelUnshuffle" : "nn.PixelShuffle");
    case NN_PAD: return padded(in, x, obj_get(m, "padding"), m->pad, m->arch);
    default: {
        TId t = av_gpu(in, x);
        return tensor_result(in, t ? window_forward(in, m, t) : 0);
    }
    }
}

AVal *window_module(Interp *in, const char *name, Args *a)
{
    static const struct { const char *prefix; AVal *(*ctor)(Interp *, const char *, Args *); } ctors[] = {
        {"ConvTranspose", nn_conv}, {"Conv", nn_conv}, {"MaxPool", nn_pool}, {"AvgPool", nn_pool},
        {"AdaptiveAvgPool", nn_adaptive_pool}, {"AdaptiveMaxPool", nn_adaptive_pool},
        {"InstanceNorm", nn_instance_norm}, {"ZeroPad", nn_pad}, {"ConstantPad", nn_pad},
        {"ReflectionPad", nn_pad}, {"ReplicationPad", nn_pad}, {"CircularPad", nn_pad},
    };
    size_t n = strlen(name);
    bool dims = n >= 3 && name[n - 1] == 'd' && name[n - 2] >= '1' && name[n - 2] <= '3';
    for (size_t i = 0; dims && i < sizeof ctors / sizeof ctors[0]; i++) {
        size_t p = strlen(ctors[i].prefix);
        if (n == p + 2 && strncmp(name, ctors[i].prefix, p) == 0)
            return ctors[i].ctor(in, name, a);
    }
    if (eq(name, "Upsample") || eq(name, "UpsamplingNearest2d") || eq(name, "UpsamplingBilinear2d"))
        return nn_upsample(in, name, a);
    if (eq(name, "PixelShuffle") || eq(name, "PixelUnshuffle"))
        return nn_pixel_shuffle(in, name, a);
    return NULL;
}

/* ---- torch.nn.functional --------------------------------------------------------------- */

/* F.conv1d/2d/3d(input, weight, bias, stride, padding, dilation, groups)
 * with an nn.Parameter weight of shape (out, in/groups, *k). */
static AVal *f_conv(Interp *in, const char *name, AVal *x, Args *a)
{
    int nsp = name_dims(name);
    AVal *w = arg(a, 1, "weight"), *b = arg(a, 2, "bias");
    TId t = av_gpu(in, x);
    const char *what = arena_printf(in->a, "F.%s", name);
    if (!t || !w || w->k != AV_PARAM || w->nd != nsp + 2)
        return assumed_op(in, x, arena_printf(in->a, "`%s` with a weight pfc cannot read", what));
    Window win = tr_window(nsp, 1, 1, 0);
    memcpy(win.k, w->dim + 2, (size_t)nsp * sizeof *win.k);
    sides(in, a, 3, "stride", nsp, 1, false, what, win.stride);
    sides(in, a, 5, "dilation", nsp, 1, false, what, win.dil);
    conv_padding(in, a, false, &win, what);
    uint32_t bias = b && b->k == AV_PARAM ? b->param : 0;
    return tensor_result(in, interp_error(in) ? 0 : tr_conv(in->tr, t, w->dim[0], &win, w->param, bias));
}

/* F.max_pool*(input, kernel_size, stride, padding, dilation, ceil_mode,
 * return_indices), F.avg_pool*(input, kernel_size, stride, padding,
 * ceil_mode, ...). */
static AVal *f_pool(Interp *in, const char *name, AVal *x, Args *a)
{
    bool max = strncmp(name, "max", 3) == 0;
    const char *what = arena_printf(in->a, "F.%s", name);
    Window w = tr_window(name_dims(name), 1, 1, 0);
    pool_window(in, a, 1, max, &w, what);
    if (max)
        no_indices(in, a, 6, what);
    TId t = av_gpu(in, x);
    return tensor_result(in, t && !interp_error(in) ? tr_pool(in->tr, t, &w, max) : 0);
}

static AVal *f_adaptive(Interp *in, const char *name, AVal *x, Args *a)
{
    bool max = strncmp(name, "adaptive_max", 12) == 0;
    const char *what = arena_printf(in->a, "F.%s", name);
    Window w = tr_window(name_dims(name), 1, 1, 0);
    adaptive_sides(in, a, 1, &w, what);
    if (max)
        no_indices(in, a, 2, what);
    TId t = av_gpu(in, x);
    return tensor_result(in, t && !interp_error(in) ? tr_adaptive(in->tr, t, w.nsp, w.k, max) : 0);
}

static AVal *f_pad(Interp *in, AVal *x, Args *a)
{
    AVal *mode = arg(a, 2, "mode");
    if (mode && mode->k != AV_STR && mode->k != AV_NONE)
        return assumed_op(in, x, "`F.pad` with a mode pfc cannot read");
    const char *m = mode && mode->k == AV_STR ? mode->s : "constant";
    if (!eq(m, "constant") && !eq(m, "reflect") && !eq(m, "replicate") && !eq(m, "circular")) {
        refuse(in, arena_printf(in->a, "F.pad's mode '%s' is not one of torch's", m));
        return av_unknown(in);
    }
    return padded(in, x, arg(a, 1, "pad"), pad_mode_named(m), "F.pad");
}

/* F.instance_norm(input, running_mean, running_var, weight, bias, ...):
 * the spatial dimensions are what the input has past (N, C). */
static AVal *f_instance_norm(Interp *in, AVal *x, Args *a)
{
    TId t = av_gpu(in, x);
    AVal *w = arg(a, 3, "weight"), *b = arg(a, 4, "bias");
    if (!t || x->nd < 3)
        return assumed_op(in, x, "`F.instance_norm` of an input pfc cannot read");
    return tensor_result(in, tr_instance_norm(in->tr, t, x->nd - 2, w && w->k == AV_PARAM ? w->param : 0,
                                              b && b->k == AV_PARAM ? b->param : 0));
}

AVal *window_functional(Interp *in, const char *name, Args *a)
{
    AVal *x = arg(a, 0, "input");
    size_t n = strlen(name);
    bool dims = n >= 3 && name[n - 1] == 'd' && name[n - 2] >= '1' && name[n - 2] <= '3';
    if (dims && (eq(name, "conv1d") || eq(name, "conv2d") || eq(name, "conv3d")))
        return f_conv(in, name, x, a);
    if (dims && (strncmp(name, "max_pool", 8) == 0 || strncmp(name, "avg_pool", 8) == 0) && n == 10)
        return f_pool(in, name, x, a);
    if (dims && (strncmp(name, "adaptive_avg_pool", 17) == 0 || strncmp(name, "adaptive_max_pool", 17) == 0) &&
        n == 19)
        return f_adaptive(in, name, x, a);
    if (eq(name, "interpolate") || eq(name, "upsample"))
        return resample(in, x, arg(a, 1, "size"), arg(a, 2, "scale_factor"), arg(a, 3, "mode"),
                        arena_printf(in->a, "F.%s", name));
    if (eq(name, "pixel_shuffle") || eq(name, "pixel_unshuffle")) {
        bool un = eq(name, "pixel_unshuffle");
        int64_t r = size_arg(in, a, 1, un ? "downscale_factor" : "upscale_factor", 0, arena_printf(in->a, "F.%s", name));
        return pixel_shuffle(in, x, r, un, arena_printf(in->a, "F.%s", name));
    }
    if (eq(name, "pad"))
        return f_pad(in, x, a);
    if (eq(name, "instance_norm"))
        return f_instance_norm(in, x, a);
    return NULL;
}
