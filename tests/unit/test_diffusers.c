/* diffusers' UNets recorded into a trace: parameter totals from the
 * configuration against the published checkpoints and a user's own
 * configuration, the recorded shapes, the activations saved for the backward
 * of a small UNet counted by hand, autocast's fp32 GroupNorm, gradient
 * checkpointing, and the refusals.
 *
 * The totals below are worked out from diffusers' modules (C = channels,
 * T = the time embedding's width, X = cross_attention_dim):
 *   ResnetBlock2D(cin, cout): GroupNorm 2 cin, conv 9 cin cout + cout,
 *     time Linear T cout + cout, GroupNorm 2 cout, conv 9 cout^2 + cout, and
 *     a 1x1 shortcut cin cout + cout when cin != cout;
 *   spatial Attention(C): GroupNorm 2C, q, k, v, out Linear with bias 4 (C^2 + C);
 *   BasicTransformerBlock(d, X): 3 LayerNorms 6d, self-attention 4 d^2 + d,
 *     cross-attention 2 d^2 + 2 X d + d, GEGLU d 8d + 8d + 4d d + d;
 *   Transformer2DModel(C, depth): GroupNorm 2C, proj_in and proj_out C^2 + C
 *     each (a 1x1 conv or a Linear: the same count), depth blocks;
 *   Downsample2D / Upsample2D: a 3x3 conv 9 C^2 + C;
 *   time embedding: Linear C0 T + T, Linear T^2 + T (T = 4 C0). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "../../base/arena.h"
#include "../../estimator/diffusers.h"
#include "../../estimator/trace.h"

typedef struct Built {
    Arena a;
    Trace tr;
    TId out;
    bool ok;
} Built;

static void build_with(Built *b, const UNetConfig *c, int64_t batch, int64_t side, bool amp, bool ckpt)
{
    arena_init(&b->a);
    tr_init(&b->tr, &b->a);
    b->tr.training = true;
    if (amp) {
        b->tr.autocast_on = true;
        b->tr.autocast = DT_F16;
    }
    UNetInputs x;
    memset(&x, 0, sizeof x);
    x.batch = batch;
    x.height = x.width = side;
    x.grad_ckpt = ckpt;
    b->out = 0;
    b->ok = diffusers_build(&b->tr, c, &x, &b->out);
}

static uint64_t params_of(const UNetConfig *c, int64_t side)
{
    Built b;
    build_with(&b, c, 1, side, false, false);
    assert_true(b.ok);
    assert_false(b.tr.overflow);
    assert_null(b.tr.error);
    ParamTotals pt;
    tr_param_totals(&b.tr, &pt);
    arena_free(&b.a);
    return pt.total;
}

static void expect_known(const char *name, uint64_t published)
{
    UNetConfig c;
    if (!diffusers_known(name, &c))
        fail_msg("%s is not known", name);
    uint64_t got = params_of(&c, c.sample_size);
    if (got != published)
        fail_msg("%s: %llu parameters, published %llu", name, (unsigned long long)got,
                 (unsigned long long)published);
}

/* Stable Diffusion 1.5 (and 1.4, the same UNet): C (320, 640, 1280, 1280),
 * 8 heads, X 768, T 1280.
 *   conv_in 4*320*9 + 320 = 11,840; time 320*1280 + 1280 + 1280^2 + 1280 = 2,050,560
 *   down: CrossAttn 320: 2 ResNets (320->320: 2,255,040) + 2 Transformer2D
 *     (2*320 + 2*(320^2 + 320) + 2,340,160 = 2,546,240) + downsample 921,920
 *     = 10,524,480; CrossAttn 640: 36,818,560; CrossAttn 1280: 139,992,320;
 *     Down 1280: 2 ResNets 62,277,120
 *   mid: 2 ResNets (1280) + Transformer2D(1280) = 97,038,080
 *   up: 162,241,280 + 258,330,880 + 71,413,120 + 18,810,560
 *   out: GroupNorm 640 + conv 320*4*9 + 4 = 12,164
 *   total 859,520,964 */
static void test_stable_diffusion_1(void **state)
{
    (void)state;
    expect_known("runwayml/stable-diffusion-v1-5", 859520964ULL);
    expect_known("CompVis/stable-diffusion-v1-4", 859520964ULL);
    expect_known("stable-diffusion-v1-5/stable-diffusion-v1-5", 859520964ULL);
}

/* Stable Diffusion 2.1: the same blocks with X = 1024 (each cross-attention's
 * to_k and to_v grow by 2 * 256 * d) and linear projections (the same count
 * as the 1x1 convs): 859,520,964 + 2 * 256 * (320 + 640 + 1280) * 2 (down) +
 * 2 * 256 * 1280 (mid) + 2 * 256 * 3 * (1280 + 640 + 320) (up)
 * = 859,520,964 + 2,293,760 + 655,360 + 3,440,640 = 865,910,724. */
static void test_stable_diffusion_2(void **state)
{
    (void)state;
    expect_known("stabilityai/stable-diffusion-2-1", 865910724ULL);
    expect_known("stabilityai/stable-diffusion-2-1-base", 865910724ULL);
}

/* SDXL base: C (320, 640, 1280), depth (1, 2, 10), X 2048, T 1280.
 *   conv_in 11,840; time 2,050,560; add_embedding (text_time):
 *     2816*1280 + 1280 + 1280^2 + 1280 = 5,245,440
 *   down: 5,432,000 + 60,105,600 + 757,404,160 (2 ResNets, 2 Transformer2D of
 *     10 blocks of 34,755,840 each)
 *   mid: 413,117,440; up: 1,206,568,960 + 106,343,680 + 11,171,840; out 12,164
 *   total 2,567,463,684 */
static void test_stable_diffusion_xl(void **state)
{
    (void)state;
    expect_known("stabilityai/stable-diffusion-xl-base-1.0", 2567463684ULL);
}

/* DDPM CIFAR-10 (UNet2DModel): C (128, 256, 256, 256), T 512, one-head
 * attentions (263,680 at 256 channels).
 *   conv_in 3*128*9 + 128 = 3,584; time 128*512 + 512 + 512^2 + 512 = 328,704
 *   down 870,272 + 3,480,320 + 3,215,104 + 2,625,024; mid 2,888,704
 *   up 6,692,608 + 6,692,608 + 7,155,712 + 1,789,952; out 256 + 128*3*9 + 3 = 3,715
 *   total 35,746,307 */
static void test_ddpm_cifar10(void **state)
{
    (void)state;
    expect_known("google/ddpm-cifar10-32", 35746307ULL);
}

/* A user's UNet2DModel (diffusers' train_unconditional.py): C (128, 128, 256,
 * 256, 512, 512), attention in the fifth down and the second up block,
 * attention_head_dim 8 (64 heads of 8 at 512 channels; None, one head of
 * 512, holds the same parameters), T 512. ResNets 128->128 361,344,
 * 128->256 1,050,368, 256->256 1,312,512, 256->512 3,935,744, 512->512
 * 4,984,320; attention at 512: 1,051,648; downsamplers 147,584 (128),
 * 590,080 (256), 2,359,808 (512).
 *   conv_in 3,584; time 328,704
 *   down: 870,272 + 870,272 + 2,952,960 + 3,215,104 + 13,383,168 + 9,968,640
 *   mid: 2 x 4,984,320 + 1,051,648 = 11,020,288
 *   up (3 ResNets each, on the concatenated skips): 25,968,128 + 27,811,840 +
 *     7,348,480 + 6,364,672 + 1,937,536 + 1,625,856
 *   out 3,715; total 113,673,219 */
static void test_user_config(void **state)
{
    (void)state;
    UNetConfig c;
    diffusers_defaults(&c, false);
    static const int64_t ch[6] = {128, 128, 256, 256, 512, 512};
    c.nblocks = 6;
    for (int i = 0; i < 6; i++) {
        c.channels[i] = ch[i];
        c.down[i] = i == 4 ? UB_ATTN : UB_PLAIN;
        c.up[i] = i == 1 ? UB_ATTN : UB_PLAIN;
    }
    c.sample_size = 64;
    assert_int_equal(params_of(&c, 64), 113673219ULL);
    c.head_dim[4] = c.head_dim[1] = c.mid_head_dim = 0;   /* attention_head_dim=None: one head */
    assert_int_equal(params_of(&c, 64), 113673219ULL);
    c.scale_shift = true;   /* "scale_shift": each ResNet's time Linear doubles */
    uint64_t resnets_time = 0;
    /* ResNets: down 2 per block, mid 2, up 3 per block; the time Linear's
     * extra (T + 1) * cout for each */
    static const int64_t up_ch[6] = {512, 512, 256, 256, 128, 128};
    for (int i = 0; i < 6; i++)
        resnets_time += 2 * 513 * (uint64_t)ch[i] + 3 * 513 * (uint64_t)up_ch[i];
    resnets_time += 2 * 513 * 512;
    assert_int_equal(params_of(&c, 64), 113673219ULL + resnets_time);
    c.mid_attn_groups = 0;   /* as UNet2DModel builds the mid attention under "scale_shift": no GroupNorm */
    assert_int_equal(params_of(&c, 64), 113673219ULL + resnets_time - 2 * 512);
}

/* The saved tensors' bytes, each storage once (PyTorch's 512-byte blocks). */
static uint64_t saved_bytes(const Trace *tr, DType only, bool any_dtype)
{
    uint64_t sum = 0;
    for (uint32_t i = 1; i < tr->t.n; i++)
        if (tr->t.v[i].saved && (any_dtype || tr->t.v[i].dtype == only))
            sum += tr_bytes(tr, i);
    return sum;
}

/* A small UNet2DModel: one block of 32 channels, layers_per_block 1, no mid
 * block, batch 2 of 3 x 8 x 8, fp32. A (2, 32, 8, 8) tensor is 16,384
 * bytes, a (2, 64, 8, 8) one 32,768, GroupNorm's (2, 32) mean and rstd 512
 * each (256 rounded up), the time embedding's (2, 128) 1,024.
 *   time: the sinusoids (2, 32) saved by linear_1 512, linear_1's output
 *     saved by SiLU 1,024, SiLU's by linear_2 1,024
 *   conv_in saves the sample (2, 3, 8, 8) 1,536
 *   down ResNet: its input, GroupNorm output, SiLU output, the sum with the
 *     time projection, GroupNorm output, SiLU output: 6 x 16,384; 4 x 512
 *     statistics; the embedding (saved by the time SiLU) and that SiLU's
 *     output (saved by the Linear) 2 x 1,024 = 102,400
 *   up, 2 ResNets on the concatenation (2, 64, 8, 8): cat, GroupNorm out,
 *     SiLU out 3 x 32,768 (the shortcut conv saves the cat as well), the sum,
 *     GroupNorm out, SiLU out 3 x 16,384, 4 x 512, the time SiLU 1,024
 *     = 150,528 each
 *   out: its input, GroupNorm out, SiLU out 3 x 16,384 + 2 x 512 = 50,176
 *   total 2,560 + 1,536 + 102,400 + 301,056 + 50,176 = 457,728
 * Parameters: conv_in 896 + time 20,736 + ResNet 22,752 + 2 x ResNet(64 ->
 * 32) 34,112 + out 931 = 113,539. */
static void small_unet(UNetConfig *c)
{
    diffusers_defaults(c, false);
    c->nblocks = 1;
    c->channels[0] = 32;
    c->down[0] = c->up[0] = UB_PLAIN;
    c->layers[0] = 1;
    c->mid = UM_NONE;
}

static void test_small_unet_activations(void **state)
{
    (void)state;
    UNetConfig c;
    small_unet(&c);
    Built b;
    build_with(&b, &c, 2, 8, false, false);
    assert_true(b.ok);
    assert_int_equal(tr_dim(&b.tr, b.out, 0), 2);
    assert_int_equal(tr_dim(&b.tr, b.out, 1), 3);
    assert_int_equal(tr_dim(&b.tr, b.out, 2), 8);
    assert_int_equal(tr_dim(&b.tr, b.out, 3), 8);
    ParamTotals pt;
    tr_param_totals(&b.tr, &pt);
    assert_int_equal(pt.total, 113539);
    assert_int_equal(saved_bytes(&b.tr, DT_F32, true), 457728);
    arena_free(&b.a);
}

/* Under fp16 autocast GroupNorm runs in fp32 (its input cast up), so the
 * SiLU after it saves an fp32 tensor and the next conv a 16-bit copy of the
 * SiLU's output. Saved (2, 32, 8, 8) tensors:
 *   down ResNet: the fp32 copies of its input and of the sum with the time
 *     projection (GroupNorm saves them), the two GroupNorm outputs (the
 *     SiLUs save them): 4 fp32; the two convs' fp16 copies: 2 fp16
 *   each up ResNet: the sum's copy and GroupNorm output, 2 fp32, conv2's copy
 *     1 fp16 (the first GroupNorm and conv work on the 64-channel cat)
 *   out: GroupNorm's input copy and output 2 fp32, conv_out's copy 1 fp16
 * 10 fp32 and 5 fp16; the output is fp16. */
static void test_autocast_group_norm(void **state)
{
    (void)state;
    UNetConfig c;
    small_unet(&c);
    Built b;
    build_with(&b, &c, 2, 8, true, false);
    assert_true(b.ok);
    assert_int_equal(tr_dtype(&b.tr, b.out), DT_F16);
    uint32_t fp32_maps = 0, fp16_maps = 0;
    for (uint32_t i = 1; i < b.tr.t.n; i++) {
        const TTensor *t = &b.tr.t.v[i];
        if (!t->saved || t->nd != 4 || t->dim[1] != 32)
            continue;
        fp32_maps += t->dtype == DT_F32;
        fp16_maps += t->dtype == DT_F16;
    }
    assert_int_equal(fp32_maps, 10);
    assert_int_equal(fp16_maps, 5);
    arena_free(&b.a);
}

/* Checkpointing each ResNet and transformer block keeps less in the graph;
 * the parameters do not change. */
static void test_checkpointing(void **state)
{
    (void)state;
    UNetConfig c;
    assert_true(diffusers_known("runwayml/stable-diffusion-v1-5", &c));
    Built plain, ckpt;
    build_with(&plain, &c, 1, 32, false, false);
    build_with(&ckpt, &c, 1, 32, false, true);
    assert_true(plain.ok && ckpt.ok);
    PassMemory mp, mc;
    tr_simulate(&plain.tr, true, false, &mp);
    tr_simulate(&ckpt.tr, true, false, &mc);
    assert_true(mc.graph * 3 < mp.graph);
    ParamTotals a, b;
    tr_param_totals(&plain.tr, &a);
    tr_param_totals(&ckpt.tr, &b);
    assert_int_equal(a.total, b.total);
    /* FSDP's units: 22 ResNets (8 down, 2 mid, 12 up) + 16 transformer blocks */
    assert_int_equal(plain.tr.layers, 38);
    arena_free(&plain.a);
    arena_free(&ckpt.a);
}

static void test_refusals(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    UNetConfig c;
    assert_true(diffusers_known("runwayml/stable-diffusion-v1-5", &c));
    assert_null(diffusers_refusal(&a, &c, 64, 64));
    /* three downsamplers: sides must be multiples of 8 */
    const char *why = diffusers_refusal(&a, &c, 60, 64);
    assert_non_null(why);
    assert_non_null(strstr(why, "multiples of 8"));
    c.channels[1] = 650;   /* not a multiple of 32 groups */
    why = diffusers_refusal(&a, &c, 64, 64);
    assert_non_null(why);
    assert_non_null(strstr(why, "norm_num_groups"));
    assert_true(diffusers_known("runwayml/stable-diffusion-v1-5", &c));
    c.heads[2] = 7;   /* 1280 does not split into 7 heads */
    assert_non_null(strstr(diffusers_refusal(&a, &c, 0, 0), "7 attention heads"));
    assert_true(diffusers_known("runwayml/stable-diffusion-v1-5", &c));
    c.cross_dim[3] = 1024;   /* the mid block's cross-attention disagrees with the others */
    assert_non_null(strstr(diffusers_refusal(&a, &c, 0, 0), "cross_attention_dim differs"));
    assert_false(diffusers_known("runwayml/stable-diffusion-v2", &c));
    arena_free(&a);
    Built b;
    assert_true(diffusers_known("google/ddpm-cifar10-32", &c));
    build_with(&b, &c, 2, 30, false, false);
    assert_false(b.ok);
    arena_free(&b.a);
}

static void test_names(void **state)
{
    (void)state;
    size_t n;
    const char *const *names = diffusers_names(&n);
    assert_true(n >= 6);
    for (size_t i = 0; i < n; i++) {
        UNetConfig c;
        assert_true(diffusers_known(names[i], &c));
        assert_true(c.sample_size > 0);
        assert_int_equal(diffusers_in_subfolder(names[i]), c.conditional);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stable_diffusion_1),
        cmocka_unit_test(test_stable_diffusion_2),
        cmocka_unit_test(test_stable_diffusion_xl),
        cmocka_unit_test(test_ddpm_cifar10),
        cmocka_unit_test(test_user_config),
        cmocka_unit_test(test_small_unet_activations),
        cmocka_unit_test(test_autocast_group_norm),
        cmocka_unit_test(test_checkpointing),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
