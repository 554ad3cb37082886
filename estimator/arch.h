/* The architecture snapshot: models known by name, and their parameter
 * counts computed from the published configuration by family. */
#ifndef PFC_ARCH_H
#define PFC_ARCH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum ArchFamily { FAM_GPT2, FAM_NEOX, FAM_OPT, FAM_LLAMA, FAM_PHI, FAM_BERT, FAM_T5,
                          FAM_RESNET, FAM_VIT } ArchFamily;

typedef struct Arch {
    const char *name;
    ArchFamily family;
    uint32_t hidden, layers, heads, kv_heads, head_dim, intermediate, vocab, positions;
    bool tied;
    uint32_t extra;   /* family-specific: see archs.def */
} Arch;

const Arch *arch_all(size_t *n);
/* By exact name, or by the part after the organisation ("Llama-2-7b-hf"),
 * case-insensitively. */
const Arch *arch_find(const char *name);
uint64_t arch_params(const Arch *a);
const char *arch_family_name(ArchFamily f);
uint32_t arch_head_dim(const Arch *a);

#endif
