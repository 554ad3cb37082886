/* The architecture snapshot: models known by name, and their parameter
 * counts computed from the published configuration by family. */
#ifndef PFC_ARCH_H
#define PFC_ARCH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum ArchFamily { FAM_GPT2, FAM_NEOX, FAM_OPT, FAM_LLAMA, FAM_PHI, FAM_BERT, FAM_T5,
                          FAM_MIXTRAL, FAM_GEMMA2, FAM_PHI3,
                          FAM_FALCON, FAM_BLOOM, FAM_BART, FAM_WHISPER } ArchFamily;

/* MIXTRAL's `extra`: the number of experts and how many each token is routed
 * to (num_local_experts, num_experts_per_tok). */
#define MOE(experts, top_k) ((uint32_t)(experts) << 8 | (uint32_t)(top_k))

/* T5's `extra`: the decoder's layers, and T5 v1.1's gated-GELU feed-forward
 * (wi_0, wi_1, wo: flan-T5) */
#define T5_GATED (1u << 16)
/* BART's `extra`: the decoder's layers, and mBART's pre-LN layout (a final
 * LayerNorm per stack, embeddings scaled by sqrt(d)) */
#define BART_PRE_LN (1u << 16)
/* OPT's `extra`: word_embed_proj_dim when it differs from hidden (project_in
 * and project_out), and the post-LN layout (do_layer_norm_before False, no
 * final LayerNorm): OPT-350m */
#define OPT_POST_LN (1u << 16)
/* Whisper's `extra`: the decoder's layers and the mel bins the conv stem
 * takes (80; 128 for large-v3) */
#define WHISPER(decoder_layers, mels) ((uint32_t)(mels) << 16 | (uint32_t)(decoder_layers))
/* Whisper's encoder: max_source_positions, the 3000 mel frames of 30 s after
 * the stride-2 conv */
#define WHISPER_ENCODER_POSITIONS 1500

typedef struct Arch {
    const char *name;
    ArchFamily family;
    uint32_t hidden, layers, heads, kv_heads, head_dim, intermediate, vocab, positions;
    bool tied;
    uint32_t extra;   /* family-specific: see archs.def */
} Arch;

const Arch *arch_all(size_t *n);
/* By exact name, or by the part after the organisation on either side
 * ("Llama-2-7b-hf", "openai-community/gpt2"), case-insensitively; an
 * instruction-tuned checkpoint that publishes its base's config by the
 * base's name ("Qwen2.5-7B-Instruct", "gemma-2b-it", "Llama-2-7b-chat-hf"). */
const Arch *arch_find(const char *name);
uint64_t arch_params(const Arch *a);
const char *arch_family_name(ArchFamily f);
uint32_t arch_head_dim(const Arch *a);
/* MIXTRAL: experts per layer and experts per token (0 for other families). */
uint32_t arch_experts(const Arch *a);
uint32_t arch_top_k(const Arch *a);
/* Encoder-decoder families (T5, BART, Whisper): the decoder's layers (0 for
 * other families); `layers` is the encoder's. */
uint32_t arch_decoder_layers(const Arch *a);
bool arch_encoder_decoder(const Arch *a);
/* T5 v1.1 / flan-T5: the gated-GELU feed-forward */
bool arch_t5_gated(const Arch *a);
/* mBART: pre-LN with final LayerNorms and scaled embeddings */
bool arch_bart_pre_ln(const Arch *a);
/* OPT: the embedding width (word_embed_proj_dim) and the post-LN layout */
uint32_t arch_opt_embed_dim(const Arch *a);
bool arch_opt_post_ln(const Arch *a);
/* DistilBERT (the BERT family without token types or pooler) */
bool arch_distilbert(const Arch *a);
/* Whisper: the mel bins of input_features */
uint32_t arch_whisper_mels(const Arch *a);

#endif
