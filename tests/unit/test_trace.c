/* The trace's semantics (what each op saves, the dtypes autocast picks) and
 * the simulation's bytes (tr_simulate), on tiny hand-built traces. Every
 * expected number is worked out in the comment above it: each tensor's
 * bytes are numel x dtype size rounded up to 512 (the caching allocator),
 * a tensor is allocated when its op runs and freed after its last use in
 * the forward unless autograd saved it or the script keeps it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "../../base/arena.h"
#include "../../estimator/trace.h"

typedef struct Fix {
    Arena a;
    Trace tr;
} Fix;

static int setup(void **state)
{
    static Fix f;
    memset(&f, 0, sizeof f);
    arena_init(&f.a);
    tr_init(&f.tr, &f.a);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    Fix *f = *state;
    arena_free(&f->a);
    return 0;
}

static Trace *TR(void **state) { return &((Fix *)*state)->tr; }
static const TTensor *T(const Trace *tr, TId x) { return &tr->t.v[x]; }

/* A tensor the forward makes (torch.randn(..., device="cuda")): not kept by
 * the script, so it is freed after its last use unless something saves it. */
static TId made2(Trace *tr, DType dt, int64_t a, int64_t b)
{
    int64_t dim[2] = {a, b};
    return tr_new(tr, dt, 2, dim);
}

static uint32_t count_ops(const Trace *tr, const char *name)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < tr->ops.n; i++)
        n += strcmp(tr->ops.v[i].name, name) == 0;
    return n;
}

static const TOp *last_op(const Trace *tr) { return &tr->ops.v[tr->ops.n - 1]; }

/* ---- what each op saves ------------------------------------------------------------- */

static void test_linear_saves_input_not_output(void **state)
{
    Trace *tr = TR(state);
    /* op 1: x [8,16] fp32 = 512 bytes; op 2: y = x @ W^T, [8,32] fp32 = 1024 bytes,
     * W is 16*32 = 512 values (2048 bytes) */
    TId x = made2(tr, DT_F32, 8, 16);
    uint32_t w = tr_param(tr, 16 * 32);
    TId y = tr_linear(tr, x, 32, w, 0);
    assert_int_equal(tr_dim(tr, y, 0), 8);
    assert_int_equal(tr_dim(tr, y, -1), 32);
    assert_int_equal(tr_dtype(tr, y), DT_F32);
    assert_true(T(tr, x)->saved);     /* grad_weight = grad_y^T @ x */
    assert_false(T(tr, y)->saved);
    assert_true(T(tr, y)->grad);      /* W trains */
    assert_false(T(tr, x)->grad);

    PassMemory m;
    tr_simulate(tr, true, false, &m);
    /* forward: x (512) then y (1024) live together: 1536; y has no reader and
     * is freed after op 2, x is saved: 512 at the end of the forward */
    assert_int_equal(m.fwd_peak, 1536);
    assert_int_equal(m.saved, 512);
    assert_int_equal(m.graph, 512);
    assert_int_equal(m.kept, 0);
    /* backward of op 2: x (512) + W.grad (2048) appears: 2560 */
    assert_int_equal(m.bwd_peak, 2560);
    assert_int_equal(m.at_bwd_peak.param_grads, 2048);
    assert_int_equal(m.at_bwd_peak.body, 512);
}

static void test_param_grads_only_when_new(void **state)
{
    Trace *tr = TR(state);
    /* the same trace as above; with grads_exist the .grad of W (2048) is
     * already allocated before the backward and the pass adds none: the
     * backward peak is the saved x alone (512) */
    TId x = made2(tr, DT_F32, 8, 16);
    uint32_t w = tr_param(tr, 16 * 32);
    tr_linear(tr, x, 32, w, 0);
    PassMemory m;
    tr_simulate(tr, true, true, &m);
    assert_int_equal(m.bwd_peak, 512);
    assert_int_equal(m.at_bwd_peak.param_grads, 0);
    /* a frozen parameter gets no .grad at all (grads_exist=false): a frozen W
     * on a fresh trace leaves the forward output without grad, nothing saved */
    Fix *f = *state;
    arena_free(&f->a);
    arena_init(&f->a);
    tr_init(tr, &f->a);
    x = made2(tr, DT_F32, 8, 16);
    w = tr_param_dtype(tr, 16 * 32, DT_F32, false);
    TId y = tr_linear(tr, x, 32, w, 0);
    assert_false(T(tr, y)->grad);
    assert_false(T(tr, x)->saved);
    tr_simulate(tr, true, false, &m);
    assert_int_equal(m.saved, 0);
    assert_int_equal(m.at_bwd_peak.param_grads, 0);
}

static void test_relu_saves_output(void **state)
{
    Trace *tr = TR(state);
    /* op 1 x [8,16] fp32 512; op 2 h = linear(x) [8,32] fp32 1024;
     * op 3 r = relu(h) [8,32] fp32 1024 */
    TId x = made2(tr, DT_F32, 8, 16);
    uint32_t w = tr_param(tr, 16 * 32);
    TId h = tr_linear(tr, x, 32, w, 0);
    TId r = tr_act(tr, h, ACT_RELU, false);
    assert_true(T(tr, r)->saved);    /* relu's backward masks with its result */
    assert_false(T(tr, h)->saved);
    assert_true(T(tr, x)->saved);
    assert_int_equal(tr_bytes(tr, r), 1024);

    PassMemory m;
    tr_simulate(tr, false, false, &m);
    /* op 3 runs with x, h and r live: 512 + 1024 + 1024 = 2560; h is then
     * freed, the forward ends with x and r: 1536 */
    assert_int_equal(m.fwd_peak, 2560);
    assert_int_equal(m.saved, 1536);
}

static void test_inplace_relu_after_batch_norm(void **state)
{
    Trace *tr = TR(state);
    /* x [2,4,8,8] fp32 = 512 values = 2048 bytes; batch_norm over 4 channels
     * saves x and its per-channel mean and inverse std (4 fp32 each: 16 bytes,
     * 512 as allocated); y = bn(x) 2048 bytes */
    int64_t dim[4] = {2, 4, 8, 8};
    TId x = tr_new(tr, DT_F32, 4, dim);
    uint32_t g = tr_param(tr, 4), b = tr_param(tr, 4);
    TId y = tr_batch_norm(tr, x, g, b);
    uint32_t tensors_before = tr->t.n;
    TId r = tr_act(tr, y, ACT_RELU, true);
    /* relu_ writes into y's storage: the result is a view of y, and y is
     * what the backward keeps */
    assert_int_equal(T(tr, r)->base, y);
    assert_true(T(tr, y)->saved);
    assert_true(T(tr, x)->saved);
    assert_int_equal(tr->t.n, tensors_before + 1);   /* only the view's handle */
    assert_int_equal(tr_dtype(tr, r), DT_F32);

    PassMemory m;
    tr_simulate(tr, false, false, &m);
    /* x 2048 + y 2048 + mean 512 + inverse std 512 = 5120, and the relu_
     * adds nothing (an out-of-place relu would add 2048: 7168) */
    assert_int_equal(m.fwd_peak, 5120);
    assert_int_equal(m.saved, 5120);

    Fix *f = *state;
    arena_free(&f->a);
    arena_init(&f->a);
    tr_init(tr, &f->a);
    x = tr_new(tr, DT_F32, 4, dim);
    g = tr_param(tr, 4);
    b = tr_param(tr, 4);
    tr_act(tr, tr_batch_norm(tr, x, g, b), ACT_RELU, false);
    tr_simulate(tr, false, false, &m);
    assert_int_equal(m.fwd_peak, 7168);
}

static void test_dropout_mask_only_in_training(void **state)
{
    Trace *tr = TR(state);
    /* x [8,128] fp32 4096; h = linear(x) [8,128] fp32 4096; dropout's mask
     * is one byte per element: 1024 bytes, bool */
    TId x = made2(tr, DT_F32, 8, 128);
    uint32_t w = tr_param(tr, 128 * 128);
    TId h = tr_linear(tr, x, 128, w, 0);
    TId d = tr_dropout(tr, h, 0.1);
    assert_int_not_equal(d, h);
    const TOp *op = last_op(tr);
    assert_string_equal(op->name, "dropout");
    TId mask = op->in[1];
    assert_int_equal(tr_dtype(tr, mask), DT_BOOL);
    assert_int_equal(tr_bytes(tr, mask), 1024);
    assert_true(T(tr, mask)->saved);
    assert_false(T(tr, h)->saved);
    assert_false(T(tr, d)->saved);
    PassMemory m;
    tr_simulate(tr, false, false, &m);
    assert_int_equal(m.saved, 4096 + 1024);   /* x (the linear's input) and the mask */

    /* model.eval(): dropout is the identity, no op, no mask */
    Fix *f = *state;
    arena_free(&f->a);
    arena_init(&f->a);
    tr_init(tr, &f->a);
    tr->training = false;
    x = made2(tr, DT_F32, 8, 128);
    w = tr_param(tr, 128 * 128);
    h = tr_linear(tr, x, 128, w, 0);
    assert_int_equal(tr_dropout(tr, h, 0.1), h);
    assert_int_equal(count_ops(tr, "dropout"), 0);
    tr_simulate(tr, false, false, &m);
    assert_int_equal(m.saved, 4096);
}

/* ---- autocast ----------------------------------------------------------------------- */

static void autocast_bf16(Trace *tr)
{
    tr->autocast_on = true;
    tr->autocast = DT_BF16;
}

static void test_softmax_under_autocast_is_fp32(void **state)
{
    Trace *tr = TR(state);
    TId x = made2(tr, DT_BF16, 4, 10);
    /* without autocast softmax keeps its input's type */
    assert_int_equal(tr_dtype(tr, tr_softmax(tr, x, false)), DT_BF16);
    /* softmax is on autocast's fp32 list: a bf16 input gives an fp32 result
     * (4*10*4 = 160 bytes, 512 as allocated) */
    autocast_bf16(tr);
    TId s = tr_softmax(tr, x, false);
    assert_int_equal(tr_dtype(tr, s), DT_F32);
    assert_int_equal(tr_bytes(tr, s), 512);
    assert_int_equal(tr_dtype(tr, tr_softmax(tr, x, true)), DT_F32);   /* log_softmax too */
}

static void test_linear_under_autocast_saves_16bit_copies(void **state)
{
    Trace *tr = TR(state);
    /* op 1 x [8,16] fp32 (512); op 2 h = linear(x, W1) [8,16] fp32 (512) with
     * grad, outside autocast. Then under bf16 autocast, y = linear(h, W2):
     * op 3 casts h to bf16 (8*16*2 = 256 -> 512), op 4 casts W2 (16*32 values,
     * bf16: 1024 bytes), op 5 the linear, y [8,32] bf16 (512). */
    TId x = made2(tr, DT_F32, 8, 16);
    uint32_t w1 = tr_param(tr, 16 * 16), w2 = tr_param(tr, 16 * 32);
    TId h = tr_linear(tr, x, 16, w1, 0);
    autocast_bf16(tr);
    TId y = tr_linear(tr, h, 32, w2, 0);
    assert_int_equal(tr_dtype(tr, y), DT_BF16);
    const TOp *op = last_op(tr);
    assert_string_equal(op->name, "linear");
    TId hc = op->in[0], wc = op->in[1];
    assert_int_not_equal(hc, h);
    assert_int_equal(tr_dtype(tr, hc), DT_BF16);
    assert_true(T(tr, hc)->saved);        /* grad_W = grad_y^T @ (the bf16 input) */
    assert_false(T(tr, h)->saved);        /* the fp32 original is not */
    assert_int_not_equal(wc, 0);
    assert_int_equal(tr_dtype(tr, wc), DT_BF16);
    assert_int_equal(tr_bytes(tr, wc), 1024);
    assert_true(T(tr, wc)->weight_copy);
    assert_true(T(tr, wc)->saved);        /* grad_h = grad_y @ (the bf16 weight) */
    assert_false(T(tr, y)->saved);

    PassMemory m;
    tr_simulate(tr, false, false, &m);
    /* the end of the forward: x 512 (saved by W1's linear) + hc 512 + wc 1024 */
    assert_int_equal(m.saved, 2048);
    assert_int_equal(m.graph, 2048);
    assert_int_equal(m.weight_copies, 1024);
}

static void test_weight_used_twice_is_cast_once(void **state)
{
    Trace *tr = TR(state);
    /* two linears through the same fp32 W (16*16 values) inside one autocast
     * region: one cast_weight, both linears read the same 16-bit copy (512
     * bytes: 16*16*2) */
    TId x = made2(tr, DT_F32, 8, 16);
    uint32_t w0 = tr_param(tr, 16 * 16), w = tr_param(tr, 16 * 16);
    TId h = tr_linear(tr, x, 16, w0, 0);   /* fp32, outside autocast */
    autocast_bf16(tr);
    TId a = tr_linear(tr, h, 16, w, 0);
    TId first = last_op(tr)->in[1];
    tr_linear(tr, a, 16, w, 0);
    TId second = last_op(tr)->in[1];
    assert_int_equal(count_ops(tr, "cast_weight"), 1);
    assert_int_equal(first, second);
    assert_int_equal(tr_bytes(tr, first), 512);
    PassMemory m;
    tr_simulate(tr, false, false, &m);
    assert_int_equal(m.weight_copies, 512);
}

/* ---- no_grad ------------------------------------------------------------------------ */

static void test_no_grad_saves_nothing(void **state)
{
    Trace *tr = TR(state);
    tr->no_grad = true;
    /* ops: 1 x [8,128] fp32 = 4096; 2 h = linear(x); 3 r = relu(h);
     * 4 y = linear(r) (each [8,128] fp32, 4096); 5 target [8] int64 = 64 ->
     * 512; 6 log_softmax(y) 4096; 7 nll_loss, a scalar (512). The loss saves
     * its target whether or not anything needs a gradient, unless no_grad. */
    TId x = made2(tr, DT_F32, 8, 128);
    uint32_t w1 = tr_param(tr, 128 * 128), w2 = tr_param(tr, 128 * 128);
    TId h = tr_linear(tr, x, 128, w1, 0);
    TId r = tr_act(tr, h, ACT_RELU, false);
    TId y = tr_linear(tr, r, 128, w2, 0);
    int64_t n = 8;
    TId target = tr_new(tr, DT_I64, 1, &n);
    tr_cross_entropy(tr, y, target);
    for (TId i = 1; i < tr->t.n; i++) {
        assert_false(T(tr, i)->saved);
        assert_false(T(tr, i)->grad);
    }
    PassMemory m;
    tr_simulate(tr, false, false, &m);
    assert_int_equal(m.saved, 0);
    assert_int_equal(m.graph, 0);
    /* each op's input dies after it: at most an input and an output are live
     * (8192, not the four activations' 16384); the peak is op 6, y and its
     * log_softmax with the target: 4096 + 4096 + 512 = 8704 */
    assert_int_equal(m.fwd_peak, 8704);
}

/* ---- gradient checkpointing --------------------------------------------------------- */

/* ops: 1 new x [8,128] (4096); 2 h0 = linear(x, W0) (4096);
 *      -- checkpointed region, its input h0 --
 *      3 a = linear(h0, W1); 4 r = relu(a) (saved); 5 b = linear(r, W2)
 *      -- end --
 *      6 loss = reduce(b) (a scalar, 512) */
static void checkpointed(Trace *tr, bool ckpt)
{
    TId x = made2(tr, DT_F32, 8, 128);
    uint32_t w0 = tr_param(tr, 128 * 128), w1 = tr_param(tr, 128 * 128), w2 = tr_param(tr, 128 * 128);
    TId h0 = tr_linear(tr, x, 128, w0, 0);
    if (ckpt)
        tr_ckpt_begin(tr, h0);
    TId a = tr_linear(tr, h0, 128, w1, 0);
    TId r = tr_act(tr, a, ACT_RELU, false);
    TId b = tr_linear(tr, r, 128, w2, 0);
    if (ckpt)
        tr_ckpt_end(tr);
    tr_reduce(tr, b);
}

static void test_checkpoint_saves_region_input(void **state)
{
    Trace *tr = TR(state);
    PassMemory m;
    /* without checkpointing the forward ends with x, h0 and r saved: 12288 */
    checkpointed(tr, false);
    tr_simulate(tr, true, true, &m);
    assert_int_equal(m.saved, 12288);

    Fix *f = *state;
    arena_free(&f->a);
    arena_init(&f->a);
    tr_init(tr, &f->a);
    checkpointed(tr, true);
    tr_simulate(tr, true, true, &m);
    /* forward: x, h0, a, r at op 4: 16384; r (saved inside the region) is
     * freed after its last use (op 5) like any temporary; the forward ends
     * with x and the region's input h0: 8192 */
    assert_int_equal(m.fwd_peak, 16384);
    assert_int_equal(m.saved, 8192);
    assert_int_equal(m.graph, 8192);
    /* backward (grads_exist): entering the region at op 5 recomputes r
     * (4096): x + h0 + r = 12288 live, plus the gradients of b and r
     * (4096 each): 20480 */
    assert_int_equal(m.bwd_peak, 20480);
    assert_int_equal(m.at_bwd_peak.body, 12288);
    assert_int_equal(m.at_bwd_peak.grads, 8192);
    assert_int_equal(m.at_bwd_peak.param_grads, 0);
}

/* ---- kept tensors ------------------------------------------------------------------- */

static void test_kept_survives_backward(void **state)
{
    Trace *tr = TR(state);
    /* x = the script's input [8,128] fp32 4096 (kept); h = linear(x) 4096;
     * y = relu(h) 4096, which the script keeps (tr_keep); out = linear(y) to
     * 10 features: 8*10*4 = 320 -> 512 */
    TId x = tr_input2(tr, DT_F32, 8, 128);
    uint32_t w1 = tr_param(tr, 128 * 128), w2 = tr_param(tr, 128 * 10);
    TId h = tr_linear(tr, x, 128, w1, 0);
    TId y = tr_act(tr, h, ACT_RELU, false);
    tr_keep(tr, y);
    tr_linear(tr, y, 10, w2, 0);
    assert_true(T(tr, x)->kept);
    assert_true(T(tr, y)->kept);
    assert_false(T(tr, h)->kept);
    PassMemory m;
    tr_simulate(tr, true, false, &m);
    /* kept: x + y = 8192, whatever the backward frees */
    assert_int_equal(m.kept, 8192);
    assert_int_equal(m.saved, 8192);
    /* the backward's peak is its last op (op 1, W1's grad: 128*128*4 = 65536,
     * after W2's 128*10*4 = 5120), with the gradient of h (4096): x and y are
     * still live there, 8192 + 4096 + 70656 = 82944 */
    assert_int_equal(m.bwd_peak, 82944);
    assert_int_equal(m.at_bwd_peak.body, 8192);
    assert_int_equal(m.at_bwd_peak.param_grads, 70656);
    /* a view keeps its base */
    tr_keep(tr, tr_slice_last(tr, h, 64));
    assert_true(T(tr, h)->kept);

    /* the same without tr_keep(y): y is freed by relu's backward (op 2), so
     * at op 1 only x is live: 4096 + 4096 + 70656 = 78848 */
    Fix *f = *state;
    arena_free(&f->a);
    arena_init(&f->a);
    tr_init(tr, &f->a);
    x = tr_input2(tr, DT_F32, 8, 128);
    w1 = tr_param(tr, 128 * 128);
    w2 = tr_param(tr, 128 * 10);
    tr_linear(tr, tr_act(tr, tr_linear(tr, x, 128, w1, 0), ACT_RELU, false), 10, w2, 0);
    tr_simulate(tr, true, false, &m);
    assert_int_equal(m.kept, 4096);
    assert_int_equal(m.bwd_peak, 78848);
    assert_int_equal(m.at_bwd_peak.body, 4096);
}

/* ---- parameters and rounding -------------------------------------------------------- */

static void test_param_drop_removes_tied(void **state)
{
    Trace *tr = TR(state);
    /* an embedding and a head of 1000 values each (fp32: 4000 -> 4096 bytes),
     * then the head tied to the embedding: one of them is dropped */
    uint32_t emb = tr_param(tr, 1000), head = tr_param(tr, 1000);
    uint32_t frozen = tr_param_dtype(tr, 100, DT_BF16, false);   /* 200 -> 512 */
    ParamTotals pt;
    tr_param_totals(tr, &pt);
    assert_int_equal(pt.total, 2100);
    assert_int_equal(pt.trainable, 2000);
    assert_int_equal(pt.bytes, 4096 + 4096 + 512);
    assert_int_equal(pt.trainable_bytes, 8192);
    assert_int_equal(pt.frozen_bytes, 512);
    assert_int_equal(pt.raw_bytes, 8200);
    assert_int_equal(pt.raw_trainable_bytes, 8000);
    tr_param_drop(tr, head);
    tr_param_totals(tr, &pt);
    assert_int_equal(pt.total, 1100);
    assert_int_equal(pt.trainable, 1000);
    assert_int_equal(pt.bytes, 4096 + 512);
    assert_int_equal(pt.trainable_bytes, 4096);
    assert_int_equal(pt.raw_bytes, 4200);
    (void)emb;
    (void)frozen;
    tr_param_drop(tr, 0);   /* no parameter: nothing */
    tr_param_totals(tr, &pt);
    assert_int_equal(pt.total, 1100);
}

static void test_alloc_round(void **state)
{
    Trace *tr = TR(state);
    assert_int_equal(alloc_round(0), 0);
    assert_int_equal(alloc_round(1), 512);
    assert_int_equal(alloc_round(511), 512);
    assert_int_equal(alloc_round(512), 512);
    assert_int_equal(alloc_round(513), 1024);
    assert_int_equal(alloc_round(1000000), 1000448);   /* 1954 * 512 = 1000448 */
    /* tensors: [3,5] fp32 = 60 bytes -> 512; [100] int64 = 800 -> 1024;
     * [1024,1024] bf16 = 2 MiB exactly */
    TId a = made2(tr, DT_F32, 3, 5);
    int64_t n = 100;
    TId b = tr_new(tr, DT_I64, 1, &n);
    TId c = made2(tr, DT_BF16, 1024, 1024);
    assert_int_equal(tr_numel(tr, a), 15);
    assert_int_equal(tr_bytes(tr, a), 512);
    assert_int_equal(tr_bytes(tr, b), 1024);
    assert_int_equal(tr_bytes(tr, c), 2u << 20);
    assert_int_equal(dtype_size(DT_F32), 4);
    assert_int_equal(dtype_size(DT_BF16), 2);
    assert_int_equal(dtype_size(DT_I64), 8);
    assert_int_equal(dtype_size(DT_BOOL), 1);
}

/* ---- ops the interpreter maps tensor code onto (issue 12) ---------------------------- */

/* x * p with an nn.Parameter p of 16 values (a hand-written norm's weight):
 * x [8,16] fp32 = 512 bytes, p.grad = 64 bytes -> 512 rounded */
static void test_param_product_saves_input(void **state)
{
    Trace *tr = TR(state);
    TId x = made2(tr, DT_F32, 8, 16);
    uint32_t p = tr_param(tr, 16);
    TId y = tr_with_param(tr, x, p, true);
    assert_true(T(tr, x)->saved);     /* grad_p = (grad_y * x).sum(...) */
    assert_true(T(tr, y)->grad);
    assert_int_equal(tr_bytes(tr, y), 512);
    PassMemory m;
    tr_simulate(tr, true, false, &m);
    /* forward: x and y live together (1024); y has no reader: x alone is left */
    assert_int_equal(m.fwd_peak, 1024);
    assert_int_equal(m.saved, 512);
    /* backward: the saved x and p.grad (512) */
    assert_int_equal(m.bwd_peak, 1024);
    assert_int_equal(m.at_bwd_peak.param_grads, 512);
}

/* x + p keeps nothing: its gradient is grad_y itself */
static void test_param_sum_saves_nothing(void **state)
{
    Trace *tr = TR(state);
    TId x = made2(tr, DT_F32, 8, 16);
    TId y = tr_with_param(tr, x, tr_param(tr, 16), false);
    assert_false(T(tr, x)->saved);
    assert_true(T(tr, y)->grad);
    PassMemory m;
    tr_simulate(tr, false, false, &m);
    assert_int_equal(m.saved, 0);
}

/* h[idx] with idx 4 int64 indices into h [1000,64] fp32 (256000 bytes):
 * the result is [4,64] fp32 (1024 bytes); only idx (32 -> 512 bytes) is kept */
static void test_gather_keeps_index_only(void **state)
{
    Trace *tr = TR(state);
    TId x = made2(tr, DT_F32, 1000, 64);
    TId h = tr_with_param(tr, x, tr_param(tr, 64), false);
    int64_t four = 4, out[2] = {4, 64};
    TId idx = tr_new(tr, DT_I64, 1, &four);
    TId g = tr_gather(tr, h, idx, 2, out);
    assert_true(T(tr, idx)->saved);
    assert_false(T(tr, h)->saved);
    assert_true(T(tr, g)->grad);
    assert_int_equal(tr_bytes(tr, g), 1024);
    PassMemory m;
    tr_simulate(tr, false, false, &m);
    assert_int_equal(m.saved, 512);
}

/* einsum of a [8,16] and b [8,16] (both need grad) into [8,8]: each operand
 * is kept for the other's gradient: 512 + 512 bytes */
static void test_contract_keeps_both_operands(void **state)
{
    Trace *tr = TR(state);
    uint32_t p = tr_param(tr, 16);
    TId a = tr_with_param(tr, made2(tr, DT_F32, 8, 16), p, false);
    TId b = tr_with_param(tr, made2(tr, DT_F32, 8, 16), p, false);
    int64_t out[2] = {8, 8};
    TId c = tr_contract(tr, "einsum", a, b, 2, out);
    assert_true(T(tr, a)->saved);
    assert_true(T(tr, b)->saved);
    assert_int_equal(tr_dim(tr, c, 0), 8);
    assert_int_equal(tr_dim(tr, c, 1), 8);
    PassMemory m;
    tr_simulate(tr, false, false, &m);
    assert_int_equal(m.saved, 1024);
}

/* an op pfc does not model: x's shape, x kept, and counted */
static void test_assumed_op_keeps_input_and_counts(void **state)
{
    Trace *tr = TR(state);
    TId a = tr_with_param(tr, made2(tr, DT_F32, 8, 16), tr_param(tr, 16), false);
    assert_int_equal(tr->assumed, 0);
    TId y = tr_assumed(tr, "`torch.special.erf`", a);
    assert_int_equal(tr->assumed, 1);
    assert_true(T(tr, a)->saved);
    assert_int_equal(tr_dim(tr, y, 0), 8);
    assert_int_equal(tr_dim(tr, y, 1), 16);
    assert_true(T(tr, y)->grad);
}

/* bitsandbytes storage, worked from the layouts: a 4096 x 4096 weight is
 * 16777216 values. NF4 packs two a byte (8388608) with one fp32 absmax per
 * 64 values (262144 blocks: 1048576 bytes) = 9437184; with double
 * quantization the absmax is one byte a block (262144) plus one fp32 per 256
 * blocks (1024 x 4 = 4096) = 8654848. LLM.int8: a byte a value, 16777216. */
static void test_quantized_weight_storage(void **state)
{
    Trace *tr = TR(state);
    uint32_t nf4 = tr_param_quantized(tr, 4096 * 4096, 4, false);
    uint32_t dq = tr_param_quantized(tr, 4096 * 4096, 4, true);
    uint32_t i8 = tr_param_quantized(tr, 4096 * 4096, 8, false);
    assert_int_equal(tr_param_storage(&tr->params.v[nf4 - 1]), 9437184);
    assert_int_equal(tr_param_storage(&tr->params.v[dq - 1]), 8654848);
    assert_int_equal(tr_param_storage(&tr->params.v[i8 - 1]), 16777216);
    ParamTotals pt;
    tr_param_totals(tr, &pt);
    assert_int_equal(pt.total, 3u * 4096 * 4096);   /* values, not bytes */
    assert_int_equal(pt.trainable, 0);              /* quantized weights never train */
    assert_int_equal(pt.raw_bytes, 9437184 + 8654848 + 16777216);
}

/* a linear on a 4-bit weight dequantizes it while it runs: with bf16
 * compute, 4096 x 4096 x 2 bytes = 33554432 of workspace; the frozen weight
 * keeps nothing of its input */
static void test_quantized_linear_dequantizes(void **state)
{
    Trace *tr = TR(state);
    tr->quant_compute = DT_BF16;
    uint32_t w = tr_param_quantized(tr, 4096 * 4096, 4, true);
    TId x = made2(tr, DT_BF16, 8, 4096);
    TId y = tr_linear(tr, x, 4096, w, 0);
    assert_int_equal(last_op(tr)->workspace, 33554432);
    assert_false(T(tr, x)->saved);
    assert_false(T(tr, y)->grad);
}


/* ---- convolution and pooling windows --------------------------------------------------- */

static TId made(Trace *tr, DType dt, int nd, int64_t a, int64_t b, int64_t c, int64_t d, int64_t e)
{
    int64_t dim[5] = {a, b, c, d, e};
    return tr_new(tr, dt, nd, dim);
}

static void assert_shape(const Trace *tr, TId x, int nd, const int64_t *want)
{
    assert_int_equal(T(tr, x)->nd, nd);
    for (int i = 0; i < nd; i++)
        assert_int_equal(T(tr, x)->dim[i], want[i]);
}

static void test_conv_sides_per_dimension(void **state)
{
    Trace *tr = TR(state);
    /* Conv2d(3, 8, (3, 5), stride=(2, 1), padding=(1, 0), dilation=(1, 2)) on (2, 3, 32, 20):
     * H = floor((32 + 2*1 - 1*(3-1) - 1) / 2) + 1 = floor(31/2) + 1 = 16
     * W = floor((20 + 0 - 2*(5-1) - 1) / 1) + 1 = 11 + 1 = 12 */
    TId x = made(tr, DT_F32, 4, 2, 3, 32, 20, 0);
    Window w = tr_window(2, 1, 1, 0);
    w.k[0] = 3, w.k[1] = 5, w.stride[0] = 2, w.pad[0] = 1, w.dil[1] = 2;
    uint32_t wt = tr_param(tr, 8 * 3 * 3 * 5);
    TId y = tr_conv(tr, x, 8, &w, wt, 0);
    assert_shape(tr, y, 4, (int64_t[]){2, 8, 16, 12});
    assert_string_equal(last_op(tr)->name, "conv2d");
    assert_true(T(tr, x)->saved);   /* convolution_backward reads the input for the weight's gradient */
    assert_null(tr->error);
}

static void test_conv3d_and_unbatched(void **state)
{
    Trace *tr = TR(state);
    /* Conv3d(4, 6, 3, stride=2, padding=1) on (1, 4, 8, 16, 16):
     * D = floor((8 + 2 - 2 - 1) / 2) + 1 = 3 + 1 = 4; H = W = floor(15/2) + 1 = 8 */
    Window w = tr_window(3, 3, 2, 1);
    uint32_t wt = tr_param(tr, 6 * 4 * 27);
    TId y = tr_conv(tr, made(tr, DT_F32, 5, 1, 4, 8, 16, 16), 6, &w, wt, 0);
    assert_shape(tr, y, 5, (int64_t[]){1, 6, 4, 8, 8});
    assert_string_equal(last_op(tr)->name, "conv3d");
    /* unbatched (C, D, H, W) keeps its rank */
    y = tr_conv(tr, made(tr, DT_F32, 4, 4, 8, 16, 16, 0), 6, &w, wt, 0);
    assert_shape(tr, y, 4, (int64_t[]){6, 4, 8, 8});
    /* a 2-D input to a 3-D conv is refused, as torch raises */
    assert_int_equal(tr_conv(tr, made2(tr, DT_F32, 4, 8), 6, &w, wt, 0), 0);
    assert_non_null(tr->error);
}

static void test_conv_same_even_kernel_pads_a_copy(void **state)
{
    Trace *tr = TR(state);
    /* Conv1d(2, 5, 4, padding="same") on (1, 2, 10): the output keeps 10; the
     * total padding d(k-1) = 3 is odd, so torch pads one more on the right
     * first: a (1, 2, 11) copy, which the convolution saves instead of x */
    TId x = made(tr, DT_F32, 3, 1, 2, 10, 0, 0);
    Window w = tr_window(1, 4, 1, 0);
    w.same = true;
    TId y = tr_conv(tr, x, 5, &w, tr_param(tr, 5 * 2 * 4), 0);
    assert_shape(tr, y, 3, (int64_t[]){1, 5, 10});
    assert_int_equal(count_ops(tr, "constant_pad_nd"), 1);
    const TOp *conv = last_op(tr);
    assert_shape(tr, conv->in[0], 3, (int64_t[]){1, 2, 11});
    assert_true(T(tr, conv->in[0])->saved);
    assert_false(T(tr, x)->saved);
    /* an odd kernel pads evenly: no copy */
    TId z = tr_conv(tr, x, 5, &(Window){.nsp = 1, .k = {3}, .stride = {1}, .dil = {1}, .same = true},
                    tr_param(tr, 30), 0);
    assert_shape(tr, z, 3, (int64_t[]){1, 5, 10});
    assert_int_equal(count_ops(tr, "constant_pad_nd"), 1);
}

static void test_conv_transpose3d_sides(void **state)
{
    Trace *tr = TR(state);
    /* ConvTranspose3d(4, 2, (2, 3, 4), stride=2, padding=1, output_padding=(1, 0, 1))
     * on (1, 4, 5, 6, 7): (n-1)*2 - 2*1 + (k-1) + out_pad + 1:
     * 5: 8 - 2 + 1 + 1 + 1 = 9; 6: 10 - 2 + 2 + 0 + 1 = 11; 7: 12 - 2 + 3 + 1 + 1 = 15 */
    Window w = tr_window(3, 1, 2, 1);
    w.k[0] = 2, w.k[1] = 3, w.k[2] = 4, w.out_pad[0] = 1, w.out_pad[2] = 1;
    TId y = tr_conv_transpose(tr, made(tr, DT_F32, 5, 1, 4, 5, 6, 7), 2, &w, tr_param(tr, 4 * 2 * 24), 0);
    assert_shape(tr, y, 5, (int64_t[]){1, 2, 9, 11, 15});
    assert_string_equal(last_op(tr)->name, "conv_transpose3d");
}

static void test_window_wider_than_input_is_refused(void **state)
{
    Trace *tr = TR(state);
    /* a 5-wide kernel on a side of 3 without padding: 3 - 5 < 0, torch refuses */
    Window w = tr_window(2, 5, 1, 0);
    tr_conv(tr, made(tr, DT_F32, 4, 1, 1, 3, 8, 0), 1, &w, tr_param(tr, 25), 0);
    assert_non_null(tr->error);
    assert_non_null(strstr(tr->error, "larger than its padded input"));
}

static void test_max_pool_ceil_mode_and_indices(void **state)
{
    Trace *tr = TR(state);
    /* MaxPool2d(2, 2, ceil_mode=True) on (1, 1, 7, 7): ceil((7 - 2) / 2) + 1 = 4
     * (floor: 3); MaxPool2d(2, 3, padding=1, ceil_mode=True) on a side of 4:
     * ceil((4 + 2 - 2) / 3) + 1 = 3, but the last window would start at
     * (3-1)*3 = 6 >= 4 + 1, inside the padding: torch drops it, 2 */
    int64_t dim[4] = {1, 1, 7, 7};
    uint32_t wt = tr_param(tr, 1);
    TId x = tr_linear(tr, tr_new(tr, DT_F32, 4, dim), 7, wt, 0);   /* needs grad */
    Window w = tr_window(2, 2, 2, 0);
    w.ceil_mode = true;
    TId y = tr_pool(tr, x, &w, true);
    assert_shape(tr, y, 4, (int64_t[]){1, 1, 4, 4});
    /* saved: the input and (1, 1, 4, 4) int64 indices */
    const TOp *op = last_op(tr);
    assert_string_equal(op->name, "max_pool2d");
    assert_true(T(tr, x)->saved);
    assert_int_equal(T(tr, op->in[1])->dtype, DT_I64);
    assert_int_equal(tr_numel(tr, op->in[1]), 4 * 4);
    assert_int_equal(tr_bytes(tr, op->in[1]), 512);   /* 16 * 8 = 128 bytes, rounded to 512 */
    w = tr_window(2, 2, 3, 1);
    w.ceil_mode = true;
    int64_t four[4] = {1, 1, 4, 4};
    y = tr_pool(tr, tr_new(tr, DT_F32, 4, four), &w, true);
    assert_shape(tr, y, 4, (int64_t[]){1, 1, 2, 2});
    /* AvgPool1d(3) on (2, 4, 10): floor((10 - 3) / 3) + 1 = 3; saves its input only */
    w = tr_window(1, 3, 3, 0);
    TId a = tr_linear(tr, made(tr, DT_F32, 3, 2, 4, 10, 0, 0), 10, tr_param(tr, 100), 0);
    y = tr_pool(tr, a, &w, false);
    assert_shape(tr, y, 3, (int64_t[]){2, 4, 3});
    assert_string_equal(last_op(tr)->name, "avg_pool1d");
    assert_int_equal(last_op(tr)->nin, 1);
    assert_true(T(tr, a)->saved);
}

static void test_adaptive_pools(void **state)
{
    Trace *tr = TR(state);
    TId x = tr_linear(tr, made(tr, DT_F32, 5, 2, 3, 4, 6, 8), 8, tr_param(tr, 64), 0);
    /* AdaptiveAvgPool3d(1): a mean, nothing saved */
    TId y = tr_adaptive(tr, x, 3, (int64_t[]){1, 1, 1}, false);
    assert_shape(tr, y, 5, (int64_t[]){2, 3, 1, 1, 1});
    assert_false(T(tr, x)->saved);
    /* AdaptiveAvgPool3d((2, None, 4)): None keeps the side (6); saves its input */
    y = tr_adaptive(tr, x, 3, (int64_t[]){2, 0, 4}, false);
    assert_shape(tr, y, 5, (int64_t[]){2, 3, 2, 6, 4});
    assert_true(T(tr, x)->saved);
    /* AdaptiveMaxPool1d(1) on (2, 3, 8) keeps int64 indices even for one output */
    TId z = tr_linear(tr, made(tr, DT_F32, 3, 2, 3, 8, 0, 0), 8, tr_param(tr, 64), 0);
    y = tr_adaptive(tr, z, 1, (int64_t[]){1}, true);
    assert_shape(tr, y, 3, (int64_t[]){2, 3, 1});
    assert_int_equal(T(tr, last_op(tr)->in[1])->dtype, DT_I64);
}

static void test_instance_norm_stats_per_sample_channel(void **state)
{
    Trace *tr = TR(state);
    /* InstanceNorm2d on (4, 3, 8, 8) fp32 (3072 bytes): saves x and a mean and
     * an inverse std for each of 4*3 = 12 (sample, channel) pairs, 48 bytes,
     * 512 as allocated: 3072 + 512 + 512 = 4096 at the end of the forward,
     * with y (3072) freed (nothing reads it) */
    int64_t dim[4] = {4, 3, 8, 8};
    TId x = tr_new(tr, DT_F32, 4, dim);
    uint32_t g = tr_param(tr, 3), b = tr_param(tr, 3);
    TId y = tr_instance_norm(tr, x, 2, g, b);
    assert_shape(tr, y, 4, dim);
    assert_true(T(tr, x)->saved);
    PassMemory m;
    tr_simulate(tr, false, false, &m);
    assert_int_equal(m.saved, 4096);
}

static void test_pads_keep_input_by_mode(void **state)
{
    Trace *tr = TR(state);
    TId x = tr_linear(tr, made2(tr, DT_F32, 8, 16), 16, tr_param(tr, 256), 0);
    int64_t dim[2] = {8, 20};
    /* reflection_pad's backward takes self: x saved; constant_pad_nd keeps nothing */
    tr_remap(tr, "constant_pad_nd", x, 2, dim);
    assert_false(T(tr, x)->saved);
    TId y = tr_remap_keep(tr, "reflection_pad", x, 2, dim);
    assert_true(T(tr, x)->saved);
    assert_int_equal(tr_dim(tr, y, 1), 20);
}

int main(void)
{
#define T_(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T_(test_linear_saves_input_not_output), T_(test_param_grads_only_when_new),
        T_(test_relu_saves_output), T_(test_inplace_relu_after_batch_norm),
        T_(test_dropout_mask_only_in_training), T_(test_softmax_under_autocast_is_fp32),
        T_(test_linear_under_autocast_saves_16bit_copies), T_(test_weight_used_twice_is_cast_once),
        T_(test_no_grad_saves_nothing), T_(test_checkpoint_saves_region_input),
        T_(test_kept_survives_backward), T_(test_param_drop_removes_tied), T_(test_alloc_round),
        T_(test_param_product_saves_input), T_(test_param_sum_saves_nothing),
        T_(test_gather_keeps_index_only), T_(test_contract_keeps_both_operands),
        T_(test_assumed_op_keeps_input_and_counts), T_(test_quantized_weight_storage),
        T_(test_quantized_linear_dequantizes), T_(test_conv_sides_per_dimension),
        T_(test_conv3d_and_unbatched), T_(test_conv_same_even_kernel_pads_a_copy),
        T_(test_conv_transpose3d_sides), T_(test_window_wider_than_input_is_refused),
        T_(test_max_pool_ceil_mode_and_indices), T_(test_adaptive_pools),
        T_(test_instance_norm_stats_per_sample_channel), T_(test_pads_keep_input_by_mode),
    };
#undef T_
    return cmocka_run_group_tests(tests, NULL, NULL);
}
