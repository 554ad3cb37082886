/* The symbolic tensor trace and its memory simulation (see trace.h).
 *
 * What each op saves follows the derivative formulas of PyTorch's autograd
 * (tools/autograd/derivatives.yaml): a product saves the operands the other
 * gradient needs, relu/sigmoid/tanh/softmax save their result, gelu/silu and
 * the norms save their input, dropout saves its mask. Autocast's dtype rules
 * follow its op lists: matmul-like ops run in 16 bits (inputs cast, weights
 * cast once per region and cached), reductions, norms, softmax, pow and the
 * losses run in fp32, everything else in the widest input type. */
#include "trace.h"
#include "checked.h"
#include <stdio.h>
#include <string.h>

static const uint8_t dt_bytes[DT__COUNT] = {4, 2, 2, 8, 1, 1};
static const char *const dt_names[DT__COUNT] = {"fp32", "bf16", "fp16", "int64", "bool", "uint8"};

uint32_t dtype_size(DType t) { return dt_bytes[t]; }
const char *dtype_name(DType t) { return dt_names[t]; }

uint64_t alloc_round(uint64_t bytes) { return bytes > UINT64_MAX - 511 ? bytes : (bytes + 511) / 512 * 512; }

void tr_init(Trace *tr, Arena *a)
{
    memset(tr, 0, sizeof *tr);
    tr->arena = a;
    tr->weight_dtype = DT_F32;
    tr->autocast = DT_F32;
    tr->training = true;
    TTensor none = {0};
    VEC_PUSH(a, tr->t, none);
}

static uint32_t record(Trace *tr, const char *name, const TId *in, int nin, TId out);
static void save(Trace *tr, TId x);

void tr_refuse(Trace *tr, const char *why)
{
    if (tr->error)
        return;
    tr->error = why;
    tr->error_site = tr->site;
}

static void shape_text(char *out, size_t n, int nd, const int64_t *dim)
{
    size_t k = (size_t)snprintf(out, n, "(");
    for (int i = 0; i < nd && k < n; i++)
        k += dim[i] == TR_NOT_INT ? (size_t)snprintf(out + k, n - k, "%s?", i ? ", " : "")
                                  : (size_t)snprintf(out + k, n - k, "%s%lld", i ? ", " : "", (long long)dim[i]);
    if (k < n)
        snprintf(out + k, n - k, ")");
}

bool tr_check_shape(Trace *tr, const char *what, int nd, int64_t *dim)
{
    const char *bad = NULL;
    for (int i = 0; i < nd && !bad; i++)
        if (!ck_dim_ok(dim[i]))
            bad = dim[i] == TR_NOT_INT ? "a size that is not an integer pfc can take (a float, or over 2**63)"
                  : dim[i] <= 0        ? "a dimension that is not positive"
                                       : "a dimension too large to estimate";
    if (!bad && ck_numel(dim, nd) > CK_NUMEL_MAX)
        bad = "more elements than pfc can estimate";
    if (!bad)
        return true;
    char shape[160];
    shape_text(shape, sizeof shape, nd, dim);
    tr_refuse(tr, arena_printf(tr->arena, "%s of shape %s has %s", what, shape, bad));
    for (int i = 0; i < nd; i++)
        if (!ck_dim_ok(dim[i]))
            dim[i] = 1;
    return false;
}

/* The arena one estimate may fill: past it, recording stops with a refusal. */
static bool out_of_memory(Trace *tr)
{
    if (tr->arena->total <= CK_ARENA_MAX)
        return false;
    tr_refuse(tr, "the script needs more memory to interpret than an estimate may use (1 GiB)");
    return true;
}

/* ---- tensors ------------------------------------------------------------------------- */

static TTensor *T(const Trace *tr, TId x) { return &tr->t.v[x]; }

static TId root(const Trace *tr, TId x)
{
    while (x && tr->t.v[x].base)
        x = tr->t.v[x].base;
    return x;
}

uint64_t tr_numel(const Trace *tr, TId x) { return ck_numel(T(tr, x)->dim, T(tr, x)->nd); }

uint64_t tr_bytes(const Trace *tr, TId x) { return alloc_round(ck_mul(tr_numel(tr, x), dt_bytes[T(tr, x)->dtype])); }

int64_t tr_dim(const Trace *tr, TId x, int i)
{
    const TTensor *t = T(tr, x);
    if (i < 0)
        i += t->nd;
    return i >= 0 && i < t->nd ? t->dim[i] : 1;
}

DType tr_dtype(const Trace *tr, TId x) { return (DType)T(tr, x)->dtype; }

static TId new_tensor(Trace *tr, DType dt, int nd, const int64_t *dim, bool grad)
{
    TTensor t = {0};
    t.nd = (uint8_t)(nd > TR_MAXDIM ? TR_MAXDIM : nd < 0 ? 0 : nd);
    memcpy(t.dim, dim, t.nd * sizeof *dim);
    tr_check_shape(tr, "a tensor", t.nd, t.dim);
    out_of_memory(tr);
    t.dtype = (uint8_t)dt;
    t.grad = grad && !tr->no_grad;
    t.ckpt = tr->ckpt;
    t.born = tr->ops.n + 1;
    VEC_PUSH(tr->arena, tr->t, t);
    return tr->t.n - 1;
}

/* A tensor shaped like x with the last dimension replaced. */
static TId like_last(Trace *tr, TId x, int64_t last, DType dt, bool grad)
{
    int64_t dim[TR_MAXDIM];
    int nd = T(tr, x)->nd;
    memcpy(dim, T(tr, x)->dim, sizeof dim);
    if (nd)
        dim[nd - 1] = last;
    return new_tensor(tr, dt, nd ? nd : 1, nd ? dim : &last, grad);
}

static TId like(Trace *tr, TId x, DType dt, bool grad)
{
    return new_tensor(tr, dt, T(tr, x)->nd, T(tr, x)->dim, grad);
}

TId tr_input(Trace *tr, DType dt, int nd, const int64_t *dim)
{
    TId x = new_tensor(tr, dt, nd, dim, false);
    T(tr, x)->kept = true;   /* the script's variable holds it */
    T(tr, x)->input = true;
    return x;
}

TId tr_input2(Trace *tr, DType dt, int64_t a, int64_t b)
{
    int64_t dim[2] = {a, b};
    return tr_input(tr, dt, 2, dim);
}

void tr_keep(Trace *tr, TId x)
{
    if (x)
        T(tr, root(tr, x))->kept = true;
}

TId tr_new(Trace *tr, DType dt, int nd, const int64_t *dim)
{
    TId x = new_tensor(tr, dt, nd, dim, false);
    record(tr, "new", NULL, 0, x);
    return x;
}

TId tr_hold(Trace *tr, DType dt, int nd, const int64_t *dim)
{
    TId x = new_tensor(tr, dt, nd, dim, false);
    save(tr, x);
    record(tr, "hold", NULL, 0, x);
    return x;
}

TId tr_detach(Trace *tr, TId x)
{
    TId y = new_tensor(tr, tr_dtype(tr, x), T(tr, x)->nd, T(tr, x)->dim, false);
    T(tr, y)->base = root(tr, x);
    return y;
}

static bool needs_grad(const Trace *tr, TId x) { return x && T(tr, x)->grad; }

/* ---- parameters ---------------------------------------------------------------------- */

uint32_t tr_param_dtype(Trace *tr, uint64_t numel, DType dt, bool trainable)
{
    if (numel > CK_NUMEL_MAX) {
        tr_refuse(tr, arena_printf(tr->arena, "a parameter of %.3g elements is too large to estimate",
                                   (double)numel));
        numel = 1;
    }
    TParam p = {numel, (uint8_t)dt, trainable, 0, 0, 0, false, false};
    VEC_PUSH(tr->arena, tr->params, p);
    return tr->params.n;
}

uint32_t tr_param(Trace *tr, uint64_t numel)
{
    return tr_param_dtype(tr, numel, tr->weight_dtype, !tr->frozen);
}

uint32_t tr_param_quantized(Trace *tr, uint64_t numel, int bits, bool double_quant)
{
    uint32_t p = tr_param_dtype(tr, numel, DT_U8, false);
    tr->params.v[p - 1].bits = (uint8_t)bits;
    tr->params.v[p - 1].double_quant = bits == 4 && double_quant;
    return p;
}

uint64_t tr_param_storage(const TParam *p)
{
    if (p->bits == 4) {
        uint64_t blocks = (p->numel + 63) / 64;
        uint64_t absmax = p->double_quant ? ck_add(blocks, ck_mul((blocks + 255) / 256, 4)) : ck_mul(blocks, 4);
        return ck_add((p->numel + 1) / 2, absmax);
    }
    return ck_mul(p->numel, dt_bytes[p->dtype]);
}

void tr_buffer(Trace *tr, uint64_t bytes) { tr->buffer_bytes = ck_add(tr->buffer_bytes, alloc_round(bytes)); }

void tr_param_drop(Trace *tr, uint32_t p)
{
    if (p)
        tr->params.v[p - 1].numel = 0;
}

static TParam *P(Trace *tr, uint32_t p) { return p ? &tr->params.v[p - 1] : NULL; }

static bool param_trains(Trace *tr, uint32_t p) { return p && P(tr, p)->trainable && !tr->no_grad; }

bool tr_params_used(const Trace *tr)
{
    for (uint32_t i = 0; i < tr->params.n; i++)
        if (tr->params.v[i].last_op)
            return true;
    return false;
}

void tr_param_totals(const Trace *tr, ParamTotals *out)
{
    memset(out, 0, sizeof *out);
    for (uint32_t i = 0; i < tr->params.n; i++) {
        const TParam *p = &tr->params.v[i];
        uint64_t raw = tr_param_storage(p), bytes = alloc_round(raw);
        out->total = ck_add(out->total, p->numel);
        out->bytes = ck_add(out->bytes, bytes);
        out->raw_bytes = ck_add(out->raw_bytes, raw);
        if (p->trainable)
            out->raw_trainable_bytes = ck_add(out->raw_trainable_bytes, raw);
        if (p->trainable && p->numel)
            out->trainable_tensors++;
        if (p->trainable && !p->unheld) {
            out->held = ck_add(out->held, p->numel);
            out->held_bytes = ck_add(out->held_bytes, bytes);
            out->raw_held_bytes = ck_add(out->raw_held_bytes, raw);
            out->held_tensors += p->numel != 0;
        } else if (p->trainable) {
            out->unheld_grad_bytes = ck_add(out->unheld_grad_bytes, bytes);
        }
        if (p->trainable) {
            out->trainable = ck_add(out->trainable, p->numel);
            out->trainable_bytes = ck_add(out->trainable_bytes, bytes);
        } else {
            out->frozen_bytes = ck_add(out->frozen_bytes, bytes);
        }
    }
}

uint64_t tr_total_bytes(const Trace *tr)
{
    uint64_t sum = 0;
    for (uint32_t i = 1; i < tr->t.n; i++)
        if (!tr->t.v[i].base)
            sum = ck_add(sum, tr_bytes(tr, i));
    for (uint32_t i = 0; i < tr->ops.n; i++)
        sum = ck_add(sum, tr->ops.v[i].workspace);
    ParamTotals pt;
    tr_param_totals(tr, &pt);
    /* weights, gradients and up to 12 bytes of optimizer state a parameter */
    return ck_add(ck_add(sum, ck_mul(pt.bytes, 2)), ck_mul(pt.total, 16));
}

/* ---- recording ----------------------------------------------------------------------- */

static uint32_t record(Trace *tr, const char *name, const TId *in, int nin, TId out)
{
    if (++tr->steps > 4000000) {
        tr->overflow = true;
        return 0;
    }
    if (out_of_memory(tr))
        return 0;
    TOp op = {0};
    op.name = name;
    op.nin = (uint8_t)(nin > TR_MAXIN ? TR_MAXIN : nin);
    for (int i = 0; i < nin; i++) {
        TId r = root(tr, in[i]);
        if (i < op.nin)
            op.in[i] = r;
        if (r)
            T(tr, r)->last_use = tr->ops.n + 1;   /* every input, also past TR_MAXIN */
    }
    op.out = out;
    op.ckpt = tr->ckpt;
    if (tr->autocast_on) {
        tr->autocast_seen = true;
        tr->autocast_seen_dtype = tr->autocast;
    }
    VEC_PUSH(tr->arena, tr->ops, op);
    if (out && !T(tr, out)->producer)
        T(tr, out)->producer = tr->ops.n;
    return tr->ops.n;
}

static void save(Trace *tr, TId x)
{
    if (!x || tr->no_grad)
        return;
    TTensor *t = T(tr, root(tr, x));
    t->saved = true;
    if (t->ckpt && t->ckpt != tr->ckpt)
        t->ckpt = 0;   /* saved outside its checkpointed block: kept, not recomputed */
    if (!t->first_saver || t->first_saver > tr->ops.n + 1)
        t->first_saver = tr->ops.n + 1;   /* the op being recorded next */
}

static void use_param(Trace *tr, uint32_t p)
{
    if (p)
        P(tr, p)->last_op = tr->ops.n + 1;
}

/* The dtype an op computes in under autocast (matmul-like ops). */
static DType lowp(const Trace *tr, DType dt)
{
    return tr->autocast_on && dt == DT_F32 ? tr->autocast : dt;
}

static DType promote(DType a, DType b)
{
    if (a == b)
        return a;
    if (a == DT_F32 || b == DT_F32)
        return DT_F32;
    if (a == DT_I64 || a == DT_BOOL || a == DT_U8)
        return b;
    if (b == DT_I64 || b == DT_BOOL || b == DT_U8)
        return a;
    return DT_F32;   /* bf16 with fp16 */
}

TId tr_cast(Trace *tr, TId x, DType dt)
{
    if (!x || T(tr, x)->dtype == dt)
        return x;
    TId y = like(tr, x, dt, needs_grad(tr, x));
    record(tr, "cast", &x, 1, y);
    return y;
}

/* An autocast input: activations are cast on every use, a trainable leaf
 * weight once per region (the cache). */
static TId autocast_in(Trace *tr, TId x) { return tr->autocast_on ? tr_cast(tr, x, lowp(tr, tr_dtype(tr, x))) : x; }

/* The weight as the op reads it: the parameter itself, or autocast's 16-bit
 * copy (a tensor, cached for trainable leaves). Returns 0 for "the parameter". */
static TId weight_as_used(Trace *tr, uint32_t p)
{
    TParam *w = P(tr, p);
    if (!w || !tr->autocast_on || w->dtype != DT_F32)
        return 0;
    if (w->autocast_copy && w->trainable && T(tr, w->autocast_copy)->ckpt == tr->ckpt)
        return w->autocast_copy;
    int64_t n = (int64_t)w->numel;
    TId c = new_tensor(tr, tr->autocast, 1, &n, param_trains(tr, p));
    T(tr, c)->weight_copy = w->trainable;
    record(tr, "cast_weight", NULL, 0, c);
    if (w->trainable)
        w->autocast_copy = c;
    return c;
}

static bool out_grad(Trace *tr, TId a, TId b, uint32_t w, uint32_t bias)
{
    return needs_grad(tr, a) || needs_grad(tr, b) || param_trains(tr, w) || param_trains(tr, bias);
}

TId tr_linear(Trace *tr, TId x, int64_t out, uint32_t w, uint32_t b)
{
    x = autocast_in(tr, x);
    TId wc = weight_as_used(tr, w);
    TId bc = weight_as_used(tr, b);
    (void)bc;
    TId y = like_last(tr, x, out, tr_dtype(tr, x), out_grad(tr, x, 0, w, b));
    if (param_trains(tr, w))
        save(tr, x);
    if (needs_grad(tr, x) && wc)
        save(tr, wc);
    use_param(tr, w);
    use_param(tr, b);
    TId in[2] = {x, wc};
    uint32_t op = record(tr, "linear", in, 2, y);
    if (op && w && P(tr, w)->bits == 4)   /* the dequantized weight, while the op runs */
        tr->ops.v[op - 1].workspace = alloc_round(ck_mul(P(tr, w)->numel, dt_bytes[tr->quant_compute]));
    return y;
}

TId tr_matmul(Trace *tr, TId a, TId b)
{
    int64_t dim[TR_MAXDIM];
    const TTensor *ta = T(tr, a);
    int nd = ta->nd ? ta->nd : 1;
    memcpy(dim, ta->dim, sizeof dim);
    if (!ta->nd)
        dim[0] = 1;
    dim[nd - 1] = tr_dim(tr, b, -1);
    return tr_contract(tr, "matmul", a, b, nd, dim);
}

TId tr_contract(Trace *tr, const char *name, TId a, TId b, int nd, const int64_t *dim)
{
    a = autocast_in(tr, a);
    b = autocast_in(tr, b);
    TId y = new_tensor(tr, tr_dtype(tr, a), nd, dim, out_grad(tr, a, b, 0, 0));
    if (needs_grad(tr, a))
        save(tr, b);
    if (needs_grad(tr, b))
        save(tr, a);
    TId in[2] = {a, b};
    record(tr, name, in, 2, y);
    return y;
}

TId tr_with_param(Trace *tr, TId x, uint32_t p, bool product)
{
    TId y = like(tr, x, tr_dtype(tr, x), out_grad(tr, x, 0, p, 0));
    if (product && param_trains(tr, p))
        save(tr, x);
    use_param(tr, p);
    record(tr, product ? "mul_param" : "add_param", &x, 1, y);
    return y;
}

TId tr_gather(Trace *tr, TId x, TId index, int nd, const int64_t *dim)
{
    TId y = new_tensor(tr, tr_dtype(tr, x), nd, dim, needs_grad(tr, x));
    if (needs_grad(tr, x))
        save(tr, index);
    TId in[2] = {x, index};
    record(tr, "gather", in, index ? 2 : 1, y);
    return y;
}

TId tr_embedding(Trace *tr, TId ids, int64_t d, uint32_t w)
{
    const TTensor *t = T(tr, ids);
    int64_t dim[TR_MAXDIM];
    memcpy(dim, t->dim, sizeof dim);
    int nd = t->nd < TR_MAXDIM ? t->nd : TR_MAXDIM - 1;
    dim[nd] = d;
    /* nn.Embedding without a weight (its sizes unknown): the weights' dtype */
    DType dt = w ? (DType)P(tr, w)->dtype : tr->weight_dtype;
    TId y = new_tensor(tr, dt, nd + 1, dim, param_trains(tr, w));
    if (param_trains(tr, w))
        save(tr, ids);
    use_param(tr, w);
    record(tr, "embedding", &ids, 1, y);
    return y;
}

Window tr_window(int nsp, int k, int stride, int pad)
{
    Window w = {.nsp = nsp};
    for (int i = 0; i < TR_MAXSP; i++) {
        w.k[i] = k;
        w.stride[i] = stride ? stride : 1;
        w.pad[i] = pad;
        w.dil[i] = 1;
    }
    return w;
}

/* The spatial dimensions a window slides over are x's last nsp; x must be
 * batched (N, C, *spatial) or unbatched (C, *spatial), as torch requires.
 * Refuses other ranks (torch raises) and returns false. */
static bool window_input(Trace *tr, const char *op, TId x, int nsp)
{
    int nd = T(tr, x)->nd;
    if (nd == nsp + 1 || nd == nsp + 2)
        return true;
    char shape[160];
    shape_text(shape, sizeof shape, nd, T(tr, x)->dim);
    tr_refuse(tr, arena_printf(tr->arena, "%s expects a %d-D or %d-D input (channels and %d spatial dimension%s), "
                                          "not one of shape %s", op, nsp + 1, nsp + 2, nsp, nsp > 1 ? "s" : "", shape));
    return false;
}

/* One spatial side through a window: floor((n + 2p - d(k-1) - 1) / s) + 1,
 * or rounded up with ceil_mode (a last window that starts in the padding
 * is dropped, as torch's pooling_output_shape does). A window wider than
 * the padded input is refused, as torch refuses it. */
static int64_t window_side(Trace *tr, const char *op, int64_t n, const Window *w, int i)
{
    int64_t span = ck_sadd(ck_smul(w->dil[i], w->k[i] - 1), 1);
    int64_t room = ck_sadd(ck_sadd(n, ck_smul(2, w->pad[i])), -span);
    int64_t s = w->stride[i] > 0 ? w->stride[i] : 1;
    if (room < 0) {
        tr_refuse(tr, arena_printf(tr->arena, "%s's window (%lld wide with its dilation) is larger than its padded "
                                              "input (%lld): torch refuses it", op, (long long)span,
                                   (long long)ck_sadd(n, ck_smul(2, w->pad[i]))));
        return 1;
    }
    int64_t out = (w->ceil_mode ? (room + s - 1) / s : room / s) + 1;
    if (w->ceil_mode && (out - 1) * s >= ck_sadd(n, w->pad[i]))
        out--;
    return out;
}

/* x's shape with its last nsp dimensions (and the channels, when c > 0)
 * replaced by what the window gives; returns the rank. */
static int window_shape(Trace *tr, const char *op, TId x, const Window *w, int64_t c, int64_t *dim)
{
    const TTensor *t = T(tr, x);
    memcpy(dim, t->dim, sizeof t->dim);
    int first = t->nd - w->nsp;
    if (c > 0)
        dim[first - 1] = c;
    for (int i = 0; i < w->nsp; i++)
        dim[first + i] = w->same ? t->dim[first + i] : window_side(tr, op, t->dim[first + i], w, i);
    return t->nd;
}

/* A convolution (plain or transposed) whose output shape the caller gives:
 * convolution_backward keeps input and weight whichever gradient it needs. */
static TId convolution(Trace *tr, const char *name, TId x, TId wc, int nd, const int64_t *dim,
                       uint32_t w, uint32_t b)
{
    TId y = new_tensor(tr, tr_dtype(tr, x), nd, dim, out_grad(tr, x, 0, w, b));
    if (needs_grad(tr, y)) {
        save(tr, x);
        if (wc)
            save(tr, wc);
    }
    use_param(tr, w);
    use_param(tr, b);
    TId in[2] = {x, wc};
    record(tr, name, in, 2, y);
    return y;
}

static const char *const conv_names[] = {"conv1d", "conv1d", "conv2d", "conv3d"};
static const char *const convt_names[] = {"conv_transpose1d", "conv_transpose1d", "conv_transpose2d",
                                          "conv_transpose3d"};

/* padding="same" where the total padding d(k-1) of some side is odd: torch
 * pads the extra element on the right with constant_pad_nd first, and the
 * convolution reads (and saves) that padded copy. */
static TId same_padding_input(Trace *tr, TId x, const Window *w)
{
    int64_t dim[TR_MAXDIM];
    int nd = T(tr, x)->nd;
    bool odd = false;
    memcpy(dim, T(tr, x)->dim, sizeof dim);
    for (int i = 0; i < w->nsp; i++)
        if (ck_smul(w->dil[i], w->k[i] - 1) % 2) {
            dim[nd - w->nsp + i] += 1;
            odd = true;
        }
    return odd ? tr_remap(tr, "constant_pad_nd", x, nd, dim) : x;
}

TId tr_conv(Trace *tr, TId x, int64_t cout, const Window *win, uint32_t w, uint32_t b)
{
    const char *name = conv_names[win->nsp];
    if (!window_input(tr, name, x, win->nsp))
        return 0;
    x = autocast_in(tr, x);
    TId wc = weight_as_used(tr, w);
    weight_as_used(tr, b);
    int64_t dim[TR_MAXDIM];
    int nd = window_shape(tr, name, x, win, cout, dim);
    if (win->same)
        x = same_padding_input(tr, x, win);
    return convolution(tr, name, x, wc, nd, dim, w, b);
}

TId tr_conv_transpose(Trace *tr, TId x, int64_t cout, const Window *win, uint32_t w, uint32_t b)
{
    const char *name = convt_names[win->nsp];
    if (!window_input(tr, name, x, win->nsp))
        return 0;
    x = autocast_in(tr, x);
    TId wc = weight_as_used(tr, w);
    weight_as_used(tr, b);
    int64_t dim[TR_MAXDIM];
    const TTensor *t = T(tr, x);
    memcpy(dim, t->dim, sizeof dim);
    int first = t->nd - win->nsp;
    dim[first - 1] = cout;
    /* (n - 1)s - 2p + d(k - 1) + output_padding + 1, per side */
    for (int i = 0; i < win->nsp; i++) {
        int64_t span = ck_sadd(ck_smul(win->dil[i], win->k[i] - 1), 1);
        dim[first + i] = ck_sadd(ck_sadd(ck_smul(t->dim[first + i] - 1, win->stride[i]), -2 * win->pad[i]),
                                 ck_sadd(span, win->out_pad[i]));
    }
    return convolution(tr, name, x, wc, t->nd, dim, w, b);
}

TId tr_conv2d(Trace *tr, TId x, int64_t cout, int k, int stride, int pad, int groups,
              uint32_t w, uint32_t b)
{
    (void)groups;   /* the weight's size carries it; the output's shape does not */
    /* (n, c, h, w) for Conv2d; (n, c, length) for Conv1d */
    Window win = tr_window(T(tr, x)->nd == 3 ? 1 : 2, k, stride, pad);
    return tr_conv(tr, x, cout, &win, w, b);
}

TId tr_conv_transpose2d(Trace *tr, TId x, int64_t cout, int k, int stride, int pad, int out_pad,
                        uint32_t w, uint32_t b)
{
    Window win = tr_window(2, k, stride, pad);
    win.out_pad[0] = win.out_pad[1] = out_pad;
    return tr_conv_transpose(tr, x, cout, &win, w, b);
}

static const char *const maxpool_names[] = {"max_pool1d", "max_pool1d", "max_pool2d", "max_pool3d"};
static const char *const avgpool_names[] = {"avg_pool1d", "avg_pool1d", "avg_pool2d", "avg_pool3d"};

/* A pooled output y of x: max pooling saves its input and the argmax
 * indices (int64, y's shape: max_poolNd_with_indices_backward reads both);
 * average pooling saves its input (avg_poolNd_backward takes `self`, for
 * its geometry, in derivatives.yaml). */
static TId pooled(Trace *tr, const char *name, TId x, int nd, const int64_t *dim, bool max)
{
    TId y = new_tensor(tr, tr_dtype(tr, x), nd, dim, needs_grad(tr, x));
    if (!needs_grad(tr, x)) {
        record(tr, name, &x, 1, y);
        return y;
    }
    save(tr, x);
    if (!max) {
        record(tr, name, &x, 1, y);
        return y;
    }
    TId idx = new_tensor(tr, DT_I64, nd, dim, false);
    save(tr, idx);
    TId in[2] = {x, idx};
    record(tr, name, in, 2, y);
    return y;
}

TId tr_pool(Trace *tr, TId x, const Window *win, bool max)
{
    const char *name = (max ? maxpool_names : avgpool_names)[win->nsp];
    if (!window_input(tr, name, x, win->nsp))
        return 0;
    int64_t dim[TR_MAXDIM];
    int nd = window_shape(tr, name, x, win, 0, dim);
    return pooled(tr, name, x, nd, dim, max);
}

TId tr_pool2d(Trace *tr, TId x, int k, int stride, int pad, bool max)
{
    Window win = tr_window(2, k, stride, pad);
    return tr_pool(tr, x, &win, max);
}

static const char *const adaptive_avg_names[] = {"adaptive_avg_pool1d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
                                                 "adaptive_avg_pool3d"};
static const char *const adaptive_max_names[] = {"adaptive_max_pool1d", "adaptive_max_pool1d", "adaptive_max_pool2d",
                                                 "adaptive_max_pool3d"};

TId tr_adaptive(Trace *tr, TId x, int nsp, const int64_t *out, bool max)
{
    const char *name = (max ? adaptive_max_names : adaptive_avg_names)[nsp];
    if (!window_input(tr, name, x, nsp))
        return 0;
    const TTensor *t = T(tr, x);
    int64_t dim[TR_MAXDIM];
    memcpy(dim, t->dim, sizeof dim);
    bool ones = true;
    for (int i = 0; i < nsp; i++) {
        int64_t *d = &dim[t->nd - nsp + i];
        *d = out[i] > 0 ? out[i] : *d;   /* None keeps the input's side */
        ones &= *d == 1;
    }
    if (max || !ones)
        return pooled(tr, name, x, t->nd, dim, max);
    /* an all-ones average output is a mean (torch takes that path), which saves nothing */
    TId y = new_tensor(tr, tr_dtype(tr, x), t->nd, dim, needs_grad(tr, x));
    record(tr, name, &x, 1, y);
    return y;
}

TId tr_adaptive_pool(Trace *tr, TId x, int64_t oh, int64_t ow)
{
    int64_t out[2] = {oh, ow};
    return tr_adaptive(tr, x, 2, out, false);
}

/* Per-row statistics a norm saves (mean and inverse std, fp32). */
static TId norm_stats(Trace *tr, TId x, int keep_dims)
{
    const TTensor *t = T(tr, x);
    int64_t dim[TR_MAXDIM];
    memcpy(dim, t->dim, sizeof dim);
    int nd = keep_dims < t->nd ? keep_dims : t->nd;
    TId s = new_tensor(tr, DT_F32, nd ? nd : 1, dim, false);
    save(tr, s);
    return s;
}

TId tr_batch_norm(Trace *tr, TId x, uint32_t w, uint32_t b)
{
    TId y = like(tr, x, tr_dtype(tr, x), out_grad(tr, x, 0, w, b));
    if (needs_grad(tr, y)) {
        save(tr, x);
        int64_t c = tr_dim(tr, x, 1);
        save(tr, new_tensor(tr, DT_F32, 1, &c, false));   /* mean */
        save(tr, new_tensor(tr, DT_F32, 1, &c, false));   /* inverse std */
    }
    use_param(tr, w);
    use_param(tr, b);
    record(tr, "batch_norm", &x, 1, y);
    return y;
}

TId tr_instance_norm(Trace *tr, TId x, int nsp, uint32_t w, uint32_t b)
{
    if (!window_input(tr, arena_printf(tr->arena, "instance_norm (InstanceNorm%dd)", nsp), x, nsp))
        return 0;
    TId y = like(tr, x, tr_dtype(tr, x), out_grad(tr, x, 0, w, b));
    if (needs_grad(tr, y)) {
        /* at::instance_norm runs batch_norm on x viewed as (1, N*C, ...):
         * the view of x, and a mean and an inverse std per (sample, channel) */
        const TTensor *t = T(tr, x);
        int64_t rows = t->nd == nsp + 2 ? ck_smul(t->dim[0], t->dim[1]) : t->dim[0];
        save(tr, x);
        save(tr, new_tensor(tr, DT_F32, 1, &rows, false));
        save(tr, new_tensor(tr, DT_F32, 1, &rows, false));
    }
    use_param(tr, w);
    use_param(tr, b);
    record(tr, "instance_norm", &x, 1, y);
    return y;
}

TId tr_layer_norm(Trace *tr, TId x, uint32_t w, uint32_t b)
{
    if (tr->autocast_on)
        x = tr_cast(tr, x, DT_F32);   /* layer_norm is on autocast's fp32 list */
    TId y = like(tr, x, tr_dtype(tr, x), out_grad(tr, x, 0, w, b));
    if (needs_grad(tr, y)) {
        save(tr, x);
        norm_stats(tr, x, T(tr, x)->nd - 1);
        norm_stats(tr, x, T(tr, x)->nd - 1);
    }
    use_param(tr, w);
    use_param(tr, b);
    record(tr, "layer_norm", &x, 1, y);
    return y;
}

TId tr_group_norm(Trace *tr, TId x, int64_t groups, uint32_t w, uint32_t b)
{
    if (tr->autocast_on)
        x = tr_cast(tr, x, DT_F32);   /* group_norm is on autocast's fp32 list */
    TId y = like(tr, x, tr_dtype(tr, x), out_grad(tr, x, 0, w, b));
    if (needs_grad(tr, y)) {
        /* native_group_norm_backward reads the input, and the (N, groups)
         * mean and inverse std, which ATen makes in the input's dtype */
        save(tr, x);
        int64_t dim[2] = {tr_dim(tr, x, 0), groups > 0 ? groups : 1};
        save(tr, new_tensor(tr, tr_dtype(tr, x), 2, dim, false));
        save(tr, new_tensor(tr, tr_dtype(tr, x), 2, dim, false));
    }
    use_param(tr, w);
    use_param(tr, b);
    record(tr, "group_norm", &x, 1, y);
    return y;
}

/* A pointwise op: out in `dt`; saves its input and/or its result. */
static TId pointwise(Trace *tr, const char *name, TId x, DType dt, bool save_in, bool save_out)
{
    TId y = like(tr, x, dt, needs_grad(tr, x));
    if (needs_grad(tr, x) && save_in)
        save(tr, x);
    if (needs_grad(tr, x) && save_out)
        save(tr, y);
    record(tr, name, &x, 1, y);
    return y;
}

/* A binary op with broadcasting: the output takes the larger operand's shape. */
static TId binary(Trace *tr, const char *name, TId a, TId b, bool save_operands)
{
    TId big = !b || tr_numel(tr, a) >= tr_numel(tr, b) ? a : b;
    DType dt = b ? promote(tr_dtype(tr, a), tr_dtype(tr, b)) : tr_dtype(tr, a);
    TId y = like(tr, big, dt, needs_grad(tr, a) || needs_grad(tr, b));
    if (save_operands) {
        if (needs_grad(tr, a))
            save(tr, b);
        if (needs_grad(tr, b))
            save(tr, a);
    }
    TId in[2] = {a, b};
    record(tr, name, in, b ? 2 : 1, y);
    return y;
}

TId tr_add(Trace *tr, TId a, TId b) { return binary(tr, "add", a, b, false); }
TId tr_mul(Trace *tr, TId a, TId b) { return binary(tr, "mul", a, b, true); }
TId tr_scale(Trace *tr, TId x) { return pointwise(tr, "mul_scalar", x, tr_dtype(tr, x), false, false); }

TId tr_assumed(Trace *tr, const char *name, TId x)
{
    tr->assumed++;
    return pointwise(tr, name, x, tr_dtype(tr, x), true, false);
}

TId tr_rms_norm_hf(Trace *tr, TId x, uint32_t w)
{
    /* Hugging Face's RMSNorm: h = x.float(); h * rsqrt(h.pow(2).mean(-1) + eps);
     * weight * h.to(input dtype). The pow and the product save the fp32 copy,
     * the weight's product saves the cast-back copy. */
    DType in_dt = tr_dtype(tr, x);
    TId h = tr_cast(tr, x, DT_F32);
    TId r = norm_stats(tr, h, T(tr, h)->nd - 1);
    if (needs_grad(tr, h))
        save(tr, h);
    TId n = like(tr, h, DT_F32, needs_grad(tr, h));
    TId in[2] = {h, r};
    record(tr, "rms_norm", in, 2, n);
    TId nc = tr_cast(tr, n, in_dt == DT_F32 && tr->autocast_on ? DT_F32 : in_dt);
    TId y = like(tr, nc, tr_dtype(tr, nc), out_grad(tr, nc, 0, w, 0));
    if (param_trains(tr, w))
        save(tr, nc);
    use_param(tr, w);
    record(tr, "mul_weight", &nc, 1, y);
    return y;
}

TId tr_act(Trace *tr, TId x, Act a, bool inplace)
{
    DType dt = tr_dtype(tr, x);
    switch (a) {
    case ACT_RELU:
    case ACT_RELU6:
        if (inplace && needs_grad(tr, x)) {
            /* the result overwrites the input's storage and is saved */
            TId y = like(tr, x, dt, true);
            T(tr, y)->base = root(tr, x);
            save(tr, y);
            record(tr, "relu_", &x, 1, 0);
            return y;
        }
        return pointwise(tr, "relu", x, dt, false, true);
    case ACT_SIGMOID:
    case ACT_TANH:
        return pointwise(tr, a == ACT_TANH ? "tanh" : "sigmoid", x, dt, false, true);
    case ACT_GELU:
    case ACT_SILU:
    case ACT_HARDSWISH:
    case ACT_HARDSIGMOID:
        if (inplace && needs_grad(tr, x) && (a == ACT_HARDSWISH || a == ACT_SILU)) {
            /* in-place hardswish/silu saves the input: it is cloned first */
            TId c = pointwise(tr, "clone", x, dt, false, false);
            return pointwise(tr, "act_", c, dt, true, false);
        }
        return pointwise(tr, a == ACT_GELU ? "gelu" : a == ACT_SILU ? "silu" : "hardswish", x, dt,
                         true, false);
    case ACT_GELU_TANH_PY: {
        /* 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x**3))) in Python ops;
         * pow runs in fp32 under autocast */
        TId x3 = pointwise(tr, "pow", tr->autocast_on ? tr_cast(tr, x, DT_F32) : x,
                           tr->autocast_on ? DT_F32 : dt, true, false);
        TId inner = tr_add(tr, x, tr_scale(tr, x3));
        TId t = pointwise(tr, "tanh", tr_scale(tr, inner), tr_dtype(tr, inner), false, true);
        TId onep = tr_scale(tr, t);
        return tr_mul(tr, tr_scale(tr, x), onep);
    }
    }
    return x;
}

TId tr_dropout(Trace *tr, TId x, double p)
{
    if (!tr->training || p <= 0)
        return x;
    TId y = like(tr, x, tr_dtype(tr, x), needs_grad(tr, x));
    TId mask = like(tr, x, DT_BOOL, false);
    if (needs_grad(tr, x))
        save(tr, mask);
    TId in[2] = {x, mask};
    record(tr, "dropout", in, 2, y);
    return y;
}

TId tr_softmax(Trace *tr, TId x, bool log)
{
    DType dt = tr->autocast_on ? DT_F32 : tr_dtype(tr, x);
    return pointwise(tr, log ? "log_softmax" : "softmax", x, dt, false, true);
}

TId tr_masked_fill(Trace *tr, TId x) { return pointwise(tr, "masked_fill", x, tr_dtype(tr, x), false, false); }

TId tr_view(Trace *tr, TId x, int nd, const int64_t *dim)
{
    TId y = new_tensor(tr, tr_dtype(tr, x), nd, dim, needs_grad(tr, x));
    T(tr, y)->base = root(tr, x);
    T(tr, y)->ckpt = T(tr, root(tr, x))->ckpt;
    return y;
}

TId tr_copy(Trace *tr, TId x, int nd, const int64_t *dim) { return tr_remap(tr, "copy", x, nd, dim); }

TId tr_remap(Trace *tr, const char *name, TId x, int nd, const int64_t *dim)
{
    TId y = new_tensor(tr, tr_dtype(tr, x), nd, dim, needs_grad(tr, x));
    record(tr, name, &x, 1, y);
    return y;
}

TId tr_remap_keep(Trace *tr, const char *name, TId x, int nd, const int64_t *dim)
{
    TId y = tr_remap(tr, name, x, nd, dim);
    if (needs_grad(tr, x))
        save(tr, x);
    return y;
}

TId tr_cat(Trace *tr, const TId *xs, int n, int axis)
{
    const TTensor *t = T(tr, xs[0]);
    int64_t dim[TR_MAXDIM];
    memcpy(dim, t->dim, sizeof dim);
    int nd = t->nd;
    if (axis < 0)
        axis += nd;
    if (axis < 0 || axis >= TR_MAXDIM)
        axis = nd > 0 ? nd - 1 : 0;   /* an axis the tensor lacks: torch raises, pfc keeps going */
    bool grad = false;
    dim[axis] = 0;
    for (int i = 0; i < n; i++) {
        dim[axis] = ck_sadd(dim[axis], tr_dim(tr, xs[i], axis));
        grad |= needs_grad(tr, xs[i]);
    }
    TId y = new_tensor(tr, tr_dtype(tr, xs[0]), nd, dim, grad);
    record(tr, "cat", xs, n, y);
    return y;
}

TId tr_slice_last(Trace *tr, TId x, int64_t n)
{
    int64_t dim[TR_MAXDIM];
    memcpy(dim, T(tr, x)->dim, sizeof dim);
    int nd = T(tr, x)->nd ? T(tr, x)->nd : 1;
    dim[nd - 1] = n;
    return tr_view(tr, x, nd, dim);
}

TId tr_sdpa(Trace *tr, TId q, TId k, TId v, double dropout) { return tr_sdpa_bias(tr, q, k, v, 0, dropout); }

TId tr_sdpa_bias(Trace *tr, TId q, TId k, TId v, TId bias, double dropout)
{
    (void)dropout;   /* the fused kernels keep only the RNG seed */
    q = autocast_in(tr, q);
    k = autocast_in(tr, k);
    v = autocast_in(tr, v);
    if (bias)
        bias = autocast_in(tr, bias);   /* autocast casts every floating argument */
    TId out = like(tr, q, tr_dtype(tr, q), out_grad(tr, q, k, 0, 0) || needs_grad(tr, v));
    if (needs_grad(tr, out)) {
        save(tr, q);
        save(tr, k);
        save(tr, v);
        save(tr, out);
        int64_t ldim[3] = {tr_dim(tr, q, 0), tr_dim(tr, q, 1), tr_dim(tr, q, 2)};
        TId lse = new_tensor(tr, DT_F32, 3, ldim, false);
        save(tr, lse);
        if (bias)
            save(tr, bias);   /* the memory-efficient kernel's backward reads the mask again */
    }
    TId in[4] = {q, k, v, bias};
    record(tr, "sdpa", in, bias ? 4 : 3, out);
    return out;
}

TId tr_reduce(Trace *tr, TId x)
{
    int64_t one = 1;
    TId y = new_tensor(tr, tr->autocast_on ? DT_F32 : tr_dtype(tr, x), 0, &one, needs_grad(tr, x));
    record(tr, "reduce", &x, 1, y);
    return y;
}

/* nll_loss on log-probabilities: a scalar; keeps the target. */
static TId nll(Trace *tr, TId logp, TId target)
{
    int64_t one = 1;
    TId loss = new_tensor(tr, tr_dtype(tr, logp), 0, &one, needs_grad(tr, logp));
    if (target)
        save(tr, target);
    TId in[2] = {logp, target};
    record(tr, "nll_loss", in, 2, loss);
    return loss;
}

/* From here on the trace records the loss ("logits + loss" in reports). */
static void loss_begins(Trace *tr)
{
    if (!tr->head_op)
        tr->head_op = tr->ops.n + 1;
}

TId tr_nll_loss(Trace *tr, TId logp, TId target)
{
    loss_begins(tr);
    if (tr->autocast_on)
        logp = tr_cast(tr, logp, DT_F32);   /* nll_loss is on autocast's fp32 list */
    return nll(tr, logp, target);
}

TId tr_reduce_to(Trace *tr, TId x, int nd, const int64_t *dim)
{
    /* sum and mean need only the input's shape in the backward */
    TId y = new_tensor(tr, tr->autocast_on ? DT_F32 : tr_dtype(tr, x), nd, dim, needs_grad(tr, x));
    record(tr, "reduce", &x, 1, y);
    return y;
}

TId tr_cross_entropy(Trace *tr, TId logits, TId target)
{
    /* Under autocast, log_softmax runs with dtype=float: a 16-bit input is
     * read as it is and the fp32 result written directly (half_to_float),
     * so no fp32 copy of the logits exists and the input's gradient comes
     * back in 16 bits. The calibration's nanoGPT runs show exactly this:
     * one fp32 and one 16-bit logits-sized gradient at the backward's start. */
    loss_begins(tr);
    return nll(tr, tr_softmax(tr, logits, true), target);
}

TId tr_mse(Trace *tr, TId pred)
{
    TId d = pointwise(tr, "sub", pred, tr->autocast_on ? DT_F32 : tr_dtype(tr, pred), false, false);
    save(tr, d);
    return tr_reduce(tr, d);
}

TId tr_lstm(Trace *tr, TId x, int64_t hidden, int layers, int gates, int directions, double dropout,
            uint32_t *w)
{
    /* cuDNN keeps, per layer, direction and time step, the gate activations
     * and the cell (LSTM) or candidate (GRU) state in its reserve space, plus
     * each layer's output and (with dropout between layers) its mask. */
    x = autocast_in(tr, x);
    int64_t dirs = directions > 1 ? 2 : 1;
    TId y = like_last(tr, x, hidden * dirs, tr_dtype(tr, x), true);
    if (!tr->no_grad) {
        save(tr, x);
        save(tr, y);
        int64_t step = ck_smul(ck_smul(tr_dim(tr, x, 0), tr_dim(tr, x, 1)), ck_smul(hidden, dirs));
        int64_t n = ck_smul(step, (int64_t)(gates + 1) * layers + (layers - 1));
        TId reserve = new_tensor(tr, tr_dtype(tr, x), 1, &n, false);
        save(tr, reserve);
        if (dropout > 0 && tr->training && layers > 1) {
            int64_t m = ck_smul(step, layers - 1);
            TId mask = new_tensor(tr, DT_U8, 1, &m, false);
            save(tr, mask);
        }
    }
    for (int i = 0; w && i < layers; i++)
        use_param(tr, w[i]);
    record(tr, "lstm", &x, 1, y);
    return y;
}

void tr_ckpt_begin(Trace *tr, TId input)
{
    if (tr->no_grad)
        return;
    save(tr, input);
    tr->ckpt = ++tr->nckpt;
}

void tr_ckpt_end(Trace *tr) { tr->ckpt = 0; }

/* A readable listing of the recorded ops, for `pfc estimate --trace`. */
void tr_dump(const Trace *tr, void (*emit)(void *ctx, const char *line), void *ctx)
{
    char line[512];
    for (uint32_t i = 0; i < tr->ops.n; i++) {
        const TOp *op = &tr->ops.v[i];
        int n = snprintf(line, sizeof line, "%5u %-18s", i + 1, op->name);
        TId outs[1] = {op->out};
        for (int k = -1; k < op->nin && n < (int)sizeof line - 64; k++) {
            TId x = k < 0 ? outs[0] : op->in[k];
            if (!x)
                continue;
            const TTensor *t = &tr->t.v[x];
            n += snprintf(line + n, sizeof line - (size_t)n, "%s%%%u[", k < 0 ? " -> " : k == 0 ? "  from " : ", ", x);
            for (int d = 0; d < t->nd && n < (int)sizeof line - 32; d++)
                n += snprintf(line + n, sizeof line - (size_t)n, "%s%lld", d ? "," : "", (long long)t->dim[d]);
            n += snprintf(line + n, sizeof line - (size_t)n, "]%s%s%s", dt_names[t->dtype], t->saved ? " saved" : "",
                          t->grad ? "" : " nograd");
        }
        emit(ctx, line);
    }
}
