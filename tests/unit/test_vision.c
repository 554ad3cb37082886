/* torchvision's classifiers recorded into a trace: parameter counts against
 * torchvision's published num_params, the recorded shapes, and the memory the
 * trace implies (linear in the batch, autocast and no_grad effects, and the
 * activations saved for the backward against shared/calibration's H200
 * measurements). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "../../base/arena.h"
#include "../../estimator/trace.h"
#include "../../estimator/vision.h"

typedef struct Built {
    Arena a;
    Trace tr;
    TId logits;
    bool ok;
} Built;

/* Records `name` with the given precision settings; the caller frees b->a. */
static void build(Built *b, const char *name, int64_t batch, int64_t image, bool amp, bool training,
                  bool no_grad)
{
    arena_init(&b->a);
    tr_init(&b->tr, &b->a);
    b->tr.training = training;
    b->tr.no_grad = no_grad;
    if (amp) {
        b->tr.autocast_on = true;
        b->tr.autocast = DT_F16;
    }
    b->logits = 0;
    b->ok = vision_build(&b->tr, name, batch, image, 1000, &b->logits);
}

static void expect_params(const char *name, uint64_t published)
{
    Built b;
    /* Inception v3's auxiliary head needs more than 224 in training */
    build(&b, name, 2, strcmp(name, "inception_v3") == 0 ? 299 : 224, false, true, false);
    if (!b.ok)
        fail_msg("%s is not known", name);
    ParamTotals pt;
    tr_param_totals(&b.tr, &pt);
    if (pt.total != published)
        fail_msg("%s: %llu parameters, published %llu", name, (unsigned long long)pt.total,
                 (unsigned long long)published);
    assert_int_equal(pt.trainable, published);
    assert_false(b.tr.overflow);
    assert_int_equal(tr_dim(&b.tr, b.logits, 0), 2);
    assert_int_equal(tr_dim(&b.tr, b.logits, 1), 1000);
    arena_free(&b.a);
}

static void test_names(void **state)
{
    (void)state;
    size_t n;
    const char *const *names = vision_names(&n);
    assert_true(n >= 60);
    /* every listed name builds, at another size too (14, 16 and 32 divide 448) */
    for (size_t i = 0; i < n; i++) {
        Built b;
        if (strcmp(names[i], "maxvit_t") == 0)
            continue;   /* built for one size: test_maxvit_sizes */
        build(&b, names[i], 3, 448, false, true, false);
        assert_true(b.ok);
        assert_int_equal(tr_dim(&b.tr, b.logits, 0), 3);
        assert_int_equal(tr_dim(&b.tr, b.logits, 1), 1000);
        arena_free(&b.a);
    }
    Built b;
    build(&b, "resnet51", 2, 224, false, true, false);
    assert_false(b.ok);
    arena_free(&b.a);
    build(&b, "vit_b_16", 2, 200, false, true, false);   /* 16 does not divide 200 */
    assert_false(b.ok);
    arena_free(&b.a);
    build(&b, "ResNet50", 2, 224, false, true, false);   /* torchvision's spelling only */
    assert_false(b.ok);
    arena_free(&b.a);
    /* torchvision fails too: InceptionAux's 5x5 conv gets a 3x3 input */
    build(&b, "inception_v3", 2, 224, false, true, false);
    assert_false(b.ok);
    arena_free(&b.a);
    build(&b, "inception_v3", 2, 224, false, false, false);   /* eval: no auxiliary head */
    assert_true(b.ok);
    arena_free(&b.a);
}

/* Saved for the backward (the input excluded), with a cross-entropy loss. */
static uint64_t saved_bytes(const char *name, int64_t batch, bool amp, bool training, bool no_grad,
                            PassMemory *out)
{
    Built b;
    build(&b, name, batch, 224, amp, training, no_grad);
    assert_true(b.ok);
    int64_t n = batch;
    TId target = tr_input(&b.tr, DT_I64, 1, &n);
    tr_cross_entropy(&b.tr, b.logits, target);
    PassMemory m;
    tr_simulate(&b.tr, true, false, &m);
    if (out)
        *out = m;
    uint64_t inputs = alloc_round((uint64_t)batch * 3 * 224 * 224 * 4) + alloc_round((uint64_t)batch * 8);
    arena_free(&b.a);
    return m.saved - inputs;
}

static void test_linear_in_batch(void **state)
{
    (void)state;
    static const char *const some[] = {"resnet50", "densenet121", "efficientnet_b0", "mobilenet_v3_large",
                                       "vit_b_16", "convnext_tiny", "vgg16", "regnet_y_400mf",
                                       "squeezenet1_0", "shufflenet_v2_x1_0", "mnasnet1_0", "googlenet",
                                       "swin_t", "swin_v2_t", "maxvit_t"};
    for (size_t i = 0; i < sizeof some / sizeof some[0]; i++) {
        uint64_t s4 = saved_bytes(some[i], 4, false, true, false, NULL);
        uint64_t s8 = saved_bytes(some[i], 8, false, true, false, NULL);
        uint64_t s16 = saved_bytes(some[i], 16, false, true, false, NULL);
        assert_true(s8 > s4 && s16 > s8);
        double d1 = (double)s8 - (double)s4, d2 = (double)s16 - (double)s8;
        /* the increments are the per-sample activations: equal per 4 samples */
        if (d2 < 1.99 * d1 || d2 > 2.01 * d1)
            fail_msg("%s: saved %llu, %llu, %llu at batch 4, 8, 16", some[i], (unsigned long long)s4,
                     (unsigned long long)s8, (unsigned long long)s16);
        /* and what does not scale (per-channel statistics, masks) is small */
        assert_true((double)s4 > 0.95 * (double)s8 / 2);
    }
}

static void test_modes(void **state)
{
    (void)state;
    PassMemory fp32, amp;
    uint64_t s32 = saved_bytes("resnet50", 32, false, true, false, &fp32);
    uint64_t s16 = saved_bytes("resnet50", 32, true, true, false, &amp);
    /* autocast: 16-bit conv inputs and BatchNorm inputs, plus the weight copies */
    assert_int_equal(fp32.weight_copies, 0);
    assert_true(amp.weight_copies >= 2 * 25000000ull);
    assert_true(s16 < s32 * 0.55 && s16 > s32 * 0.45);
    /* under no_grad nothing is saved */
    assert_int_equal(saved_bytes("resnet50", 32, false, true, true, NULL), 0);
    assert_int_equal(saved_bytes("vit_b_16", 8, true, true, true, NULL), 0);
    /* eval mode: no dropout masks and no stochastic depth */
    assert_true(saved_bytes("efficientnet_b0", 16, false, false, false, NULL) <
                saved_bytes("efficientnet_b0", 16, false, true, false, NULL));
    assert_true(saved_bytes("vgg16", 16, false, false, false, NULL) <
                saved_bytes("vgg16", 16, false, true, false, NULL));
    /* the backward peak is above what the forward saved */
    assert_true(fp32.bwd_peak > fp32.saved && amp.bwd_peak > amp.saved);
    /* model.to(torch.bfloat16) without autocast: bf16 images and activations */
    Arena a;
    arena_init(&a);
    Trace tr;
    tr_init(&tr, &a);
    tr.weight_dtype = DT_BF16;
    TId logits;
    assert_true(vision_build(&tr, "resnet50", 32, 224, 1000, &logits));
    assert_int_equal(tr_dtype(&tr, logits), DT_BF16);
    PassMemory bf;
    tr_simulate(&tr, true, false, &bf);
    assert_true(bf.saved < fp32.saved * 0.55 && bf.saved > fp32.saved * 0.45);
    ParamTotals pt;
    tr_param_totals(&tr, &pt);
    assert_true(pt.bytes < 2 * 25557032ull + 512 * 200);
    arena_free(&a);
}

/* shared/calibration (H200, torch 2.11, torchvision 0.26): the activations
 * saved for the backward, alloc_before_backward0 - alloc_first_forward. */
static void expect_saved(const char *name, int64_t batch, bool amp, uint64_t measured)
{
    double got = (double)saved_bytes(name, batch, amp, true, false, NULL);
    double err = (got - (double)measured) / (double)measured;
    if (err > 0.03 || err < -0.03)
        fail_msg("%s batch %lld: %.0f bytes saved, measured %llu (%+.1f%%)", name, (long long)batch, got,
                 (unsigned long long)measured, 100 * err);
}

static void test_calibration(void **state)
{
    (void)state;
    expect_saved("resnet18", 256, false, 5803685888ull - 276648960ull);
    expect_saved("resnet50", 64, false, 5695457280ull - 216705024ull);
    expect_saved("resnet50", 128, true, 5929036288ull - 255240704ull);
    expect_saved("resnet101", 64, true, 4517727744ull - 292974080ull);
    expect_saved("efficientnet_b0", 128, false, 11409718272ull - 174167552ull);
    expect_saved("mobilenet_v3_large", 256, true, 5933212672ull - 251947520ull);
    expect_saved("vit_b_16", 64, true, 4905456640ull - 460500480ull);
    expect_saved("densenet121", 64, false, 8489977856ull - 146587648ull);
}

/* The num_params of torchvision's weight enums (torchvision 0.26 documentation;
 * resnet18/50, densenet121, efficientnet_b0, mobilenet_v3_large and vit_b_16
 * also equal the optimizer's parameter counts in shared/calibration). */
static const struct { const char *name; uint64_t total; } published[] = {
    {"resnet18", 11689512ull},
    {"resnet34", 21797672ull},
    {"resnet50", 25557032ull},
    {"resnet101", 44549160ull},
    {"resnet152", 60192808ull},
    {"resnext50_32x4d", 25028904ull},
    {"resnext101_32x8d", 88791336ull},
    {"resnext101_64x4d", 83455272ull},
    {"wide_resnet50_2", 68883240ull},
    {"wide_resnet101_2", 126886696ull},
    {"vgg11", 132863336ull},
    {"vgg11_bn", 132868840ull},
    {"vgg13", 133047848ull},
    {"vgg13_bn", 133053736ull},
    {"vgg16", 138357544ull},
    {"vgg16_bn", 138365992ull},
    {"vgg19", 143667240ull},
    {"vgg19_bn", 143678248ull},
    {"alexnet", 61100840ull},
    {"densenet121", 7978856ull},
    {"densenet161", 28681000ull},
    {"densenet169", 14149480ull},
    {"densenet201", 20013928ull},
    {"efficientnet_b0", 5288548ull},
    {"efficientnet_b1", 7794184ull},
    {"efficientnet_b2", 9109994ull},
    {"efficientnet_b3", 12233232ull},
    {"efficientnet_b4", 19341616ull},
    {"efficientnet_b5", 30389784ull},
    {"efficientnet_b6", 43040704ull},
    {"efficientnet_b7", 66347960ull},
    {"efficientnet_v2_s", 21458488ull},
    {"efficientnet_v2_m", 54139356ull},
    {"efficientnet_v2_l", 118515272ull},
    {"mobilenet_v2", 3504872ull},
    {"mobilenet_v3_large", 5483032ull},
    {"mobilenet_v3_small", 2542856ull},
    {"vit_b_16", 86567656ull},
    {"vit_b_32", 88224232ull},
    {"vit_l_16", 304326632ull},
    {"vit_l_32", 306535400ull},
    {"vit_h_14", 632045800ull}, /* at 224: the SWAG linear-classifier weights */
    {"convnext_tiny", 28589128ull},
    {"convnext_small", 50223688ull},
    {"convnext_base", 88591464ull},
    {"convnext_large", 197767336ull},
    {"regnet_y_400mf", 4344144ull},
    {"regnet_y_800mf", 6432512ull},
    {"regnet_y_1_6gf", 11202430ull},
    {"regnet_y_3_2gf", 19436338ull},
    {"regnet_y_8gf", 39381472ull},
    {"regnet_y_16gf", 83590140ull},
    {"regnet_y_32gf", 145046770ull},
    {"regnet_y_128gf", 644812894ull},
    {"regnet_x_400mf", 5495976ull},
    {"regnet_x_800mf", 7259656ull},
    {"regnet_x_1_6gf", 9190136ull},
    {"regnet_x_3_2gf", 15296552ull},
    {"regnet_x_8gf", 39572648ull},
    {"regnet_x_16gf", 54278536ull},
    {"regnet_x_32gf", 107811560ull},
    {"squeezenet1_0", 1248424ull},
    {"squeezenet1_1", 1235496ull},
    {"shufflenet_v2_x0_5", 1366792ull},
    {"shufflenet_v2_x1_0", 2278604ull},
    {"shufflenet_v2_x1_5", 3503624ull},
    {"shufflenet_v2_x2_0", 7393996ull},
    {"mnasnet0_5", 2218512ull},
    {"mnasnet0_75", 3170208ull},
    {"mnasnet1_0", 4383312ull},
    {"mnasnet1_3", 6282256ull},
    {"googlenet", 6624904ull},      /* aux_logits off, as loaded with weights */
    {"inception_v3", 27161264ull},  /* with AuxLogits (its default); at 299 */
    {"swin_t", 28288354ull},
    {"swin_s", 49606258ull},
    {"swin_b", 87768224ull},
    {"swin_v2_t", 28351570ull},
    {"swin_v2_s", 49737442ull},
    {"swin_v2_b", 87930848ull},
    {"maxvit_t", 30919624ull},
};

static void test_published_totals(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof published / sizeof published[0]; i++)
        expect_params(published[i].name, published[i].total);
}

/* maxvit_t's partition layers are built for 224 (its input_size): 223 gives
 * the same 112 x 112 stem output, (223 - 1) / 2 + 1; 225 gives 113 and 448
 * 224, whose grids the departitions' reshapes do not fit. The refusal names
 * the constraint. */
static void test_maxvit_sizes(void **state)
{
    (void)state;
    static const struct { int64_t image; bool runs; } sizes[] = {
        {224, true}, {223, true}, {225, false}, {222, false}, {448, false}, {112, false},
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        Built b;
        build(&b, "maxvit_t", 2, sizes[i].image, false, true, false);
        if (b.ok != sizes[i].runs)
            fail_msg("maxvit_t at %lld: built %d", (long long)sizes[i].image, b.ok);
        const char *why = vision_image_refusal("maxvit_t", sizes[i].image);
        assert_true(sizes[i].runs ? why == NULL : why && strstr(why, "224 x 224") && strstr(why, "7 x 7"));
        arena_free(&b.a);
    }
    assert_non_null(vision_image_refusal("vit_b_16", 200));
    assert_null(vision_image_refusal("vit_b_16", 224));
    assert_null(vision_image_refusal("resnet50", 448));
}

/* Bytes of the tensors saved for the backward (each storage once, the image
 * included), per sample: the difference between batch 4 and batch 2 over 2,
 * so that the per-channel statistics cancel; no allocator rounding. */
static uint64_t saved_per_sample(const char *name, bool amp)
{
    uint64_t at[2];
    for (int i = 0; i < 2; i++) {
        Built b;
        build(&b, name, 2 + 2 * i, 224, amp, true, false);
        assert_true(b.ok);
        at[i] = 0;
        for (TId t = 1; t < b.tr.t.n; t++)
            if (b.tr.t.v[t].saved && !b.tr.t.v[t].base)
                at[i] += tr_numel(&b.tr, t) * dtype_size((DType)b.tr.t.v[t].dtype);
        arena_free(&b.a);
    }
    return (at[1] - at[0]) / 2;
}

/* maxvit_t in training, per sample, counted by hand from maxvit.py (fp32
 * elements; C channels, S x S positions, N = S^2, mid = 4C, heads h = C/32):
 *   stem: the image 3*224^2 = 150,528; conv1's output (saved by its
 *     BatchNorm), the BatchNorm's (by GELU), GELU's (by conv2): 3 x 64*112^2
 *     = 2,408,448;
 *   MBConv on an input of C_in at S_in: the input (pre-norm BatchNorm; the
 *     average pool too), the pre-norm output (conv_a) C_in S_in^2; conv_a,
 *     its BatchNorm and GELU outputs 3 mid S_in^2; conv_b, BatchNorm, GELU,
 *     the squeeze-excitation product (by conv_c) 4 mid S^2; the pooled
 *     vector (fc1), fc1's output (SiLU), SiLU's (fc2), the sigmoid's (the
 *     product) 2 mid + 2 C/4; a downsampling one adds the pooled input of
 *     proj C_in S^2;
 *   the partition layers' inputs are copied and not saved, nor is the last
 *     one's output (the classifier's 1x1 average pool saves nothing);
 *   a partition layer: its partition copy and first residual sum (the
 *     LayerNorms), both LayerNorm outputs, the q, k and v copies bmm saves,
 *     the merged heads (the merge linear): 8 NC; fc1's output (GELU) and GELU's (fc2) 8 NC; the
 *     softmax N h 49; LayerNorm statistics 4N;
 *   one stochastic-depth mask element per sample for the MBConv and two per
 *   partition layer in the 10 layers with p > 0: 50; the head 3 x 512 + 2.
 * Stage 0 (64 at 56): MBConv 14,651,936 + 6,021,664, partition layers 4 x
 *   3,531,136; stage 1 (128 at 28): 6,875,200 + 3,011,648 + 4 x 1,762,432;
 *   stage 2 (256 at 14): 3,439,232 + 4 x 1,507,456 + 10 x 880,432; stage 3
 *   (512 at 7): 1,722,880 + 756,992 + 4 x 440,020. With the stem, the
 *   masks and the head: 76,808,612 elements, 307,234,448 bytes.
 * Under fp16 autocast every one of these is 2 bytes, except the LayerNorms'
 * fp32 inputs (+2 x 2NC a layer), the fp32 softmax plus its fp16 copy that
 * bmm saves (+4 x 49 N h), the fp32 statistics (+2 x 4N), the head's
 * LayerNorm input and statistics (+2 x 514): 2 x 76,808,612 + 4 x 2,057,216
 * + 4 x 1,022,336 + 10 x 509,600 + 4 x 254,408 + 1,028 = 172,050,092. */
static void test_maxvit_saved(void **state)
{
    (void)state;
    assert_int_equal(saved_per_sample("maxvit_t", false), 307234448ull);
    assert_int_equal(saved_per_sample("maxvit_t", true), 172050092ull);
    /* the scores (B, G, heads, 49, 49) are fp16 under autocast, the gathered
     * bias table fp32: their sum is promoted, in each of the 22 partition layers */
    Built b;
    build(&b, "maxvit_t", 2, 224, true, true, false);
    int promoted = 0;
    for (uint32_t i = 0; i < b.tr.ops.n; i++) {
        const TOp *op = &b.tr.ops.v[i];
        if (strcmp(op->name, "add") == 0 && b.tr.t.v[op->out].nd == 5) {
            assert_int_equal(tr_dtype(&b.tr, op->in[0]), DT_F16);
            assert_int_equal(tr_dtype(&b.tr, op->out), DT_F32);
            promoted++;
        }
    }
    assert_int_equal(promoted, 22);
    arena_free(&b.a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_published_totals),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_linear_in_batch),
        cmocka_unit_test(test_modes),
        cmocka_unit_test(test_calibration),
        cmocka_unit_test(test_maxvit_sizes),
        cmocka_unit_test(test_maxvit_saved),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
