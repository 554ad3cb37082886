/* The symbolic tensor trace: one forward pass recorded as ops over abstract
 * tensors (shape, dtype, requires-grad, saved-for-backward), and the memory
 * simulation of a training step over it.
 *
 * Every model source records through this one API: the architecture
 * snapshot's per-family forward descriptions (hf.c), torchvision's
 * constructors (vision.c) and models written in the script (interp.c). The
 * dtype rules of autocast, what autograd saves for each op and when the
 * caching allocator frees a block therefore live in one place (trace.c).
 *
 * Memory is counted as PyTorch's allocator counts it: every tensor's bytes
 * rounded up to 512. A tensor saved by several ops is counted once; a view
 * shares its base's storage. */
#ifndef PFC_TRACE_H
#define PFC_TRACE_H
#include "../base/arena.h"
#include <stdbool.h>
#include <stdint.h>

typedef enum DType { DT_F32, DT_BF16, DT_F16, DT_I64, DT_BOOL, DT_U8, DT__COUNT } DType;

uint32_t dtype_size(DType t);
const char *dtype_name(DType t);

#define TR_MAXDIM 6
/* A size the script gives that is a number but not an int64 (1.5, 2**64):
 * the shape check refuses it. */
#define TR_NOT_INT INT64_MIN
typedef uint32_t TId;   /* tensor handle; 0 is "none" */

typedef struct TTensor {
    int64_t dim[TR_MAXDIM];
    uint8_t nd, dtype;
    bool grad;          /* requires grad (part of the autograd graph) */
    bool saved;         /* some op saved it for backward */
    bool kept;          /* the script keeps it past the forward (an output it holds) */
    bool weight_copy;   /* autocast's 16-bit copy of a weight */
    bool input;         /* data the script made (tr_input) */
    TId base;           /* a view: the tensor whose storage it shares, else 0 */
    uint32_t producer;  /* 1 + index of the op that made it, 0 for inputs */
    uint32_t born;      /* 1 + index of the op during which it is allocated */
    uint32_t last_use;  /* 1 + index of the last op reading it in the forward */
    uint32_t first_saver;  /* 1 + index of the earliest op that saved it */
    uint32_t ckpt;      /* checkpoint region it was made in (0: none) */
} TTensor;

#define TR_MAXIN 4
typedef struct TOp {
    const char *name;
    TId in[TR_MAXIN];
    TId out;
    uint8_t nin;
    uint64_t workspace;          /* transient bytes while it runs (forward and backward) */
    uint32_t ckpt;
} TOp;

/* A parameter tensor (a weight or bias). Parameters are counted when created;
 * a shared (tied) parameter is created once and used twice. */
typedef struct TParam {
    uint64_t numel;
    uint8_t dtype;
    bool trainable;
    uint32_t last_op;     /* 1 + the last op using it: its .grad appears in that op's backward */
    TId autocast_copy;    /* the cached 16-bit copy within the autocast region */
    uint8_t bits;         /* 4 or 8: a bitsandbytes-quantized weight (frozen), 0 otherwise */
    bool double_quant;    /* 4-bit: its absmax quantized again (bnb_4bit_use_double_quant) */
    bool unheld;          /* no optimizer holds it: no state; trained, its .grad outlives the
                             optimizer's zero_grad() (autograd makes it, nothing frees it) */
} TParam;

enum { HEAD_AS_MODEL, HEAD_TRAINS, HEAD_FROZEN };
typedef struct Trace {
    Arena *arena;
    ARENA_VEC(TTensor) t;        /* t.v[0] unused */
    ARENA_VEC(TOp) ops;
    ARENA_VEC(TParam) params;
    /* state while recording */
    DType weight_dtype;          /* dtype new parameters get */
    DType autocast;              /* DT_F32 when autocast is off, else its 16-bit type */
    bool autocast_on;
    bool autocast_seen;          /* some op ran under autocast */
    DType autocast_seen_dtype;
    bool training;               /* module.training: dropout active */
    bool no_grad;                /* torch.no_grad(): nothing saved, nothing requires grad */
    bool frozen;                 /* new parameters are not trainable (PEFT base) */
    uint32_t head_w, head_b;     /* the parameters of the torchvision classifier built last */
    uint8_t head_grad;           /* a torchvision classifier the script replaced: HEAD_AS_MODEL,
                                    HEAD_TRAINS or HEAD_FROZEN (as the replacement was) */
    DType quant_compute;         /* bnb 4-bit: the dtype its weights are dequantized to */
    uint32_t grad_shards;        /* FSDP, ZeRO-2/3 over N ranks: each .grad is reduce-scattered as
                                    the backward makes it, a rank keeps 1/N (0, 1: whole) */
    uint32_t ckpt, nckpt;        /* current checkpoint region */
    uint64_t buffer_bytes;       /* registered buffers (masks, BatchNorm statistics) */
    uint32_t head_op;            /* ops from here on are the logits and loss (0: none) */
    uint32_t layers;             /* repeated blocks (FSDP gathers one or two at a time) */
    uint64_t steps;              /* guard against runaway recording */
    uint32_t assumed;            /* ops recorded by tr_assumed (not modelled) */
    bool overflow;               /* too many ops: the caller reports it */
    /* A refusal: a shape, size or count the estimate cannot take as meant
     * (not positive, too large, more memory than an estimate may use). The
     * first one is kept with `site`, the caller's source node at the time
     * (the interpreter sets it), so the report can say where. */
    const char *error;
    uint32_t site, error_site;
} Trace;

void tr_init(Trace *tr, Arena *a);
/* Records a refusal (the first one wins); recording goes on with safe values. */
void tr_refuse(Trace *tr, const char *why);
/* Whether every dimension is 1 .. CK_DIM_MAX and the elements at most
 * CK_NUMEL_MAX; if not, refuses (what names the tensor's maker) and replaces
 * the bad dimensions by 1 so that nothing downstream divides by zero or
 * loops over them. */
bool tr_check_shape(Trace *tr, const char *what, int nd, int64_t *dim);

/* ---- tensors ---- */
TId tr_input(Trace *tr, DType dt, int nd, const int64_t *dim);   /* data the script feeds */
TId tr_input2(Trace *tr, DType dt, int64_t a, int64_t b);
uint64_t tr_numel(const Trace *tr, TId x);
uint64_t tr_bytes(const Trace *tr, TId x);
int64_t tr_dim(const Trace *tr, TId x, int i);   /* negative i counts from the end */
DType tr_dtype(const Trace *tr, TId x);
void tr_keep(Trace *tr, TId x);                  /* the script holds it after the forward */
TId tr_new(Trace *tr, DType dt, int nd, const int64_t *dim);   /* made on the GPU, no grad */
TId tr_detach(Trace *tr, TId x);                 /* the same storage, out of the graph */
/* A buffer an op fills in the forward and the backward reads (a fused
 * kernel's precomputed gradients): saved until the backward. */
TId tr_hold(Trace *tr, DType dt, int nd, const int64_t *dim);

/* ---- parameters ---- */
uint32_t tr_param(Trace *tr, uint64_t numel);              /* returns a param index + 1 */
uint32_t tr_param_dtype(Trace *tr, uint64_t numel, DType dt, bool trainable);
/* A bitsandbytes weight of numel values: 4-bit (NF4/FP4: two values a byte,
 * one fp32 absmax per block of 64, or with double quantization an 8-bit
 * absmax and one fp32 per 256 blocks) or 8-bit (LLM.int8: a byte each).
 * Never trainable; a linear on a 4-bit weight dequantizes it to
 * tr->quant_compute while it runs, forward and backward. */
uint32_t tr_param_quantized(Trace *tr, uint64_t numel, int bits, bool double_quant);
/* A parameter's bytes as stored (before the allocator's rounding). */
uint64_t tr_param_storage(const TParam *p);
void tr_buffer(Trace *tr, uint64_t bytes);
void tr_param_drop(Trace *tr, uint32_t p);       /* replaced by a tied parameter */

/* ---- ops (what autograd saves and the dtype autocast picks, per op) ---- */
TId tr_linear(Trace *tr, TId x, int64_t out, uint32_t w, uint32_t b);
TId tr_matmul(Trace *tr, TId a, TId b);      /* batched: a[..., m, k] @ b[..., k, n] */
/* A product of two tensors whose output shape the caller gives (einsum,
 * outer, matmul): each operand is kept for the other's gradient. */
TId tr_contract(Trace *tr, const char *name, TId a, TId b, int nd, const int64_t *dim);
/* x * p or x / p (product) and x + p, x - p with an nn.Parameter p that
 * broadcasts to x's shape: a product keeps x for p's gradient. */
TId tr_with_param(Trace *tr, TId x, uint32_t p, bool product);
/* Indexing by a tensor (x[idx], gather, index_select): a new tensor of the
 * given shape; the backward keeps only the index. */
TId tr_gather(Trace *tr, TId x, TId index, int nd, const int64_t *dim);
/* An op pfc does not model, taken conservatively as elementwise: x's shape
 * and dtype, x kept for the backward. Counted in tr->assumed. */
TId tr_assumed(Trace *tr, const char *name, TId x);
TId tr_embedding(Trace *tr, TId ids, int64_t d, uint32_t w);
/* A convolution's or pooling window's geometry over a tensor's last nsp
 * (1 to 3) dimensions, one value per spatial dimension as torch takes them
 * (kernel_size=(3, 5), stride=(1, 2), ...). */
#define TR_MAXSP 3
typedef struct Window {
    int nsp;
    int64_t k[TR_MAXSP], stride[TR_MAXSP], pad[TR_MAXSP], dil[TR_MAXSP], out_pad[TR_MAXSP];
    bool ceil_mode;   /* pooling: sides round up */
    bool same;        /* conv padding="same": each side keeps its size */
} Window;
/* A square window: every side k, stride, pad; dilation 1. */
Window tr_window(int nsp, int k, int stride, int pad);
/* ConvNd on (N, C, *spatial) or unbatched (C, *spatial): saves input and
 * weight; a wrong rank is refused (torch raises), returning 0. */
TId tr_conv(Trace *tr, TId x, int64_t cout, const Window *win, uint32_t w, uint32_t b);
TId tr_conv_transpose(Trace *tr, TId x, int64_t cout, const Window *win, uint32_t w, uint32_t b);
/* Max (input and int64 indices saved) or average (input saved) pooling. */
TId tr_pool(Trace *tr, TId x, const Window *win, bool max);
/* Adaptive pooling to out[0..nsp) (0: the input's side). */
TId tr_adaptive(Trace *tr, TId x, int nsp, const int64_t *out, bool max);
TId tr_conv2d(Trace *tr, TId x, int64_t cout, int k, int stride, int pad, int groups,
              uint32_t w, uint32_t b);
TId tr_conv_transpose2d(Trace *tr, TId x, int64_t cout, int k, int stride, int pad, int out_pad,
                        uint32_t w, uint32_t b);
TId tr_pool2d(Trace *tr, TId x, int k, int stride, int pad, bool max);
TId tr_adaptive_pool(Trace *tr, TId x, int64_t oh, int64_t ow);
TId tr_batch_norm(Trace *tr, TId x, uint32_t w, uint32_t b);
/* InstanceNorm over (N, C, *spatial) or unbatched (C, *spatial), nsp
 * spatial dimensions: saves x and fp32 statistics per sample and channel. */
TId tr_instance_norm(Trace *tr, TId x, int nsp, uint32_t w, uint32_t b);
TId tr_layer_norm(Trace *tr, TId x, uint32_t w, uint32_t b);
TId tr_rms_norm_hf(Trace *tr, TId x, uint32_t w);     /* HF: fp32 upcast inside */
/* nn.GroupNorm over (N, C, ...): fp32 under autocast, as layer_norm. */
TId tr_group_norm(Trace *tr, TId x, int64_t groups, uint32_t w, uint32_t b);

typedef enum Act { ACT_RELU, ACT_GELU, ACT_GELU_TANH_PY, ACT_SILU, ACT_TANH, ACT_SIGMOID,
                   ACT_HARDSWISH, ACT_HARDSIGMOID, ACT_RELU6 } Act;
TId tr_act(Trace *tr, TId x, Act a, bool inplace);
TId tr_dropout(Trace *tr, TId x, double p);
TId tr_add(Trace *tr, TId a, TId b);        /* also sub; broadcasting */
TId tr_mul(Trace *tr, TId a, TId b);        /* elementwise; saves the operands */
TId tr_scale(Trace *tr, TId x);             /* x * python scalar: saves nothing */
TId tr_softmax(Trace *tr, TId x, bool log);
TId tr_masked_fill(Trace *tr, TId x);
TId tr_cast(Trace *tr, TId x, DType dt);
TId tr_view(Trace *tr, TId x, int nd, const int64_t *dim);   /* a view: no storage */
TId tr_copy(Trace *tr, TId x, int nd, const int64_t *dim);   /* contiguous()/reshape copy */
/* A new tensor of the given shape made from x whose backward needs none of
 * the forward's tensors (F.interpolate nearest, F.pad): `name` is the op. */
TId tr_remap(Trace *tr, const char *name, TId x, int nd, const int64_t *dim);
/* The same, for an op whose backward reads x (reflection and replication
 * padding: their backward takes `self`): x is saved. */
TId tr_remap_keep(Trace *tr, const char *name, TId x, int nd, const int64_t *dim);
TId tr_cat(Trace *tr, const TId *xs, int n, int axis);
TId tr_slice_last(Trace *tr, TId x, int64_t n);              /* x[..., :n] as a view */
/* Attention by a fused kernel (flash / memory-efficient): saves q, k, v, the
 * output and the log-sum-exp. q, k, v are (b, h, s, hd). */
TId tr_sdpa(Trace *tr, TId q, TId k, TId v, double dropout);
/* The same with an additive mask (b, h, s_q, s_k) that the backward reads:
 * saved with the rest, in the kernel's dtype. */
TId tr_sdpa_bias(Trace *tr, TId q, TId k, TId v, TId bias, double dropout);
TId tr_cross_entropy(Trace *tr, TId logits, TId target);   /* log_softmax + nll */
TId tr_nll_loss(Trace *tr, TId logp, TId target);          /* on log-probabilities */
TId tr_mse(Trace *tr, TId pred);
TId tr_reduce(Trace *tr, TId x);                             /* sum/mean to a scalar */
TId tr_reduce_to(Trace *tr, TId x, int nd, const int64_t *dim);   /* along some dimensions */
/* cuDNN LSTM (gates 4) or GRU (gates 3) over (b, s, in), one or two
 * directions: saves input, weights (w: one per layer), output and its
 * reserve space */
TId tr_lstm(Trace *tr, TId x, int64_t hidden, int layers, int gates, int directions, double dropout,
            uint32_t *w);

/* Gradient checkpointing: ops between begin and end save only the region's
 * input; their saved tensors come back during the backward (recomputation). */
void tr_ckpt_begin(Trace *tr, TId input);
void tr_ckpt_end(Trace *tr);

/* ---- totals ---- */
typedef struct ParamTotals {
    uint64_t total, trainable, bytes, trainable_bytes, frozen_bytes;   /* bytes as allocated */
    uint64_t raw_bytes, raw_trainable_bytes;                          /* numel x size, unrounded */
    uint64_t trainable_tensors;
    /* the trainable parameters an optimizer holds (its state is theirs), and
     * the bytes of the .grad of those none holds */
    uint64_t held, held_bytes, raw_held_bytes, held_tensors, unheld_grad_bytes;
} ParamTotals;
void tr_param_totals(const Trace *tr, ParamTotals *out);
/* Whether any op read a parameter: false when the model was built but its
 * forward never ran (only construction, buffers and inputs were recorded). */
bool tr_params_used(const Trace *tr);

/* Memory through one forward and backward, relative to what existed before
 * it. Live bytes are split by kind: the "head" is what the trace recorded
 * from Trace.head_op on (logits and loss), weight copies are autocast's. */
typedef struct LiveSplit { uint64_t body, head, copies, grads, param_grads; } LiveSplit;
typedef struct PassMemory {
    uint64_t fwd_peak;        /* most live bytes during the forward */
    LiveSplit at_fwd_peak;
    uint64_t saved;           /* live at the end of the forward (saved + kept) */
    uint64_t weight_copies;   /* of which autocast's weight copies */
    uint64_t bwd_peak;        /* most live bytes during the backward, parameter grads included */
    LiveSplit at_bwd_peak;
    uint64_t kept;            /* still live after the backward (kept outputs, inputs) */
    uint64_t kept_outputs;    /* of which the model's outputs the script holds */
    uint64_t graph;           /* what the autograd graph holds (saved, not recomputed) */
} PassMemory;

/* Every tensor's and parameter's bytes added up (saturating): when this is
 * under CK_BYTES_MAX no sum the simulation forms can wrap. */
uint64_t tr_total_bytes(const Trace *tr);

/* grads_exist: the parameters' .grad already exist (no new allocation). */
void tr_simulate(const Trace *tr, bool backward, bool grads_exist, PassMemory *out);
/* A later step's backward when some trainable parameters are held by no
 * optimizer: their .grad exist already (the caller counts them), the others'
 * are made in the backward. */
void tr_simulate_unheld_kept(const Trace *tr, PassMemory *out);

uint64_t alloc_round(uint64_t bytes);
void tr_dump(const Trace *tr, void (*emit)(void *ctx, const char *line), void *ctx);   /* the caching allocator's 512-byte rounding */

#endif
