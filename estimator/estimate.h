/* pfc estimate: what a training script allocates on the GPU. This first part
 * reads the configuration out of the IR and computes the exact components:
 * parameters (total, trainable), weights, gradients and optimizer state.
 * Activations, logits and the allocator's slack (the peak) are the next step. */
#ifndef PFC_ESTIMATE_H
#define PFC_ESTIMATE_H
#include "../ir/ir.h"
#include "arch.h"

typedef enum OptKind { OPT_NONE, OPT_ADAM, OPT_SGD, OPT_OTHER } OptKind;

typedef struct EstimateConfig {
    const char *model_name;       /* from from_pretrained("..."), or NULL */
    const Arch *arch;             /* the snapshot's entry, or NULL */
    uint32_t weight_bytes;        /* bytes per parameter as loaded: 4, or 2 for bf16/fp16 */
    uint32_t autocast_bytes;      /* 0 without autocast, else the autocast dtype's size */
    bool grad_checkpointing;
    OptKind optimizer;
    const char *optimizer_name;
    bool momentum;                /* SGD with momentum != 0 */
    uint32_t lora_r;              /* 0 without LoRA */
    uint32_t lora_targets;        /* bit per module kind (LORA_* in estimate.c) */
    int64_t batch, seq;           /* -1 when not found */
    ARENA_VEC(const char *) assumptions;
} EstimateConfig;

typedef struct Estimate {
    uint64_t params_total, params_trainable;
    uint64_t weights, gradients, optimizer_state;
} Estimate;

/* Reads the configuration; returns false (with *why) when no model was found. */
bool estimate_read(Syntax *s, const Ir *ir, EstimateConfig *cfg, const char **why);
void estimate_components(const EstimateConfig *cfg, Estimate *out);

#endif
