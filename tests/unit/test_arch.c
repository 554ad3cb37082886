/* The architecture snapshot's parameter counts against the published totals
 * (model cards, torchvision's documentation), and the GPU catalog. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "../../estimator/arch.h"
#include "../../estimator/gpu.h"

static void expect_params(const char *name, uint64_t published)
{
    const Arch *a = arch_find(name);
    if (!a)
        fail_msg("%s is not in the snapshot", name);
    assert_int_equal(arch_params(a), published);
}

static void test_decoder_lms(void **state)
{
    (void)state;
    expect_params("gpt2", 124439808ull);
    expect_params("gpt2-medium", 354823168ull);
    expect_params("gpt2-large", 774030080ull);
    expect_params("gpt2-xl", 1557611200ull);
    expect_params("meta-llama/Llama-2-7b-hf", 6738415616ull);
    expect_params("meta-llama/Llama-2-13b-hf", 13015864320ull);
    expect_params("meta-llama/Llama-2-70b-hf", 68976648192ull);
    expect_params("meta-llama/Meta-Llama-3-8B", 8030261248ull);
    expect_params("mistralai/Mistral-7B-v0.1", 7241732096ull);
    expect_params("TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T", 1100048384ull);
    expect_params("Qwen/Qwen2.5-0.5B", 494032768ull);
    expect_params("Qwen/Qwen2.5-1.5B", 1543714304ull);
    expect_params("Qwen/Qwen2.5-7B", 7615616512ull);
    expect_params("google/gemma-2b", 2506172416ull);
    expect_params("microsoft/phi-2", 2779683840ull);
    expect_params("EleutherAI/pythia-410m", 405334016ull);
    expect_params("facebook/opt-1.3b", 1315758080ull);
}

static void test_encoders(void **state)
{
    (void)state;
    expect_params("bert-base-uncased", 109482240ull);
    expect_params("roberta-large", 355359744ull);
    expect_params("t5-base", 222903552ull);
}

static void test_torchvision(void **state)
{
    (void)state;
    expect_params("resnet18", 11689512ull);
    expect_params("resnet34", 21797672ull);
    expect_params("resnet50", 25557032ull);
    expect_params("resnet101", 44549160ull);
    expect_params("resnet152", 60192808ull);
    expect_params("vit_b_16", 86567656ull);
    expect_params("vit_l_16", 304326632ull);
}

static void test_lookup(void **state)
{
    (void)state;
    assert_non_null(arch_find("Llama-2-7b-hf"));          /* without the organisation */
    assert_non_null(arch_find("GPT2"));                   /* any case */
    assert_null(arch_find("llama-9b"));
    assert_int_equal(arch_head_dim(arch_find("google/gemma-2b")), 256);
    assert_int_equal(arch_head_dim(arch_find("gpt2")), 64);
}

static void test_catalog(void **state)
{
    (void)state;
    size_t ng, ni;
    const Gpu *g = gpu_all(&ng);
    const Instance *in = instance_all(&ni);
    assert_true(ng >= 23);
    assert_true(ni >= 34);
    for (size_t i = 0; i < ni; i++)   /* every instance names a known GPU */
        assert_non_null(gpu_find(in[i].gpu_id));
    for (size_t i = 0; i < ng; i++)   /* usable is below marketed, but not far */
        assert_true(g[i].usable_bytes < (uint64_t)g[i].marketed_gb * 1100000000ull &&
                    g[i].usable_bytes > (uint64_t)g[i].marketed_gb * 900000000ull);
    const Gpu *t;
    uint32_t count;
    assert_true(gpu_target("p4de.24xlarge", &t, &count));
    assert_string_equal(t->id, "a100-80gb");
    assert_int_equal(count, 8);
    assert_true(gpu_target("H100", &t, &count));
    assert_int_equal(count, 1);
    assert_false(gpu_target("tpu-v5", &t, &count));
    /* the measured card: the H200 total PyTorch reported in shared/calibration */
    assert_int_equal(gpu_find("h200")->usable_bytes, 150109880320ull);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decoder_lms), cmocka_unit_test(test_encoders),
        cmocka_unit_test(test_torchvision), cmocka_unit_test(test_lookup),
        cmocka_unit_test(test_catalog),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
