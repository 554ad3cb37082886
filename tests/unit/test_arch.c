/* The architecture snapshot's parameter counts against the published totals
 * (model cards), the name lookup and the GPU catalog. torchvision models are
 * test_vision.c's. */
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

static void test_lookup(void **state)
{
    (void)state;
    assert_non_null(arch_find("Llama-2-7b-hf"));          /* without the organisation */
    assert_non_null(arch_find("GPT2"));                   /* any case */
    /* the hub's renamed organisations */
    assert_ptr_equal(arch_find("openai-community/gpt2"), arch_find("gpt2"));
    assert_ptr_equal(arch_find("google-bert/bert-base-uncased"), arch_find("bert-base-uncased"));
    assert_null(arch_find("llama-9b"));
    assert_int_equal(arch_head_dim(arch_find("google/gemma-2b")), 256);
    assert_int_equal(arch_head_dim(arch_find("gpt2")), 64);
    /* the Gemma 2 rows are not taken for Gemma's */
    assert_int_equal(arch_find("gemma-2-2b")->family, FAM_GEMMA2);
    assert_int_equal(arch_find("gemma-2b")->family, FAM_LLAMA);
    assert_int_equal(arch_head_dim(arch_find("google/gemma-2-9b")), 256);
    assert_int_equal(arch_head_dim(arch_find("tiiuae/falcon-7b")), 64);
    /* Mixtral's experts; other families have none */
    assert_int_equal(arch_experts(arch_find("Mixtral-8x7B-v0.1")), 8);
    assert_int_equal(arch_top_k(arch_find("Mixtral-8x7B-v0.1")), 2);
    assert_int_equal(arch_experts(arch_find("mistralai/Mistral-7B-v0.1")), 0);
    assert_string_equal(arch_family_name(FAM_FALCON), "falcon");
    assert_string_equal(arch_family_name(FAM_PHI3), "phi3");
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

/* Published totals (model cards); each derivation from the configuration is
 * in the comment above its row where it is not the model card's figure. */
static const struct { const char *name; uint64_t total; } published[] = {
    {"gpt2", 124439808ull},
    {"gpt2-medium", 354823168ull},
    {"gpt2-large", 774030080ull},
    {"gpt2-xl", 1557611200ull},
    {"meta-llama/Llama-2-7b-hf", 6738415616ull},
    {"meta-llama/Llama-2-13b-hf", 13015864320ull},
    {"meta-llama/Llama-2-70b-hf", 68976648192ull},
    {"meta-llama/Meta-Llama-3-8B", 8030261248ull},
    {"mistralai/Mistral-7B-v0.1", 7241732096ull},
    {"TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T", 1100048384ull},
    {"Qwen/Qwen2.5-0.5B", 494032768ull},
    {"Qwen/Qwen2.5-1.5B", 1543714304ull},
    {"Qwen/Qwen2.5-7B", 7615616512ull},
    {"google/gemma-2b", 2506172416ull},
    {"microsoft/phi-2", 2779683840ull},
    {"EleutherAI/pythia-410m", 405334016ull},
    {"facebook/opt-1.3b", 1315758080ull},
    /* Llama-3.2-1B (d 2048, 16 layers, 32 heads, 8 kv heads, head_dim 64, ff
     * 8192, V 128256, tied): embed 262,668,288; a layer q 4,194,304 + k, v
     * 2 * 1,048,576 + o 4,194,304 + MLP 3 * 16,777,216 + 2 norms 4,096 =
     * 60,821,504, * 16 = 973,144,064; final norm 2,048. */
    {"meta-llama/Llama-3.2-1B", 1235814400ull},
    /* Llama-3.2-3B (d 3072, 28 layers, 24 heads, 8 kv heads, head_dim 128, ff
     * 8192, tied): embed 394,002,432; a layer 9,437,184 + 2 * 3,145,728 +
     * 9,437,184 + 3 * 25,165,824 + 6,144 = 100,669,440, * 28 =
     * 2,818,744,320; final norm 3,072. */
    {"meta-llama/Llama-3.2-3B", 3212749824ull},
    /* Mixtral-8x7B-v0.1 (d 4096, 32 layers, 32 heads, 8 kv heads, ff 14336,
     * 8 experts, V 32000, untied): embed and lm_head 2 * 131,072,000; a
     * layer: attention 16,777,216 + 2 * 4,194,304 + 16,777,216 =
     * 41,943,040, router 8 * 4096 = 32,768, experts 8 * 3 * 4096 * 14336 =
     * 1,409,286,144, 2 norms 8,192: 1,451,270,144, * 32 =
     * 46,440,644,608; final norm 4,096. */
    {"mistralai/Mixtral-8x7B-v0.1", 46702792704ull},
    /* gemma-2-2b (d 2304, 26 layers, 8 heads, 4 kv heads, head_dim 256, ff
     * 9216, V 256000, tied): embed 589,824,000; a layer q 4,718,592 + k, v
     * 2 * 2,359,296 + o 4,718,592 + MLP 3 * 21,233,664 + 4 norms 9,216 =
     * 77,865,984, * 26 = 2,024,515,584; final norm 2,304. */
    {"google/gemma-2-2b", 2614341888ull},
    /* gemma-2-9b (d 3584, 42 layers, 16 heads, 8 kv heads, head_dim 256, ff
     * 14336, tied): embed 917,504,000; a layer 14,680,064 + 2 * 7,340,032 +
     * 14,680,064 + 3 * 51,380,224 + 14,336 = 198,195,200, * 42 =
     * 8,324,198,400; final norm 3,584. */
    {"google/gemma-2-9b", 9241705984ull},
    /* Phi-3-mini-4k-instruct (d 3072, 32 layers, 32 heads, ff 8192, V 32064,
     * untied): embed and lm_head 2 * 98,500,608; a layer qkv_proj 3072 *
     * 9216 + o_proj 3072^2 + gate_up_proj 3072 * 16384 + down_proj 8192 *
     * 3072 + 2 norms = 113,252,352, * 32 = 3,624,075,264; final norm 3,072.
     * (The fused projections count exactly as Llama's separate ones.) */
    {"microsoft/Phi-3-mini-4k-instruct", 3821079552ull},
    /* falcon-7b (d 4544, 32 layers, 71 heads of 64, one kv head, ff 18176, V
     * 65024, no biases, tied): word_embeddings 295,469,056; a layer
     * input_layernorm 9,088 + query_key_value 4544 * (71 + 2) * 64 =
     * 21,229,568 + dense 20,647,936 + MLP 2 * 82,591,744 = 207,070,080, * 32
     * = 6,626,242,560; ln_f 9,088. An untied head would add 295,469,056. */
    {"tiiuae/falcon-7b", 6921720704ull},
    {"bert-base-uncased", 109482240ull},
    {"roberta-large", 355359744ull},
    {"t5-base", 222903552ull},
};

static void test_published_totals(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof published / sizeof published[0]; i++)
        expect_params(published[i].name, published[i].total);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_published_totals),
        cmocka_unit_test(test_lookup),
        cmocka_unit_test(test_catalog),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
