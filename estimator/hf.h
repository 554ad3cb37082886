/* Hugging Face models of the architecture snapshot (arch.h) recorded into a
 * Trace (trace.h): the forward of transformers 5.x's modeling code, op by
 * op, so that trace.c's rules decide what autograd saves and in which dtype.
 *
 * Heads (HfOptions.head). HF_HEAD_DEFAULT is what pfc has always recorded:
 * the causal-LM head (tied or not, as the snapshot says) for the decoders
 * (GPT2, NEOX, OPT, LLAMA, PHI, MIXTRAL, GEMMA2 with its logit soft-capping,
 * PHI3, FALCON); for BERT, BertModel with its pooler (what arch_params
 * counts) and a masked-LM projection onto the tied word embeddings (no
 * prediction transform and no decoder bias); for T5,
 * T5ForConditionalGeneration. The other kinds are the transformers classes
 * the Auto* factories build:
 *
 *   CAUSAL_LM    *ForCausalLM (decoders: = DEFAULT); BERT/RoBERTa:
 *                BertLMHeadModel / RobertaForCausalLM (no pooler, the MLM
 *                prediction head, shifted causal-LM loss)
 *   MASKED_LM    BERT/RoBERTa only: no pooler; dense d->d, GELU, LayerNorm,
 *                decoder tied to the word embeddings + a vocab-sized bias
 *   SEQ_CLS      BERT: pooler, dropout, classifier d->n. RoBERTa: no pooler;
 *                on <s>: dropout, dense d->d, tanh, dropout, out_proj d->n.
 *                Decoders: bias-free score d->n on every position, then the
 *                last token's row. T5: T5Model, the last <eos> row, dense,
 *                tanh, out_proj. Loss: CrossEntropy on (b, n), MSE if n == 1
 *   TOKEN_CLS    dropout + classifier d->n on every token (BERT/RoBERTa
 *                without pooler; T5 is encoder-only); CrossEntropy on
 *                (b*s, n). Not for OPT (no such class)
 *   QA           qa_outputs d->2 on every token, split into start/end logits
 *                (b, s); loss (CE(start) + CE(end)) / 2. Not for Phi,
 *                Phi-3, Gemma or Gemma 2 (no such class)
 *   SEQ2SEQ_LM   T5 only: T5ForConditionalGeneration (= DEFAULT)
 *   BASE         AutoModel: no head, no loss; BertModel keeps its pooler
 *                (add_pooling_layer=True); T5Model (encoder + decoder)
 *
 * A kind a family has no class for makes hf_build return false. T5 always
 * runs eager attention, as it has no SDPA path. (torchvision models are
 * vision.h's.)
 *
 * The caller sets tr->weight_dtype, autocast, training and no_grad first
 * (see trace.h); hf_build only records. */
#ifndef PFC_HF_H
#define PFC_HF_H
#include "arch.h"
#include "hf_lora.h"
#include "trace.h"
#include <stdbool.h>
#include <stdint.h>

/* PEFT target modules, by module kind. Fused or differently named modules
 * map onto these: GPT-2 c_attn / c_proj (attention and MLP) / c_fc; GPT-NeoX
 * query_key_value -> LORA_C_ATTN, dense -> LORA_O, dense_h_to_4h -> LORA_UP,
 * dense_4h_to_h -> LORA_DOWN; OPT and Phi out_proj/dense -> LORA_O,
 * fc1 -> LORA_UP, fc2 -> LORA_DOWN; BERT query/key/value/attention.output ->
 * Q/K/V/O, intermediate -> UP, output -> DOWN; T5 q/k/v/o, wi -> UP,
 * wo -> DOWN. The bits themselves (LORA_Q = 1 ... LORA_C_FC = 512) are in
 * hf_lora.h, shared with the configuration reader. Phi-3: qkv_proj ->
 * LORA_C_ATTN, gate_up_proj -> LORA_UP; Falcon as GPT-NeoX (query_key_value,
 * dense, dense_h_to_4h, dense_4h_to_h); Mixtral: the attention only (the
 * experts' 3-D parameters and the router are not modules PEFT's
 * target_modules reach). */

typedef enum HfHead { HF_HEAD_DEFAULT, HF_HEAD_CAUSAL_LM, HF_HEAD_MASKED_LM, HF_HEAD_SEQ_CLS,
                      HF_HEAD_TOKEN_CLS, HF_HEAD_QA, HF_HEAD_SEQ2SEQ_LM, HF_HEAD_BASE } HfHead;

typedef struct HfOptions {
    int64_t batch, seq;      /* input_ids (b, seq); Whisper: seq = input_features' frames */
    int64_t dec_seq;         /* encoder-decoders (T5, BART, Whisper): the labels' or
                                decoder_input_ids' length, on which the decoder runs; 0: seq
                                (Whisper: required) */
    int64_t mels;            /* Whisper: input_features' mel bins as the script gives them
                                (0: the model's) */
    bool grad_ckpt;          /* gradient_checkpointing_enable(): each decoder layer checkpointed */
    bool eager_attention;    /* attn_implementation="eager"; default is SDPA */
    bool labels;             /* model(..., labels=...): the model computes the loss */
    bool use_cache;          /* config.use_cache (True for every snapshot model): the forward
                                fills a DynamicCache and returns it, in training too, unless
                                gradient checkpointing is active in training (HF turns it off
                                then). The v5 Trainer sets it False (TrainingArguments.use_cache,
                                transformers PR #41585), as its measurements confirm. */
    uint32_t lora_r, lora_targets;   /* PEFT LoRA: base frozen, adapters fp32 trainable */
    int quant_bits;          /* bitsandbytes: 4 or 8 for the layers' Linear weights (the head
                                and embeddings stay unquantized, as transformers leaves them) */
    bool quant_double;       /* bnb_4bit_use_double_quant */
    double lora_dropout;
    HfHead head;             /* which transformers class (see above) */
    bool fused_ce;           /* causal LM loss by a fused linear cross-entropy (Liger's):
                                the full logits are never materialised */
    int64_t num_labels;      /* config.num_labels for the classification heads; 0: the
                                config default (2) */
} HfOptions;

/* Records the Hugging Face model's forward for `a` (see above for the heads).
 * Creates all parameters: with HF_HEAD_DEFAULT their total equals
 * arch_params(a) exactly; the other heads add or remove what their class
 * has beyond the base model (hf_head_params gives the difference); LoRA adds
 * r * (in + out) per targeted linear when lora_r > 0. The KV cache is marked
 * kept when the returned output holds it (use_cache; the causal-LM,
 * sequence-classification and base outputs do, the token-classification and
 * QA outputs drop it).
 * *logits: the output tensor (the caller may tr_keep it): the logits; the
 * start logits for QA (the end logits are the same size); the last hidden
 * state for BASE;
 * *loss: the loss when o->labels (for QA: start and end positions given),
 * else 0; always 0 for BASE.
 * Returns false for a family it does not model, a head kind
 * the family has no class for, or bad sizes. */
bool hf_build(Trace *tr, const Arch *a, const HfOptions *o, TId *logits, TId *loss);

/* Why transformers would refuse these lengths (Whisper's 3000 frames and 448
 * decoder positions, BART's 1024), or NULL; hf_build refuses them too. */
const char *hf_length_error(const Arch *a, const HfOptions *o);

/* Whether the family of `a` has a transformers class for `head`. */
bool hf_head_supported(const Arch *a, HfHead head);

/* The parameters the head kind's class has beyond (or, negative, short of)
 * arch_params(a): the total hf_build creates without LoRA is arch_params(a)
 * + hf_head_params(a, head, num_labels). 0 for what hf_build refuses. */
int64_t hf_head_params(const Arch *a, HfHead head, int64_t num_labels);

#endif
