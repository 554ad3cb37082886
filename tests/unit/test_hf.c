/* The Hugging Face forwards (estimator/hf.c): parameters against the
 * snapshot's exact totals, LoRA's adapters, and what the recorded forward
 * saves (linear in the batch, SDPA below eager, the KV cache, gradient
 * checkpointing), with a few anchors measured on an H200
 * (shared/calibration: torch 2.11, transformers 5.17). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "../../base/arena.h"
#include "../../estimator/arch.h"
#include "../../estimator/hf.h"
#include "../../estimator/trace.h"

typedef struct Run {
    bool ok;
    ParamTotals params;
    PassMemory mem;
} Run;

typedef struct Setup {
    DType weights;
    bool autocast, training, no_grad, keep_logits;
} Setup;

static const Setup BF16_TRAIN = {DT_BF16, false, true, false, true};

static Run run(const Arch *a, const HfOptions *o, Setup st)
{
    Run r;
    memset(&r, 0, sizeof r);
    Arena ar;
    arena_init(&ar);
    Trace tr;
    tr_init(&tr, &ar);
    tr.weight_dtype = st.weights;
    tr.autocast_on = st.autocast;
    tr.autocast = st.autocast ? DT_BF16 : DT_F32;
    tr.training = st.training;
    tr.no_grad = st.no_grad;
    TId logits = 0, loss = 0;
    r.ok = hf_build(&tr, a, o, &logits, &loss);
    if (r.ok) {
        if (st.keep_logits)
            tr_keep(&tr, logits);
        tr_keep(&tr, loss);
        tr_param_totals(&tr, &r.params);
        tr_simulate(&tr, !st.no_grad, false, &r.mem);
    }
    arena_free(&ar);
    return r;
}

static HfOptions opts(int64_t b, int64_t s)
{
    HfOptions o;
    memset(&o, 0, sizeof o);
    o.batch = b;
    o.seq = s;
    o.labels = true;
    o.use_cache = true;
    return o;
}

static const Arch *find(const char *name)
{
    const Arch *a = arch_find(name);
    if (!a)
        fail_msg("%s is not in the snapshot", name);
    return a;
}

static bool is_hf(const Arch *a) { return a->family != FAM_RESNET && a->family != FAM_VIT; }

/* Relative distance, for the measured anchors. */
static double rel(double got, double want) { return (got - want) / want; }

static const double GiB = 1073741824.0;

/* ---- parameters ---------------------------------------------------------------------------- */

static void test_params_equal_snapshot(void **state)
{
    (void)state;
    size_t n;
    const Arch *all = arch_all(&n);
    HfOptions o = opts(1, 16);
    for (size_t i = 0; i < n; i++) {
        const Arch *a = &all[i];
        Run r = run(a, &o, BF16_TRAIN);
        if (!is_hf(a)) {
            assert_false(r.ok);   /* torchvision-shaped entries: vision.c */
            continue;
        }
        if (!r.ok)
            fail_msg("%s: hf_build failed", a->name);
        if (r.params.total != arch_params(a))
            fail_msg("%s: %llu parameters, the snapshot says %llu", a->name,
                     (unsigned long long)r.params.total, (unsigned long long)arch_params(a));
        assert_int_equal(r.params.trainable, r.params.total);
        /* bf16 weights: two bytes each (up to the allocator's rounding per tensor) */
        assert_true(r.params.bytes >= 2 * r.params.total);
        assert_true(r.params.bytes < 2 * r.params.total + 4096ull * 512);
    }
}

static void test_params_any_options(void **state)
{
    (void)state;
    /* eager, checkpointing, evaluation, autocast: the same parameters */
    const char *names[] = {"gpt2", "EleutherAI/pythia-160m", "facebook/opt-125m",
                           "Qwen/Qwen2.5-0.5B", "google/gemma-2b", "microsoft/phi-2",
                           "bert-base-uncased", "t5-small"};
    Setup amp = {DT_F32, true, true, false, true}, eval = {DT_BF16, false, false, true, true};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const Arch *a = find(names[i]);
        HfOptions o = opts(2, 32);
        o.eager_attention = true;
        o.grad_ckpt = true;
        Run r1 = run(a, &o, amp), r2 = run(a, &o, eval);
        assert_true(r1.ok && r2.ok);
        assert_int_equal(r1.params.total, arch_params(a));
        assert_int_equal(r2.params.total, arch_params(a));
    }
}

/* ---- LoRA ------------------------------------------------------------------------------------ */

static void expect_lora(const char *name, uint32_t targets, uint32_t r, uint64_t per_layer)
{
    const Arch *a = find(name);
    HfOptions o = opts(2, 64);
    o.lora_r = r;
    o.lora_targets = targets;
    o.lora_dropout = 0.05;
    Run run_lora = run(a, &o, BF16_TRAIN);
    assert_true(run_lora.ok);
    uint64_t adapters = (uint64_t)a->layers * per_layer;
    assert_int_equal(run_lora.params.total, arch_params(a) + adapters);
    assert_int_equal(run_lora.params.trainable, adapters);   /* the base is frozen */
    /* adapters are fp32, the frozen base keeps the load dtype */
    assert_true(run_lora.params.trainable_bytes >= 4 * adapters);
    assert_true(run_lora.params.frozen_bytes < 2 * arch_params(a) + 4096ull * 512);
}

static void test_lora_adapters(void **state)
{
    (void)state;
    /* r * (in + out) per targeted linear */
    expect_lora("meta-llama/Llama-2-7b-hf", LORA_Q | LORA_V, 16, 16ull * (2 * (4096 + 4096)));
    /* grouped kv heads: k/v project to kv_heads * head_dim = 256 */
    uint64_t d = 2048, q = 2048, kv = 256, ff = 5632;
    expect_lora("TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T",
                LORA_Q | LORA_K | LORA_V | LORA_O | LORA_GATE | LORA_UP | LORA_DOWN, 8,
                8 * ((d + q) + 2 * (d + kv) + (q + d) + 2 * (d + ff) + (ff + d)));
    /* GPT-2: fused c_attn (d -> 3d); c_proj is both the attention's and the MLP's */
    expect_lora("gpt2-medium", LORA_C_ATTN, 8, 8ull * (1024 + 3072));
    expect_lora("gpt2", LORA_C_PROJ | LORA_C_FC, 4, 4ull * ((768 + 768) + (3072 + 768) + (768 + 3072)));
    /* Qwen2's biases stay in the frozen base; Gemma's head_dim 256 with one kv head */
    expect_lora("Qwen/Qwen2.5-0.5B", LORA_Q | LORA_V, 8, 8ull * ((896 + 896) + (896 + 128)));
    expect_lora("google/gemma-2b", LORA_Q | LORA_K | LORA_V | LORA_O, 4,
                4ull * ((2048 + 2048) + 2 * (2048 + 256) + (2048 + 2048)));
    /* GPT-NeoX's fused query_key_value is the c_attn kind */
    expect_lora("EleutherAI/pythia-410m", LORA_C_ATTN | LORA_O, 8,
                8ull * ((1024 + 3072) + (1024 + 1024)));
    /* no target this family has: nothing added */
    expect_lora("gpt2", LORA_Q | LORA_V, 8, 0);
}

/* ---- activations ------------------------------------------------------------------------------ */

static void test_saved_linear_in_batch(void **state)
{
    (void)state;
    const char *names[] = {"gpt2", "EleutherAI/pythia-410m", "facebook/opt-125m",
                           "TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T",
                           "Qwen/Qwen2.5-0.5B", "google/gemma-2b", "microsoft/phi-2",
                           "bert-base-uncased", "t5-small"};
    Setup setups[] = {BF16_TRAIN, {DT_F32, true, true, false, true}, {DT_F32, false, true, false, false}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const Arch *a = find(names[i]);
        for (size_t k = 0; k < sizeof setups / sizeof setups[0]; k++) {
            for (int gc = 0; gc < 2; gc++) {
                uint64_t saved[3];
                for (int j = 0; j < 3; j++) {
                    HfOptions o = opts(1 << j, 256);
                    o.grad_ckpt = gc;
                    Run r = run(a, &o, setups[k]);
                    assert_true(r.ok);
                    saved[j] = r.mem.saved;
                }
                /* affine in the batch (position ids, rotary tables and T5's
                 * position bias do not grow with it): equal steps, up to the
                 * allocator's 512-byte rounding */
                double step1 = (double)(saved[1] - saved[0]), step2 = (double)(saved[2] - saved[1]);
                assert_true(saved[0] > 0 && step1 > 0);
                if (step2 < 1.999 * step1 || step2 > 2.001 * step1)
                    fail_msg("%s setup %zu gc %d: saved %llu %llu %llu for batch 1, 2, 4", a->name,
                             k, gc, (unsigned long long)saved[0], (unsigned long long)saved[1],
                             (unsigned long long)saved[2]);
            }
        }
    }
}

static void test_sdpa_below_eager(void **state)
{
    (void)state;
    size_t n;
    const Arch *all = arch_all(&n);
    for (size_t i = 0; i < n; i++) {
        const Arch *a = &all[i];
        if (!is_hf(a) || a->family == FAM_T5)   /* T5 has only eager attention */
            continue;
        HfOptions o = opts(2, 512);
        Run sdpa = run(a, &o, BF16_TRAIN);
        o.eager_attention = true;
        Run eager = run(a, &o, BF16_TRAIN);
        assert_true(sdpa.ok && eager.ok);
        /* eager keeps (b, h, s, s) probabilities: at least 6 bytes each in bf16
         * (fp32 softmax output + bf16 copy) or 2 (softmax in the input dtype) */
        uint64_t scores = 2ull * a->heads * 512 * 512 * a->layers;
        if (eager.mem.saved < sdpa.mem.saved + scores)
            fail_msg("%s: eager saves %llu, sdpa %llu", a->name,
                     (unsigned long long)eager.mem.saved, (unsigned long long)sdpa.mem.saved);
    }
    /* T5 records the same with either setting */
    HfOptions o = opts(2, 128);
    Run t1 = run(find("t5-small"), &o, BF16_TRAIN);
    o.eager_attention = true;
    Run t2 = run(find("t5-small"), &o, BF16_TRAIN);
    assert_int_equal(t1.mem.saved, t2.mem.saved);
}

static void test_checkpointing_saves_less(void **state)
{
    (void)state;
    const char *names[] = {"gpt2-xl", "meta-llama/Llama-2-7b-hf", "EleutherAI/pythia-410m",
                           "facebook/opt-1.3b", "microsoft/phi-2", "bert-large-uncased", "t5-base"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const Arch *a = find(names[i]);
        HfOptions o = opts(2, 1024);
        Run full = run(a, &o, BF16_TRAIN);
        o.grad_ckpt = true;
        Run ckpt = run(a, &o, BF16_TRAIN);
        assert_true(full.ok && ckpt.ok);
        /* at least each layer's input survives; far less than everything */
        uint64_t inputs = (uint64_t)a->layers * 2 * 1024 * a->hidden * 2;
        assert_true(ckpt.mem.saved > inputs);
        assert_true(ckpt.mem.saved * 3 < full.mem.saved);
    }
}

static void test_kv_cache(void **state)
{
    (void)state;
    const Arch *a = find("meta-llama/Llama-2-7b-hf");
    Setup eval = {DT_BF16, false, false, true, false};
    HfOptions o = opts(8, 2048);
    o.labels = false;
    Run with = run(a, &o, eval);
    o.use_cache = false;
    Run without = run(a, &o, eval);
    assert_true(with.ok && without.ok);
    /* k and v of every layer, (b, kv_heads, s, head_dim) bf16: 8 GiB here */
    uint64_t cache = 32ull * 2 * 8 * 32 * 2048 * 128 * 2;
    uint64_t ids = 8 * 2048 * 8;   /* the input ids the script holds */
    assert_int_equal(with.mem.kept, cache + ids);
    assert_int_equal(without.mem.kept, ids);
    assert_true(with.mem.fwd_peak >= without.mem.fwd_peak + cache - cache / 100);
    /* grouped kv heads: the cache holds kv_heads only */
    Run q = run(find("Qwen/Qwen2.5-1.5B"), &(HfOptions){32, 1024, false, false, false, true, 0, 0, 0},
                eval);
    assert_int_equal(q.mem.kept, 28ull * 2 * 32 * 2 * 1024 * 128 * 2 + 32 * 1024 * 8);
    /* gradient checkpointing in training turns the cache off */
    HfOptions g = opts(2, 512);
    g.grad_ckpt = true;
    Run gc = run(a, &g, (Setup){DT_BF16, false, true, false, false});
    assert_int_equal(gc.mem.kept, 2 * 512 * 8 + 512);   /* ids and the scalar loss */
}

/* ---- measured anchors (shared/calibration, H200) ------------------------------------------ */

/* saved = alloc_before_backward0 - alloc_after_load of scripts that hold `out`
 * (logits kept); within 1%. */
static void expect_saved(const char *name, int64_t b, int64_t s, Setup st, bool gc, bool eager,
                         double gib)
{
    HfOptions o = opts(b, s);
    o.grad_ckpt = gc;
    o.eager_attention = eager;
    Run r = run(find(name), &o, st);
    assert_true(r.ok);
    double got = r.mem.saved / GiB;
    if (rel(got, gib) > 0.01 || rel(got, gib) < -0.01)
        fail_msg("%s b%lld s%lld: %.3f GiB saved, measured %.3f", name, (long long)b, (long long)s,
                 got, gib);
}

static void test_calibration_anchors(void **state)
{
    (void)state;
    Setup fp32 = {DT_F32, false, true, false, true}, amp = {DT_F32, true, true, false, true};
    expect_saved("TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T", 8, 2048, BF16_TRAIN, false,
                 false, 32.445);
    expect_saved("TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T", 16, 2048, amp, true, false,
                 12.108);
    expect_saved("gpt2", 8, 1024, fp32, false, false, 11.704);
    expect_saved("gpt2", 8, 1024, fp32, false, true, 21.262);
    expect_saved("gpt2-medium", 8, 1024, amp, false, false, 19.904);
    expect_saved("EleutherAI/pythia-410m", 8, 2048, BF16_TRAIN, false, false, 16.698);
    expect_saved("facebook/opt-1.3b", 4, 2048, BF16_TRAIN, false, false, 12.142);
    expect_saved("Qwen/Qwen2.5-0.5B", 8, 2048, BF16_TRAIN, false, false, 35.044);
    expect_saved("mistralai/Mistral-7B-v0.1", 2, 2048, BF16_TRAIN, true, false, 1.858);

    /* evaluation under no_grad: the forward's peak (KV cache + logits, their
     * fp32 copy and log_softmax); the script's own peak adds the previous
     * iteration's output (logits + cache), still held during this forward */
    Setup eval = {DT_BF16, false, false, true, true};
    HfOptions o = opts(8, 2048);
    Run r = run(find("meta-llama/Llama-2-7b-hf"), &o, eval);
    assert_true(rel((r.mem.fwd_peak + r.mem.kept) / GiB, 21.914) < 0.01 &&
                rel((r.mem.fwd_peak + r.mem.kept) / GiB, 21.914) > -0.01);
    o = opts(32, 1024);
    r = run(find("Qwen/Qwen2.5-1.5B"), &o, eval);
    assert_true(rel((r.mem.fwd_peak + r.mem.kept) / GiB, 57.415) < 0.01 &&
                rel((r.mem.fwd_peak + r.mem.kept) / GiB, 57.415) > -0.01);
}

static void test_rejects(void **state)
{
    (void)state;
    HfOptions o = opts(0, 16);
    Run r = run(find("gpt2"), &o, BF16_TRAIN);
    assert_false(r.ok);
    o = opts(1, 16);
    assert_false(run(find("resnet50"), &o, BF16_TRAIN).ok);
    assert_false(run(find("vit_b_16"), &o, BF16_TRAIN).ok);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_params_equal_snapshot), cmocka_unit_test(test_params_any_options),
        cmocka_unit_test(test_lora_adapters),         cmocka_unit_test(test_saved_linear_in_batch),
        cmocka_unit_test(test_sdpa_below_eager),      cmocka_unit_test(test_checkpointing_saves_less),
        cmocka_unit_test(test_kv_cache),              cmocka_unit_test(test_calibration_anchors),
        cmocka_unit_test(test_rejects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
