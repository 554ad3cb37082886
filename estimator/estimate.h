/* pfc estimate: the peak GPU memory of one training (or evaluation) step of
 * a script, per rank, without running it.
 *
 * estimate_read scans the IR for the script's configuration (optimizer,
 * precision, autocast, gradient checkpointing, LoRA, accumulation, sharding).
 * estimate_run interprets the script (interp.c) to record one forward of its
 * model into a trace (trace.c), simulates the memory of the step's phases
 * (simulate.c) and puts the peak together. Changes a user could make are
 * evaluated by running it again with a changed configuration (remedy.c). */
#ifndef PFC_ESTIMATE_H
#define PFC_ESTIMATE_H
#include "../ir/ir.h"
#include "arch.h"
#include "interp.h"

typedef enum OptKind { OPT_NONE, OPT_ADAM, OPT_SGD, OPT_ADAM8BIT, OPT_ADAFACTOR, OPT_SLOTS, OPT_OTHER } OptKind;
/* FSDP's strategies: SHARD_FSDP is FULL_SHARD (the default), GRAD_OP keeps the
 * parameters whole (as ZeRO-2), HYBRID fully shards within a node and
 * replicates across nodes, NO_SHARD replicates (as DDP). */
typedef enum Shard {
    SHARD_NONE, SHARD_DDP, SHARD_FSDP, SHARD_ZERO1, SHARD_ZERO2, SHARD_ZERO3,
    SHARD_FSDP_GRAD_OP, SHARD_FSDP_HYBRID, SHARD_FSDP_NONE,
} Shard;

/* What the script does (read) and what the user changes (options, remedies). */
typedef struct EstimateConfig {
    uint32_t weight_bytes;        /* 4, or 2 when loaded / converted to 16 bits */
    bool weight_fp16;             /* 16-bit weights are fp16 (else bf16) */
    bool grad_checkpointing;
    bool eager_attention;         /* attn_implementation="eager" */
    OptKind optimizer;
    const char *optimizer_name;
    bool momentum, nesterov, weight_decay, fused, foreach_off;
    int state_slots;              /* OPT_SLOTS: parameter-sized state tensors */
    bool set_to_none;             /* zero_grad(set_to_none=True), the default */
    bool zero_grad_model;         /* model.zero_grad(): every parameter's .grad, not only the
                                     optimizer's, is freed */
    bool train_called, eval_called;   /* model.train() / model.eval() in the script */
    bool zero_grad_mid;           /* zero_grad() between the forward and backward():
                                     the previous step's .grad lives through the forward */
    uint32_t lora_r;              /* 0 without LoRA */
    int quant_bits;               /* bitsandbytes 4- or 8-bit loading (0: none) */
    bool quant_double;            /* bnb_4bit_use_double_quant */
    int quant_compute;            /* bnb_4bit_compute_dtype as a DType; -1: bnb's default (fp32) */
    bool kbit_prepared;           /* peft.prepare_model_for_kbit_training: the rest upcast to fp32 */
    bool load_dtype_given;        /* from_pretrained(torch_dtype=...) */
    uint32_t lora_targets;        /* LORA_* bits (hf.h) */
    double lora_dropout;
    int64_t accumulation;         /* gradient accumulation steps */
    bool trainer;                 /* the Hugging Face Trainer runs the loop */
    bool trainer_autocast;        /* TrainingArguments(bf16=True / fp16=True) */
    bool trainer_fp16;
    int accelerate_mp;            /* Accelerator(mixed_precision=): 0 no, 1 bf16, 2 fp16 */
    bool master_weights;          /* DeepSpeed bf16/fp16: fp32 master weights in the optimizer */
    bool cache_off;               /* model.config.use_cache = False */
    Shard shard;
    int64_t world_size;
    int64_t local_world_size;     /* GPUs per node (HYBRID_SHARD shards over these); 0: unknown */
    bool distributed;             /* init_process_group, DDP, FSDP, DeepSpeed or Accelerate seen */
    bool paged_optimizer;         /* bitsandbytes Paged*: the state in CUDA managed memory */
    bool offload_optimizer;       /* DeepSpeed offload_optimizer to cpu/nvme: state off the GPU */
    bool offload_param;           /* DeepSpeed ZeRO-3 offload_param: weights off the GPU */
    bool compiled;                /* torch.compile: estimated as eager (unmeasured) */
    int64_t ds_micro_batch;       /* DeepSpeed train_micro_batch_size_per_gpu (0: not given) */
    const char *script_path;      /* input, kept by estimate_read: configs are read beside it */
    const char *refusal;          /* a configuration the script names cannot be read */
    bool chunked_ce;              /* remedy: the loss computed in chunks (no full logits copies) */
    /* overrides from the command line and remedies (0: as the script says) */
    int64_t batch, seq;
    int precision;                /* 0 as written, 1 fp32, 2 bf16 weights, 3 fp32 + bf16 autocast */
    ARENA_VEC(const char *) assumptions;
    /* the script's command line after `--`, --model NAME, the script's path
     * (kept by estimate_read) */
    const char *const *script_args;
    uint32_t nscript_args;
    const char *model_override;
    /* the project's other modules (none: only the script is read) and the
     * script's path (script_path), where its imports resolve from */
    ModuleSource modules;
    /* debugging: each recorded op, one line each (pfc estimate --trace) */
    void (*trace_out)(void *ctx, const char *line);
    void *trace_ctx;
} EstimateConfig;

typedef struct Estimate {
    uint64_t params_total, params_trainable;
    uint64_t weights, buffers, gradients, optimizer_state, step_temp;   /* at the peak */
    uint64_t all_gradients, all_state;   /* the components in full, wherever the peak is */
    uint64_t raw_weights;                /* parameter bytes, unrounded */
    uint64_t paged_state;                /* paged optimizer state, outside the allocator (managed) */
    uint64_t activations, autocast_cache, logits_loss, retained;   /* at the peak */
    uint64_t allocated_peak, reserved_peak;
    uint64_t projected_peak, projected_low, projected_high;
    const char *peak_phase;
    struct { const char *name; uint64_t total; } phases[8];   /* every phase simulated */
    uint32_t nphases;
    uint64_t saved_end_of_forward;   /* saved + kept when the forward returns */
    const char *model;            /* what was estimated, for the report */
    int64_t batch, seq;           /* as found (0 when not found) */
    int64_t image_size;           /* a torchvision model's input side (0: not an image model) */
    bool training;
    bool hf;                      /* a Hugging Face model from the snapshot */
    bool builtin;                 /* known by name (snapshot or torchvision) */
    const char *model_file;       /* the project file that defines its class; NULL: the script */
    int weight_dtype, autocast_dtype;   /* DType; autocast_dtype -1 without autocast */
    const char **notes;           /* what the interpretation assumed */
    uint32_t nnotes;
    uint32_t ops_traced;          /* tensor ops the step was followed through */
    uint32_t ops_assumed;         /* of them, ops pfc does not model (taken as elementwise) */
    uint32_t error_line;          /* a refusal: the line of the call that caused it (0: none) */
    int64_t accumulation;         /* the gradient accumulation the phases used: the
                                     configuration's, the loop's or a framework's */
    const char *optimizer_name;   /* the step's optimizer when the interpretation found it (a
                                     framework's configure_optimizers); NULL: the configuration's */
} Estimate;

/* Reads the configuration; always succeeds (what it cannot see it assumes;
 * a configuration file it cannot read sets cfg->refusal). cfg->script_path
 * is kept: a DeepSpeed JSON named in the script is read beside it. */
void estimate_read(Syntax *s, const Ir *ir, EstimateConfig *cfg);

/* The optimizer a framework built while the step was interpreted (an
 * NN_OPTIMIZER object with __class__ and its keywords: Lightning's
 * configure_optimizers), when the script's reading found none. */
void estimate_step_optimizer(Syntax *s, const Ir *ir, EstimateConfig *cfg, Obj *o);

/* What each sharding mode splits over the ranks (one definition for the
 * phases and the backward's gradients). */
bool shard_splits_state(const EstimateConfig *cfg);
bool shard_splits_grads(const EstimateConfig *cfg);
bool shard_splits_params(const EstimateConfig *cfg);
/* The ranks a sharded tensor is split over: the world, or the node for HYBRID_SHARD. */
uint64_t shard_ranks(const EstimateConfig *cfg);
const char *shard_name(Shard s);
/* The world size: --world-size N (option > 0), else WORLD_SIZE / LOCAL_WORLD_SIZE
 * as torchrun and accelerate set them (NULL when unset), else the instance's
 * GPU count for a sharded script; an assumption line says where it came from. */
void estimate_world(EstimateConfig *cfg, Arena *a, int64_t option, const char *env_world,
                    const char *env_local, uint32_t count);
/* Interprets and simulates; false with *why when the model could not be read. */
/* Whether the script (its syntax and IR) places its model or tensors on a
 * GPU anywhere: .cuda(), .to(device), device="cuda", a placing framework
 * (placement.c). */
bool estimate_places_on_gpu(Syntax *s, const Ir *ir);
bool estimate_run(Syntax *s, const Ir *ir, const EstimateConfig *cfg, Estimate *out,
                  const char **why);

/* The CUDA context and cuBLAS workspace outside the allocator (measured on
 * an H200: 0.61 GiB after init, 0.67 GiB with cuBLAS). */
#define CUDA_CONTEXT_BYTES 718077952ull

#endif
