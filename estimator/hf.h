/* Hugging Face models of the architecture snapshot (arch.h) recorded into a
 * Trace (trace.h): the forward of transformers 5.x's modeling code, op by
 * op, so that trace.c's rules decide what autograd saves and in which dtype.
 *
 * Heads: the causal-LM head (tied or not, as the snapshot says) for GPT2,
 * NEOX, OPT, LLAMA and PHI. BERT: BertModel with its pooler (what
 * arch_params counts) and a masked-LM projection onto the tied word
 * embeddings (no prediction transform and no decoder bias, which the
 * snapshot does not count). T5: T5ForConditionalGeneration (encoder,
 * decoder, tied head); always eager attention, as T5 has no SDPA path.
 * VIT and RESNET entries are torchvision-shaped (vision.h): hf_build
 * returns false for them.
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
 * hf_lora.h, shared with the configuration reader. */

typedef struct HfOptions {
    int64_t batch, seq;
    bool grad_ckpt;          /* gradient_checkpointing_enable(): each decoder layer checkpointed */
    bool eager_attention;    /* attn_implementation="eager"; default is SDPA */
    bool labels;             /* model(..., labels=...): the model computes the loss */
    bool use_cache;          /* config.use_cache (True for every snapshot model): the forward
                                fills a DynamicCache and returns it, in training too, unless
                                gradient checkpointing is active in training (HF turns it off
                                then). The v5 Trainer sets it False (TrainingArguments.use_cache,
                                transformers PR #41585), as its measurements confirm. */
    uint32_t lora_r, lora_targets;   /* PEFT LoRA: base frozen, adapters fp32 trainable */
    double lora_dropout;
} HfOptions;

/* Records the Hugging Face model's forward for `a` (see above for the heads).
 * Creates all parameters: their total equals arch_params(a) exactly, plus
 * r * (in + out) per LoRA-targeted linear when lora_r > 0. The KV cache the
 * returned output holds (use_cache) is marked kept.
 * *logits: the logits tensor (the caller may tr_keep it);
 * *loss: the loss when o->labels, else 0.
 * Returns false for a family it does not model (RESNET, VIT) or bad sizes. */
bool hf_build(Trace *tr, const Arch *a, const HfOptions *o, TId *logits, TId *loss);

#endif
