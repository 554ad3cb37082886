/* The architecture snapshot: models known by name, and their parameter
 * counts computed from the published configuration by family. */
#ifndef PFC_ARCH_H
#define PFC_ARCH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum ArchFamily { FAM_GPT2, FAM_NEOX, FAM_OPT, FAM_LLAMA, FAM_PHI, FAM_BERT, FAM_T5,
                          FAM_MIXTRAL, FAM_GEMMA2, FAM_PHI3,
                          FAM_FALCON } ArchFamily;

/* MIXTRAL's `extra`: the number of experts and how many each token is routed
 * to (num_local_experts, num_experts_per_tok). */
#define MOE(experts, top_k) ((uint32_t)(experts) << 8 | (uint32_t)(top_k))

typedef struct Arch {
    const char *name;
    ArchFamily family;
    uint32_t hidden, layers, heads, kv_heads, head_dim, intermediate, vocab, positions;
    bool tied;
    uint32_t extra;   /* family-specific: see archs.def */
} Arch;

const Arch *arch_all(size_t *n);
/* By exact name, or by the part after the organisation on either side
 * ("Llama-2-7b-hf", "openai-community/gpt2"), case-insensitively. */
const Arch *arch_find(const char *name);
uint64_t arch_params(const Arch *a);
const char *arch_family_name(ArchFamily f);
uint32_t arch_head_dim(const Arch *a);
/* MIXTRAL: experts per layer and experts per token (0 for other families). */
uint32_t arch_experts(const Arch *a);
uint32_t arch_top_k(const Arch *a);

#endif
