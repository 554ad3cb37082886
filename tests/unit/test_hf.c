/* The Hugging Face forwards (estimator/hf.c): parameters against the
 * snapshot's exact totals, LoRA's adapters, and what the recorded forward
 * saves (linear in the batch, SDPA below eager, the KV cache, gradient
 * checkpointing), with a few anchors measured on an H200
 * (shared/calibration: torch 2.11, transformers 5.17); the head kinds
 * (HfOptions.head): each class's exact parameter total, its outputs, its
 * loss and what it keeps. */
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

/* opts for any family: Whisper takes 30 s of mel frames (3000) and runs its
 * decoder on the labels' length, here s */
static HfOptions opts_for(const Arch *a, int64_t b, int64_t s)
{
    HfOptions o = opts(b, s);
    if (a->family == FAM_WHISPER) {
        o.seq = 3000;
        o.dec_seq = s < 448 ? s : 448;   /* max_target_positions */
    }
    return o;
}

static const Arch *find(const char *name)
{
    const Arch *a = arch_find(name);
    if (!a)
        fail_msg("%s is not in the snapshot", name);
    return a;
}


/* Relative distance, for the measured anchors. */
static double rel(double got, double want) { return (got - want) / want; }

static const double GiB = 1073741824.0;

/* ---- parameters ---------------------------------------------------------------------------- */

static void test_params_equal_snapshot(void **state)
{
    (void)state;
    size_t n;
    const Arch *all = arch_all(&n);
    for (size_t i = 0; i < n; i++) {
        const Arch *a = &all[i];
        HfOptions o = opts_for(a, 1, 16);
        Run r = run(a, &o, BF16_TRAIN);
        if (!r.ok)
            fail_msg("%s: hf_build failed", a->name);
        if (r.params.total != arch_params(a))
            fail_msg("%s: %llu parameters, the snapshot says %llu", a->name,
                     (unsigned long long)r.params.total, (unsigned long long)arch_params(a));
        /* Whisper's encoder positions are frozen (requires_grad_(False)) */
        uint64_t frozen = a->family == FAM_WHISPER ? 1500ull * a->hidden : 0;
        assert_int_equal(r.params.trainable, r.params.total - frozen);
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
                           "bert-base-uncased", "t5-small", "mistralai/Mixtral-8x7B-v0.1",
                           "google/gemma-2-2b", "microsoft/Phi-3-mini-4k-instruct",
                           "tiiuae/falcon-7b", "meta-llama/Llama-3.2-1B"};
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
    /* Mixtral: the attention's projections only; the experts (3-D
     * parameters) and the router are out of target_modules' reach */
    expect_lora("mistralai/Mixtral-8x7B-v0.1",
                LORA_Q | LORA_K | LORA_V | LORA_O | LORA_GATE | LORA_UP | LORA_DOWN, 8,
                8ull * ((4096 + 4096) + 2 * (4096 + 1024) + (4096 + 4096)));
    /* Gemma 2: head_dim 256, 8 heads, 4 kv heads */
    expect_lora("google/gemma-2-2b", LORA_Q | LORA_V, 8, 8ull * ((2304 + 2048) + (2304 + 1024)));
    /* Phi-3's fused qkv_proj (3072 -> 9216) is the c_attn kind, gate_up_proj
     * (3072 -> 16384) the up kind; Falcon's query_key_value (4544 -> 4672)
     * c_attn, dense o, as GPT-NeoX */
    expect_lora("microsoft/Phi-3-mini-4k-instruct", LORA_C_ATTN | LORA_UP | LORA_DOWN, 8,
                8ull * ((3072 + 9216) + (3072 + 16384) + (8192 + 3072)));
    expect_lora("tiiuae/falcon-7b", LORA_C_ATTN | LORA_O, 8, 8ull * ((4544 + 4672) + (4544 + 4544)));
    /* the q/v default of a script that names no targets reaches nothing there */
    expect_lora("microsoft/Phi-3-mini-4k-instruct", LORA_Q | LORA_V, 8, 0);
}

/* ---- activations ------------------------------------------------------------------------------ */

static void test_saved_linear_in_batch(void **state)
{
    (void)state;
    const char *names[] = {"gpt2", "EleutherAI/pythia-410m", "facebook/opt-125m",
                           "TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T",
                           "Qwen/Qwen2.5-0.5B", "google/gemma-2b", "microsoft/phi-2",
                           "bert-base-uncased", "t5-small", "mistralai/Mixtral-8x7B-v0.1",
                           "google/gemma-2-2b", "microsoft/Phi-3-mini-4k-instruct",
                           "tiiuae/falcon-7b"};
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
        /* T5 and BLOOM have only eager attention; Falcon's SDPA is the math
         * kernel, which saves more than its eager path (test_falcon_mqa) */
        if (a->family == FAM_T5 || a->family == FAM_FALCON || a->family == FAM_BLOOM)
            continue;
        HfOptions o = opts_for(a, 2, 512);
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
                           "facebook/opt-1.3b", "microsoft/phi-2", "bert-large-uncased", "t5-base",
                           "mistralai/Mixtral-8x7B-v0.1", "google/gemma-2-9b",
                           "microsoft/Phi-3-mini-4k-instruct", "tiiuae/falcon-7b"};
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
    Run q = run(find("Qwen/Qwen2.5-1.5B"), &(HfOptions){.batch = 32, .seq = 1024, .use_cache = true},
                eval);
    assert_int_equal(q.mem.kept, 28ull * 2 * 32 * 2 * 1024 * 128 * 2 + 32 * 1024 * 8);
    /* gradient checkpointing in training turns the cache off */
    HfOptions g = opts(2, 512);
    g.grad_ckpt = true;
    Run gc = run(a, &g, (Setup){DT_BF16, false, true, false, false});
    assert_int_equal(gc.mem.kept, 2 * 512 * 8 + 512);   /* ids and the scalar loss */
}

/* ---- head kinds ---------------------------------------------------------------------------- */

static Run run_head(const char *name, HfHead head, int64_t num_labels)
{
    HfOptions o = opts(2, 16);
    o.head = head;
    o.num_labels = num_labels;
    Run r = run(find(name), &o, BF16_TRAIN);
    if (!r.ok)
        fail_msg("%s head %d: hf_build failed", name, (int)head);
    return r;
}

static void expect_params(const char *name, HfHead head, int64_t num_labels, uint64_t want)
{
    Run r = run_head(name, head, num_labels);
    if (r.params.total != want)
        fail_msg("%s head %d (%lld labels): %llu parameters, want %llu", name, (int)head,
                 (long long)num_labels, (unsigned long long)r.params.total,
                 (unsigned long long)want);
    assert_int_equal(r.params.trainable, r.params.total);
    /* hf_head_params is the closed form of the same difference */
    assert_int_equal((int64_t)want - (int64_t)arch_params(find(name)),
                     hf_head_params(find(name), head, num_labels));
}

/* Each class's total as transformers 5 builds it (model.num_parameters(),
 * tied tensors once), derived module by module; the figures widely published
 * for these checkpoints agree where there is one (BertModel 109,482,240,
 * BertForSequenceClassification 109,483,778, BertForMaskedLM 109,514,298,
 * RobertaForSequenceClassification roberta-large 355,361,794, roberta-base
 * RobertaModel 124,645,632 / ForMaskedLM 124,697,433, t5-base 222,903,552,
 * T5EncoderModel t5-base 109,628,544, LlamaModel Llama-2-7b 6,607,343,616). */
static void test_head_params_exact(void **state)
{
    (void)state;
    /* bert-base-uncased (d 768, 12 layers, ff 3072, V 30522, 512 positions, 2
     * token types). Embeddings (30522 + 512 + 2) * 768 + LayerNorm 1536 =
     * 23,837,184; a layer: q/k/v/o 4 * (768^2 + 768) = 2,362,368, two
     * LayerNorms 3072, intermediate 768 * 3072 + 3072 = 2,362,368, output
     * 3072 * 768 + 768 = 2,360,064: 7,087,872, * 12 = 85,054,464; pooler
     * 768^2 + 768 = 590,592. BertModel = 109,482,240. */
    expect_params("bert-base-uncased", HF_HEAD_BASE, 0, 109482240ull);
    expect_params("bert-base-uncased", HF_HEAD_DEFAULT, 0, 109482240ull);
    /* BertForSequenceClassification: BertModel (pooler kept) + classifier
     * 768 * 2 + 2 = 1,538; num_labels 0 means the config default, 2 */
    expect_params("bert-base-uncased", HF_HEAD_SEQ_CLS, 2, 109483778ull);
    expect_params("bert-base-uncased", HF_HEAD_SEQ_CLS, 0, 109483778ull);
    /* regression (num_labels 1): 768 + 1 */
    expect_params("bert-base-uncased", HF_HEAD_SEQ_CLS, 1, 109483009ull);
    /* BertForMaskedLM: no pooler (-590,592); transform dense 590,592 +
     * LayerNorm 1,536; decoder weight tied to the word embeddings, decoder
     * bias tied to cls.predictions.bias: 30,522. 108,891,648 + 622,650. */
    expect_params("bert-base-uncased", HF_HEAD_MASKED_LM, 0, 109514298ull);
    /* BertLMHeadModel: the same modules */
    expect_params("bert-base-uncased", HF_HEAD_CAUSAL_LM, 0, 109514298ull);
    /* BertForTokenClassification (CoNLL's 9 tags): no pooler, 768 * 9 + 9 */
    expect_params("bert-base-uncased", HF_HEAD_TOKEN_CLS, 9, 108898569ull);
    /* BertForQuestionAnswering: no pooler, qa_outputs 768 * 2 + 2 */
    expect_params("bert-base-uncased", HF_HEAD_QA, 0, 108893186ull);

    /* roberta-large (d 1024, 24 layers, ff 4096, V 50265, 514 positions, 1
     * token type). Embeddings 50780 * 1024 + 2048 = 52,000,768; a layer
     * 4 * 1,049,600 + 4096 + 4,198,400 + 4,195,328 = 12,596,224, * 24 =
     * 302,309,376; pooler 1,049,600. RobertaModel = 355,359,744. */
    expect_params("roberta-large", HF_HEAD_BASE, 0, 355359744ull);
    /* RobertaForSequenceClassification: no pooler; RobertaClassificationHead
     * dense 1,049,600 + out_proj 1024 * 2 + 2: 355,361,794 (equal to BERT's
     * formula, model + d*n + n, as the head's dense replaces the pooler) */
    expect_params("roberta-large", HF_HEAD_SEQ_CLS, 2, 355361794ull);
    /* RobertaForMaskedLM: no pooler; RobertaLMHead dense + layer_norm +
     * tied decoder + bias 50,265: 354,310,144 + 1,049,600 + 2,048 + 50,265 */
    expect_params("roberta-large", HF_HEAD_MASKED_LM, 0, 355412057ull);
    /* roberta-base: 39,000,576 + 85,054,464 + 590,592 */
    expect_params("roberta-base", HF_HEAD_BASE, 0, 124645632ull);
    expect_params("roberta-base", HF_HEAD_SEQ_CLS, 2, 124647170ull);
    expect_params("roberta-base", HF_HEAD_MASKED_LM, 0, 124697433ull);

    /* t5-base (d 768, d_kv 64, 12 heads, ff 3072, 12 + 12 layers, V 32128).
     * shared 24,674,304; encoder 12 * (4 * 768^2 + 2 * 768 * 3072 + 2 * 768)
     * + 32 * 12 + 768 = 84,954,240; decoder 12 * (8 * 768^2 + 2 * 768 * 3072
     * + 3 * 768) + 384 + 768 = 113,275,008. T5ForConditionalGeneration =
     * 222,903,552: lm_head is tied to shared (tie_word_embeddings), so T5Model
     * (no head) has exactly the same parameters. */
    expect_params("t5-base", HF_HEAD_SEQ2SEQ_LM, 0, 222903552ull);
    expect_params("t5-base", HF_HEAD_DEFAULT, 0, 222903552ull);
    expect_params("t5-base", HF_HEAD_BASE, 0, 222903552ull);
    /* T5ForTokenClassification: T5EncoderModel (shared + encoder =
     * 109,628,544) + classifier 1,538 */
    expect_params("t5-base", HF_HEAD_TOKEN_CLS, 2, 109630082ull);
    /* T5ForSequenceClassification: T5Model + dense 590,592 + out_proj 1,538 */
    expect_params("t5-base", HF_HEAD_SEQ_CLS, 2, 223495682ull);
    /* T5ForQuestionAnswering: T5Model + qa_outputs 768 * 2 + 2 */
    expect_params("t5-base", HF_HEAD_QA, 0, 222905090ull);

    /* GPT-2 (tied head): GPT2Model = GPT2LMHeadModel = 124,439,808; score
     * 768 * 2 without bias; classifier and qa_outputs 768 * 2 + 2 */
    expect_params("gpt2", HF_HEAD_BASE, 0, 124439808ull);
    expect_params("gpt2", HF_HEAD_SEQ_CLS, 2, 124441344ull);
    expect_params("gpt2", HF_HEAD_TOKEN_CLS, 2, 124441346ull);
    expect_params("gpt2", HF_HEAD_QA, 0, 124441346ull);
    /* Llama-3-8B: untied lm_head 128256 * 4096 = 525,336,576 */
    expect_params("meta-llama/Meta-Llama-3-8B", HF_HEAD_CAUSAL_LM, 0, 8030261248ull);
    expect_params("meta-llama/Meta-Llama-3-8B", HF_HEAD_BASE, 0, 7504924672ull);
    expect_params("meta-llama/Meta-Llama-3-8B", HF_HEAD_SEQ_CLS, 2, 7504932864ull);
    expect_params("meta-llama/Llama-2-7b-hf", HF_HEAD_BASE, 0, 6607343616ull);
    /* Qwen2.5-1.5B ties its head: Qwen2Model = Qwen2ForCausalLM; 3 labels:
     * score 1536 * 3. Qwen2.5-7B does not: - 152064 * 3584. */
    expect_params("Qwen/Qwen2.5-1.5B", HF_HEAD_BASE, 0, 1543714304ull);
    expect_params("Qwen/Qwen2.5-1.5B", HF_HEAD_SEQ_CLS, 3, 1543718912ull);
    expect_params("Qwen/Qwen2.5-7B", HF_HEAD_BASE, 0, 7070619136ull);
    /* Phi-2: lm_head with bias, 51200 * 2560 + 51200 = 131,123,200 */
    expect_params("microsoft/phi-2", HF_HEAD_BASE, 0, 2648560640ull);
    expect_params("microsoft/phi-2", HF_HEAD_SEQ_CLS, 2, 2648565760ull);
    /* Pythia-1.4b: embed_out 50304 * 2048 = 103,022,592 */
    expect_params("EleutherAI/pythia-1.4b", HF_HEAD_BASE, 0, 1311625216ull);
    expect_params("EleutherAI/pythia-1.4b", HF_HEAD_SEQ_CLS, 2, 1311629312ull);
    /* Gemma-2b (tied) */
    expect_params("google/gemma-2b", HF_HEAD_SEQ_CLS, 2, 2506176512ull);
    expect_params("google/gemma-2b", HF_HEAD_TOKEN_CLS, 2, 2506176514ull);
    /* Mixtral: untied lm_head 32000 * 4096 = 131,072,000; score 4096 * 2 */
    expect_params("mistralai/Mixtral-8x7B-v0.1", HF_HEAD_BASE, 0, 46571720704ull);
    expect_params("mistralai/Mixtral-8x7B-v0.1", HF_HEAD_SEQ_CLS, 2, 46571728896ull);
    expect_params("mistralai/Mixtral-8x7B-v0.1", HF_HEAD_QA, 0, 46571728898ull);
    /* Gemma 2 (tied): Gemma2Model = Gemma2ForCausalLM; classifier 2304 * 2 + 2 */
    expect_params("google/gemma-2-2b", HF_HEAD_BASE, 0, 2614341888ull);
    expect_params("google/gemma-2-2b", HF_HEAD_TOKEN_CLS, 2, 2614346498ull);
    /* Phi-3: untied lm_head 32064 * 3072 = 98,500,608 */
    expect_params("microsoft/Phi-3-mini-4k-instruct", HF_HEAD_BASE, 0, 3722578944ull);
    /* Falcon (tied): FalconModel = FalconForCausalLM; qa_outputs 4544 * 2 + 2 */
    expect_params("tiiuae/falcon-7b", HF_HEAD_BASE, 0, 6921720704ull);
    expect_params("tiiuae/falcon-7b", HF_HEAD_QA, 0, 6921729794ull);
}

/* Every supported (family, head) pair: the recorded total is arch_params +
 * hf_head_params, under any options; unsupported pairs are refused. */
static void test_head_params_all(void **state)
{
    (void)state;
    size_t n;
    const Arch *all = arch_all(&n);
    Setup amp = {DT_F32, true, true, false, true}, eval = {DT_BF16, false, false, true, true};
    for (size_t i = 0; i < n; i++) {
        const Arch *a = &all[i];
        for (int h = HF_HEAD_DEFAULT; h <= HF_HEAD_BASE; h++) {
            for (int64_t labels = 0; labels <= 5; labels += 5) {
                HfOptions o = opts_for(a, 2, 32);
                o.head = (HfHead)h;
                o.num_labels = labels;
                bool qa_n = h == HF_HEAD_QA && labels == 5 &&
                            (a->family == FAM_BERT || a->family == FAM_T5);
                if (!hf_head_supported(a, (HfHead)h) || qa_n) {
                    assert_false(run(a, &o, BF16_TRAIN).ok);
                    continue;
                }
                uint64_t want = (uint64_t)((int64_t)arch_params(a) + hf_head_params(a, (HfHead)h, labels));
                Run r1 = run(a, &o, BF16_TRAIN);
                o.grad_ckpt = true;
                o.eager_attention = true;
                Run r2 = run(a, &o, amp), r3 = run(a, &o, eval);
                if (!r1.ok || !r2.ok || !r3.ok)
                    fail_msg("%s head %d: hf_build failed", a->name, h);
                if (r1.params.total != want || r2.params.total != want || r3.params.total != want)
                    fail_msg("%s head %d labels %lld: %llu parameters, want %llu", a->name, h,
                             (long long)labels, (unsigned long long)r1.params.total,
                             (unsigned long long)want);
            }
        }
    }
}

static void test_head_support(void **state)
{
    (void)state;
    /* classes transformers 5 does not have */
    assert_false(hf_head_supported(find("gpt2"), HF_HEAD_MASKED_LM));
    assert_false(hf_head_supported(find("gpt2"), HF_HEAD_SEQ2SEQ_LM));
    assert_false(hf_head_supported(find("bert-base-uncased"), HF_HEAD_SEQ2SEQ_LM));
    assert_false(hf_head_supported(find("t5-base"), HF_HEAD_CAUSAL_LM));
    assert_false(hf_head_supported(find("t5-base"), HF_HEAD_MASKED_LM));
    assert_false(hf_head_supported(find("facebook/opt-1.3b"), HF_HEAD_TOKEN_CLS));
    assert_false(hf_head_supported(find("microsoft/phi-2"), HF_HEAD_QA));
    assert_false(hf_head_supported(find("google/gemma-2b"), HF_HEAD_QA));
    assert_false(hf_head_supported(find("google/gemma-2-2b"), HF_HEAD_QA));
    assert_false(hf_head_supported(find("microsoft/Phi-3-mini-4k-instruct"), HF_HEAD_QA));
    assert_true(hf_head_supported(find("mistralai/Mixtral-8x7B-v0.1"), HF_HEAD_QA));
    assert_true(hf_head_supported(find("tiiuae/falcon-7b"), HF_HEAD_QA));
    assert_true(hf_head_supported(find("tiiuae/falcon-7b"), HF_HEAD_TOKEN_CLS));
    assert_true(hf_head_supported(find("Qwen/Qwen2.5-7B"), HF_HEAD_QA));
    assert_true(hf_head_supported(find("roberta-large"), HF_HEAD_CAUSAL_LM));
    assert_true(hf_head_supported(find("facebook/opt-1.3b"), HF_HEAD_QA));
    /* BERT's qa_outputs has num_labels outputs split into two: only 2 works */
    HfOptions o = opts(2, 16);
    o.head = HF_HEAD_QA;
    o.num_labels = 3;
    assert_false(run(find("bert-base-uncased"), &o, BF16_TRAIN).ok);
    o.num_labels = -1;
    o.head = HF_HEAD_SEQ_CLS;
    assert_false(run(find("bert-base-uncased"), &o, BF16_TRAIN).ok);
}

/* The default stays what it was; the explicit kinds that name the same class
 * record the same forward. */
static void test_head_default_same(void **state)
{
    (void)state;
    const char *names[] = {"gpt2", "EleutherAI/pythia-410m", "facebook/opt-125m",
                           "Qwen/Qwen2.5-0.5B", "google/gemma-2b", "microsoft/phi-2", "t5-small",
                           "mistralai/Mixtral-8x7B-v0.1", "google/gemma-2-2b",
                           "microsoft/Phi-3-mini-4k-instruct", "tiiuae/falcon-7b"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const Arch *a = find(names[i]);
        HfOptions o = opts(2, 128);
        Run d = run(a, &o, BF16_TRAIN);
        o.head = a->family == FAM_T5 ? HF_HEAD_SEQ2SEQ_LM : HF_HEAD_CAUSAL_LM;
        Run c = run(a, &o, BF16_TRAIN);
        assert_true(d.ok && c.ok);
        assert_int_equal(d.params.total, c.params.total);
        assert_int_equal(d.mem.saved, c.mem.saved);
        assert_int_equal(d.mem.fwd_peak, c.mem.fwd_peak);
        assert_int_equal(d.mem.bwd_peak, c.mem.bwd_peak);
        assert_int_equal(d.mem.kept, c.mem.kept);
    }
}

/* The output and loss tensors each head records. */
typedef struct Shape {
    bool ok;
    int nd;
    int64_t dim[3];
    bool loss;
} Shape;

static Shape shape_of(const char *name, HfHead head, int64_t num_labels, bool labels)
{
    Shape sh;
    memset(&sh, 0, sizeof sh);
    Arena ar;
    arena_init(&ar);
    Trace tr;
    tr_init(&tr, &ar);
    tr.weight_dtype = DT_BF16;
    tr.training = true;
    HfOptions o = opts(4, 64);
    o.head = head;
    o.num_labels = num_labels;
    o.labels = labels;
    TId logits = 0, loss = 0;
    sh.ok = hf_build(&tr, find(name), &o, &logits, &loss);
    if (sh.ok) {
        sh.nd = tr.t.v[logits].nd;
        for (int i = 0; i < sh.nd && i < 3; i++)
            sh.dim[i] = tr_dim(&tr, logits, i);
        sh.loss = loss != 0;
        if (loss)
            assert_int_equal(tr_numel(&tr, loss), 1);
    }
    arena_free(&ar);
    return sh;
}

static void expect_shape(const char *name, HfHead head, int64_t num_labels, int nd, int64_t d0,
                         int64_t d1, int64_t d2)
{
    Shape sh = shape_of(name, head, num_labels, true);
    assert_true(sh.ok);
    if (sh.nd != nd || sh.dim[0] != d0 || (nd > 1 && sh.dim[1] != d1) || (nd > 2 && sh.dim[2] != d2))
        fail_msg("%s head %d: output of %d dims (%lld, %lld, %lld)", name, (int)head, sh.nd,
                 (long long)sh.dim[0], (long long)sh.dim[1], (long long)sh.dim[2]);
    /* a loss with labels, except for the bare model */
    assert_true(sh.loss == (head != HF_HEAD_BASE));
    assert_false(shape_of(name, head, num_labels, false).loss);
}

static void test_head_outputs(void **state)
{
    (void)state;
    /* batch 4, sequence 64 */
    expect_shape("bert-base-uncased", HF_HEAD_MASKED_LM, 0, 3, 4, 64, 30522);
    expect_shape("bert-base-uncased", HF_HEAD_SEQ_CLS, 0, 2, 4, 2, 0);
    expect_shape("bert-base-uncased", HF_HEAD_SEQ_CLS, 1, 2, 4, 1, 0);   /* MSE */
    expect_shape("bert-base-uncased", HF_HEAD_TOKEN_CLS, 9, 3, 4, 64, 9);
    expect_shape("bert-base-uncased", HF_HEAD_QA, 0, 2, 4, 64, 0);        /* start logits */
    expect_shape("bert-base-uncased", HF_HEAD_BASE, 0, 3, 4, 64, 768);    /* last hidden state */
    expect_shape("roberta-large", HF_HEAD_SEQ_CLS, 3, 2, 4, 3, 0);
    expect_shape("roberta-large", HF_HEAD_CAUSAL_LM, 0, 3, 4, 64, 50265);
    /* decoders: the last token's row of the per-position scores */
    expect_shape("gpt2", HF_HEAD_SEQ_CLS, 2, 2, 4, 2, 0);
    expect_shape("meta-llama/Meta-Llama-3-8B", HF_HEAD_SEQ_CLS, 5, 2, 4, 5, 0);
    expect_shape("microsoft/phi-2", HF_HEAD_TOKEN_CLS, 4, 3, 4, 64, 4);
    expect_shape("facebook/opt-125m", HF_HEAD_QA, 0, 2, 4, 64, 0);
    expect_shape("Qwen/Qwen2.5-1.5B", HF_HEAD_BASE, 0, 3, 4, 64, 1536);
    expect_shape("t5-base", HF_HEAD_SEQ2SEQ_LM, 0, 3, 4, 64, 32128);
    expect_shape("t5-base", HF_HEAD_SEQ_CLS, 2, 2, 4, 2, 0);
    expect_shape("t5-base", HF_HEAD_TOKEN_CLS, 2, 3, 4, 64, 2);
    expect_shape("t5-base", HF_HEAD_BASE, 0, 3, 4, 64, 768);
}

/* A classification loss on (b, n) or (b*s, n) logits is negligible next to
 * the masked LM's (b, s, V) logits and their log_softmax: that is what the
 * head kind changes for a fine-tuning script. */
static void test_head_loss_small(void **state)
{
    (void)state;
    const int64_t b = 32, s = 512;
    const char *names[] = {"bert-base-uncased", "roberta-large"};
    Setup st = {DT_BF16, false, true, false, false};
    for (size_t i = 0; i < 2; i++) {
        const Arch *a = find(names[i]);
        HfOptions o = opts(b, s);
        o.head = HF_HEAD_MASKED_LM;
        Run mlm = run(a, &o, st);
        o.head = HF_HEAD_SEQ_CLS;
        Run cls = run(a, &o, st);
        o.head = HF_HEAD_TOKEN_CLS;
        Run tok = run(a, &o, st);
        o.head = HF_HEAD_BASE;
        o.labels = false;
        Run base = run(a, &o, st);
        assert_true(mlm.ok && cls.ok && tok.ok && base.ok);
        /* the MLM's cross entropy saves its bf16 log_softmax, b*s*V * 2 bytes
         * (the logits themselves are not saved) */
        uint64_t vocab = (uint64_t)b * s * a->vocab * 2;
        assert_true(mlm.mem.saved > cls.mem.saved + vocab);
        /* the sequence classifier saves a few (b, d) tensors over the bare
         * model; token classification its (b*s, 2) logits and fp32 copy */
        assert_true(cls.mem.saved < base.mem.saved + 4 * 1048576ull);
        assert_true(tok.mem.saved < base.mem.saved + (uint64_t)b * s * a->hidden + 4 * 1048576ull);
        assert_true(cls.mem.at_fwd_peak.head < 1048576ull);
        assert_true(mlm.mem.at_fwd_peak.head > vocab / 2);
    }
}

/* BERT / RoBERTa under transformers 5: SDPA by default, with the attention
 * dropout inside the fused kernel (no (b, h, s, s) mask), dropout 0.1 on the
 * hidden states in training; eager attention saves the probabilities and,
 * in training, their dropout masks. */
static void test_bert_attention_dropout(void **state)
{
    (void)state;
    const int64_t b = 8, s = 512;
    const char *names[] = {"bert-base-uncased", "roberta-large"};
    Setup train = {DT_BF16, false, true, false, false}, evalmode = {DT_BF16, false, false, false, false};
    for (size_t i = 0; i < 2; i++) {
        const Arch *a = find(names[i]);
        HfOptions o = opts(b, s);
        o.head = HF_HEAD_SEQ_CLS;
        Run sdpa_t = run(a, &o, train), sdpa_e = run(a, &o, evalmode);
        o.eager_attention = true;
        Run eager_t = run(a, &o, train), eager_e = run(a, &o, evalmode);
        assert_true(sdpa_t.ok && sdpa_e.ok && eager_t.ok && eager_e.ok);
        uint64_t probs = (uint64_t)a->layers * b * a->heads * s * s;   /* elements */
        uint64_t hidden = (uint64_t)a->layers * b * s * a->hidden;
        /* training adds the hidden-state dropout masks (two a layer, one byte
         * an element), nothing of attention size with SDPA */
        assert_true(sdpa_t.mem.saved >= sdpa_e.mem.saved + 2 * hidden * 95 / 100);
        assert_true(sdpa_t.mem.saved < sdpa_e.mem.saved + 3 * hidden);
        /* eager: the probabilities (bf16) in both modes (less what SDPA saves
         * and eager does not: its output and log-sum-exp), their dropout mask
         * (and the dropped copy) in training */
        assert_true(eager_e.mem.saved >= sdpa_e.mem.saved + 2 * probs * 9 / 10);
        assert_true(eager_t.mem.saved >= eager_e.mem.saved + probs);
    }
}

/* The KV cache is filled in every decoder forward (config.use_cache); the
 * causal-LM, sequence-classification and base outputs return it, the
 * token-classification and QA outputs drop it. T5's classification and QA
 * classes turn it off when labels are given. */
static void test_head_cache(void **state)
{
    (void)state;
    const Arch *a = find("meta-llama/Llama-2-7b-hf");
    Setup eval = {DT_BF16, false, false, true, false};
    const uint64_t cache = 32ull * 2 * 2 * 32 * 512 * 128 * 2, ids = 2 * 512 * 8;
    const HfHead kept[] = {HF_HEAD_CAUSAL_LM, HF_HEAD_SEQ_CLS, HF_HEAD_BASE};
    const HfHead dropped[] = {HF_HEAD_TOKEN_CLS, HF_HEAD_QA};
    for (size_t i = 0; i < 3; i++) {
        HfOptions o = opts(2, 512);
        o.labels = false;
        o.head = kept[i];
        Run r = run(a, &o, eval);
        assert_true(r.ok);
        assert_int_equal(r.mem.kept, cache + ids);
    }
    for (size_t i = 0; i < 2; i++) {
        HfOptions o = opts(2, 512);
        o.labels = false;
        o.head = dropped[i];
        Run r = run(a, &o, eval);
        assert_true(r.ok);
        assert_int_equal(r.mem.kept, ids);
        /* still filled during the forward */
        assert_true(r.mem.fwd_peak > cache / 32);
    }
    /* T5ForSequenceClassification: labels turn the decoder's cache off */
    const Arch *t5 = find("t5-small");
    HfOptions o = opts(2, 128);
    o.head = HF_HEAD_SEQ_CLS;
    Run with_labels = run(t5, &o, (Setup){DT_BF16, false, true, false, false});
    o.labels = false;
    Run without = run(t5, &o, (Setup){DT_BF16, false, true, false, false});
    assert_true(with_labels.ok && without.ok);
    assert_true(without.mem.kept > with_labels.mem.kept + 6ull * 4 * 2 * 8 * 128 * 64 * 2 / 2);
    assert_true(with_labels.mem.kept < 4096);
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

/* ---- Mixtral, Gemma 2, Phi-3, Falcon ------------------------------------------------------ */

typedef struct OpCount {
    int n;                 /* ops named so, output of nd dims and last dim `last` */
    int64_t rows, max_rows;   /* their first dims: summed, largest */
} OpCount;

/* Records `a`'s forward (bf16 weights, training) and counts the ops named
 * `op` whose output has `nd` dims and last dimension `last`. */
static OpCount count_ops(const Arch *a, const HfOptions *o, const char *op, int nd, int64_t last)
{
    OpCount c = {0, 0, 0};
    Arena ar;
    arena_init(&ar);
    Trace tr;
    tr_init(&tr, &ar);
    tr.weight_dtype = DT_BF16;
    tr.training = true;
    TId logits = 0, loss = 0;
    assert_true(hf_build(&tr, a, o, &logits, &loss));
    for (uint32_t i = 0; i < tr.ops.n; i++) {
        const TOp *p = &tr.ops.v[i];
        const TTensor *t = p->out ? &tr.t.v[p->out] : NULL;
        if (!t || strcmp(p->name, op) != 0 || t->nd != nd || t->dim[nd - 1] != last)
            continue;
        c.n++;
        c.rows += t->dim[0];
        if (t->dim[0] > c.max_rows)
            c.max_rows = t->dim[0];
    }
    arena_free(&ar);
    return c;
}

/* Mixtral's sparse MoE block: every expert runs on its expected load,
 * b*s*top_k/experts tokens (the remainder one each on the first experts),
 * through one linear on its slice of the fused gate_up_proj; and against
 * Mistral-7B (the same attention, vocabulary and untied head, a dense SwiGLU
 * MLP of the same width) each token saves, a layer, top_k times the routed
 * rows' activations (the gathered input 2d, gate_up 4ff, activation 2ff,
 * product 2ff, down output 2d bytes) where the dense MLP saves 8ff (the
 * normed input, 2d, is saved by both: the router's input there): (top_k -
 * 1) * 8ff + 4 * top_k * d, plus the router's few fp32 values (probabilities
 * E, top-k values top_k, their sum, the routing weights' column per row:
 * 52 bytes here). */
static void test_mixtral_moe(void **state)
{
    (void)state;
    const Arch *mx = find("mistralai/Mixtral-8x7B-v0.1"), *dense = find("mistralai/Mistral-7B-v0.1");
    const int64_t E = 8, K = 2, ff = 14336, d = 4096, L = 32;
    assert_int_equal(arch_experts(mx), E);
    assert_int_equal(arch_top_k(mx), K);
    HfOptions o = opts(2, 512);
    const int64_t T = 2 * 512;
    OpCount c = count_ops(mx, &o, "linear", 2, 2 * ff);
    assert_int_equal(c.n, L * E);
    assert_int_equal(c.rows, L * T * K);
    assert_int_equal(c.max_rows, T * K / E);
    /* 7 tokens, 14 routed rows: six experts take 2, two take 1 */
    o = opts(1, 7);
    c = count_ops(mx, &o, "linear", 2, 2 * ff);
    assert_int_equal(c.n, L * E);
    assert_int_equal(c.rows, L * 14);
    assert_int_equal(c.max_rows, 2);

    o = opts(2, 512);
    Run moe = run(mx, &o, BF16_TRAIN), mlp = run(dense, &o, BF16_TRAIN);
    assert_true(moe.ok && mlp.ok);
    uint64_t per = (moe.mem.saved - mlp.mem.saved) / (uint64_t)(L * T);
    uint64_t want = (uint64_t)((K - 1) * 8 * ff + 4 * K * d);
    if (per < want || per > want + 64)
        fail_msg("Mixtral saves %llu bytes a token and layer over Mistral, want %llu", (unsigned long long)per,
                 (unsigned long long)want);
    /* the cache is Mistral's (the same attention) */
    o.labels = false;
    Setup eval = {DT_BF16, false, false, true, false};
    assert_int_equal(run(mx, &o, eval).mem.kept, run(dense, &o, eval).mem.kept);
}

/* Gemma 2's soft-capping. Final logits: lm_head, / 30, tanh, * 30: the tanh
 * output is saved (bf16) and the capped logits are the output, so the
 * causal-LM head keeps 8 bytes a logit over the bare model (tanh output,
 * logits, fp32 log_softmax) where Gemma's keeps 6. Attention: only the eager
 * path caps (SDPA ignores softcap): one tanh over the (b, h, s, s) scores a
 * layer, its output saved beside the fp32 probabilities and their bf16 cast. */
static void test_gemma2_softcap(void **state)
{
    (void)state;
    const int64_t b = 2, s = 512;
    const char *names[] = {"google/gemma-2-2b", "google/gemma-2b"};
    const uint64_t per_logit[] = {8, 6};
    for (size_t i = 0; i < 2; i++) {
        const Arch *a = find(names[i]);
        HfOptions o = opts(b, s);
        o.head = HF_HEAD_CAUSAL_LM;
        Run lm = run(a, &o, BF16_TRAIN);
        o.head = HF_HEAD_BASE;
        o.labels = false;
        Run base = run(a, &o, BF16_TRAIN);
        assert_true(lm.ok && base.ok);
        uint64_t logits = (uint64_t)b * s * a->vocab, extra = lm.mem.saved - base.mem.saved;
        if (extra < per_logit[i] * logits || extra > per_logit[i] * logits + 1048576)
            fail_msg("%s: the head keeps %llu bytes, want %llu per logit", a->name,
                     (unsigned long long)extra, (unsigned long long)per_logit[i]);
    }
    const Arch *g = find("google/gemma-2-2b");
    HfOptions o = opts(b, s);
    assert_int_equal(count_ops(g, &o, "tanh", 4, s).n, 0);
    o.eager_attention = true;
    OpCount caps = count_ops(g, &o, "tanh", 4, s);
    assert_int_equal(caps.n, g->layers);
    assert_int_equal(caps.rows, (int64_t)g->layers * b);
    Run eager = run(g, &o, BF16_TRAIN);
    o.eager_attention = false;
    Run sdpa = run(g, &o, BF16_TRAIN);
    uint64_t scores = (uint64_t)g->layers * b * g->heads * s * s;
    assert_true(eager.mem.saved >= sdpa.mem.saved + 8 * scores);
}

/* Phi-3's fused projections against the same sizes with Llama's separate
 * ones: the same parameters; what is saved differs by what the split views
 * keep. Phi-3's rotary cat makes q (b, h, s, hd)-contiguous, so flash's
 * output is copied by the transpose (o_proj saves the (b, s, d) copy: +d a
 * token); without a cache, v is a view of the qkv output, so SDPA saving v
 * keeps all of it, (b, s, 3d) instead of (b, s, d): +2d (with a cache the
 * attention reads the cache's copies instead). The fused gate_up output is
 * saved whole, as gate and up are separately: no difference. */
static void test_phi3_fused(void **state)
{
    (void)state;
    const Arch *phi3 = find("microsoft/Phi-3-mini-4k-instruct");
    Arch split = *phi3;
    split.family = FAM_LLAMA;
    assert_int_equal(arch_params(&split), arch_params(phi3));
    const int64_t b = 2, s = 512;
    for (int cache = 0; cache < 2; cache++) {
        HfOptions o = opts(b, s);
        o.use_cache = cache;
        Run fused = run(phi3, &o, BF16_TRAIN), sep = run(&split, &o, BF16_TRAIN);
        assert_true(fused.ok && sep.ok);
        assert_int_equal(fused.params.total, sep.params.total);
        uint64_t want = (uint64_t)phi3->layers * b * s * phi3->hidden * 2 * (cache ? 1 : 3);
        assert_int_equal(fused.mem.saved - sep.mem.saved, want);
    }
}

/* Falcon-7B's multi-query attention: one kv head, passed to
 * F.scaled_dot_product_attention without enable_gqa, so the math kernel runs
 * in fp32 and saves the (b, 71, s, s) probabilities at 4 bytes; eager keeps
 * them at 2 (softmax in the hidden states' dtype). The cache holds one head:
 * (b, 1, s, 64) k and v a layer. */
static void test_falcon_mqa(void **state)
{
    (void)state;
    const Arch *f = find("tiiuae/falcon-7b");
    assert_int_equal(f->kv_heads, 1);
    const int64_t b = 2, s = 512;
    HfOptions o = opts(b, s);
    Run sdpa = run(f, &o, BF16_TRAIN);
    o.eager_attention = true;
    Run eager = run(f, &o, BF16_TRAIN);
    assert_true(sdpa.ok && eager.ok);
    uint64_t scores = (uint64_t)f->layers * b * f->heads * s * s;
    assert_true(sdpa.mem.saved >= 4 * scores);
    assert_true(eager.mem.saved >= 2 * scores);
    assert_true(sdpa.mem.saved >= eager.mem.saved + 2 * scores);
    o.eager_attention = false;
    o.labels = false;
    Run ev = run(f, &o, (Setup){DT_BF16, false, false, true, false});
    uint64_t cache = (uint64_t)f->layers * 2 * b * 1 * s * 64 * 2, ids = (uint64_t)b * s * 8;
    assert_int_equal(ev.mem.kept, cache + ids);
}

static void test_rejects(void **state)
{
    (void)state;
    HfOptions o = opts(0, 16);
    Run r = run(find("gpt2"), &o, BF16_TRAIN);
    assert_false(r.ok);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_params_equal_snapshot), cmocka_unit_test(test_params_any_options),
        cmocka_unit_test(test_lora_adapters),         cmocka_unit_test(test_saved_linear_in_batch),
        cmocka_unit_test(test_sdpa_below_eager),      cmocka_unit_test(test_checkpointing_saves_less),
        cmocka_unit_test(test_kv_cache),              cmocka_unit_test(test_calibration_anchors),
        cmocka_unit_test(test_rejects),
        cmocka_unit_test(test_mixtral_moe),           cmocka_unit_test(test_gemma2_softcap),
        cmocka_unit_test(test_phi3_fused),            cmocka_unit_test(test_falcon_mqa),
        cmocka_unit_test(test_head_params_exact),     cmocka_unit_test(test_head_params_all),
        cmocka_unit_test(test_head_support),          cmocka_unit_test(test_head_default_same),
        cmocka_unit_test(test_head_outputs),          cmocka_unit_test(test_head_loss_small),
        cmocka_unit_test(test_bert_attention_dropout), cmocka_unit_test(test_head_cache),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
