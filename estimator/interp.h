/* The estimator's abstract interpreter: runs the script's IR over abstract
 * values (Python constants, containers, in-file objects, nn modules and
 * symbolic tensors) and records every GPU tensor op into a Trace.
 *
 * Functions defined in the file (a model's __init__ and forward, a dataset's
 * __getitem__, get_batch()) are executed block by block, following branches
 * whose condition is known and iterating loops over known sequences. The
 * script's top level is evaluated on demand: the driver asks for the value
 * that reaches backward() (or the model's output), and only what it depends
 * on is computed, so a training loop is never run, only one step of it. */
#ifndef PFC_INTERP_H
#define PFC_INTERP_H
#include "../ir/ir.h"
#include "trace.h"

typedef enum AKind {
    AV_UNKNOWN, AV_NONE, AV_BOOL, AV_INT, AV_FLOAT, AV_STR, AV_SEQ, AV_DICT, AV_SLICE,
    AV_TENSOR, AV_DTYPE, AV_DEVICE, AV_QUAL, AV_FUNC, AV_CLASS, AV_OBJECT, AV_BOUND,
    AV_PARAM, AV_ELLIPSIS, AV_SUPER,
} AKind;

typedef struct Obj Obj;
typedef struct AVal AVal;
typedef struct InterpModule InterpModule;   /* a module of the project being interpreted */

struct AVal {
    uint8_t k;
    bool transposed;       /* a tensor whose memory is not dense row-major (permuted or a slice) */
    uint8_t perm[6];       /* memory order of the dimensions when permuted (perm[i] = the
                              logical dim stored i-th); all zero means row-major */
    bool gpu;              /* a tensor on the GPU (a trace tensor) */
    uint8_t nd, dtype;     /* tensors (also CPU ones) */
    int64_t i;             /* INT / BOOL; SLICE: which of start/stop/step are given (bits) */
    double f;
    const char *s;         /* STR text, QUAL qualified name, BOUND method name */
    int64_t dim[TR_MAXDIM];
    TId t;                 /* GPU tensor */
    uint32_t n;            /* SEQ / DICT / SLICE items */
    AVal **items;
    const char **keys;     /* DICT keys */
    int fn;                /* FUNC: function index; CLASS, SUPER: class index */
    InterpModule *mod;     /* FUNC / CLASS / SUPER: the module whose IR fn indexes */
    AVal *self;            /* FUNC bound to an instance; BOUND receiver; SUPER's instance */
    Obj *obj;              /* OBJECT */
    uint32_t param;        /* PARAM: trace parameter handle */
    const char *origin;    /* a configuration value: where it was read ("ModelArguments
                              default, line 12"); UNKNOWN: the required argument it lacks */
    const char *cli;       /* a configuration value: the words after `pfc estimate SCRIPT --`
                              that give it, NAME where the value goes ("--model NAME",
                              "train MODEL_NAME"); NULL when none is known */
};

/* Library module kinds (torch.nn.*) and in-file instances share Obj. */
typedef enum NnKind {
    NN_NONE, NN_LINEAR, NN_EMBEDDING, NN_LAYERNORM, NN_RMSNORM, NN_CONV2D, NN_CONVT2D, NN_BATCHNORM,
    NN_LSTM, NN_DROPOUT, NN_RELU, NN_GELU, NN_SILU, NN_TANH, NN_SIGMOID, NN_SOFTMAX,
    NN_FLATTEN, NN_MAXPOOL, NN_AVGPOOL, NN_ADAPTIVEPOOL, NN_ADAPTIVEMAX, NN_INSTANCENORM, NN_RESAMPLE,
    NN_PIXELSHUFFLE, NN_PAD, NN_SEQUENTIAL, NN_MODULELIST,
    NN_MODULEDICT, NN_IDENTITY, NN_CE_LOSS, NN_NLL_LOSS, NN_MSE_LOSS, NN_MHA, NN_TLAYER, NN_TDLAYER,
    NN_TSTACK, NN_TRANSFORMER, NN_HF, NN_VISION, NN_DIFFUSERS, NN_OPAQUE,
    NN_OPTIMIZER, NN_LOADER, NN_OUTPUT,
} NnKind;

enum { OPAQUE_NO_GRAD = 1, OPAQUE_AUTOCAST = 2, OPAQUE_ENABLE_GRAD = 3, OPAQUE_TRAINER = 10,
       OPAQUE_ARGS = 11, OPAQUE_ARGPARSER = 12, OPAQUE_ACCELERATOR = 13, OPAQUE_TRANSFORM = 14,
       OPAQUE_HFPARSER = 15, OPAQUE_FILE = 16, OPAQUE_SUBPARSERS = 17, OPAQUE_PL_TRAINER = 18,
       OPAQUE_PL_CLI = 19, OPAQUE_SCHEDULER = 20, OPAQUE_COMPONENT = 21,
       OPAQUE_LAYER = 22, /* a torch.nn layer without parameters that pfc does not model; arch: its name */
       OPAQUE_FABRIC = 23 /* Lightning's Fabric; b: the autocast dtype of its precision (DT_F32: none) */ };

struct Obj {
    int cls;               /* class index in mod's IR, or -1 */
    InterpModule *mod;     /* the module that defines cls */
    NnKind nn;
    bool is_module;
    uint32_t nattr, cap;
    const char **names;
    AVal **vals;
    /* library modules */
    int64_t a, b, c;       /* NN_LINEAR in/out; CONV in/out/k; LSTM in/hidden/layers... */
    int k, stride, pad, groups;
    double p;              /* dropout probability */
    uint32_t w, bias;      /* trace parameters */
    uint32_t *wall;        /* LSTM, attention and Transformer layers: their weights, as many
                              as the layer has (nwall, allocated with the layer) */
    uint32_t nwall;
    const Window *win;     /* convolutions and pools: the window's geometry, per spatial side */
    const void *arch;      /* NN_HF: Arch; NN_VISION: name; NN_DIFFUSERS: UNetConfig;
                              Transformer layers: LayerConf */
    /* a library model (NN_HF, NN_VISION, NN_DIFFUSERS) records its parameters
     * when it runs: frozen (requires_grad_(False) before that) makes them
     * frozen, and [params_from, params_to) are their trace indices after */
    bool frozen;
    uint32_t params_from, params_to;
};

typedef struct Interp Interp;

/* Where the project's other modules come from: `dotted` as a file of the
 * project imports it from the file at `importer` (its directory first, then
 * the package root). Gives the module's syntax and IR, which stay valid for
 * the run, and its path; false when it is not a module of the project (a
 * library, a missing file, one that does not parse). */
typedef struct ModuleSource {
    void *ctx;
    bool (*load)(void *ctx, const char *importer, const char *dotted, Syntax **S, const Ir **ir,
                 const char **path);
} ModuleSource;

/* What the driver tells the interpreter about the script's configuration,
 * and how library models are recorded. */
typedef struct InterpHooks {
    void *ctx;
    /* from_pretrained(NAME) / torchvision constructor: sets up an Obj (nn
     * NN_HF or NN_VISION); false if unknown */
    bool (*library_model)(void *ctx, Interp *in, const char *qual, AVal **args, const char **kw,
                          uint32_t n, Obj *out);
    /* calling such a model: records its forward, returns its output */
    AVal *(*call_model)(void *ctx, Interp *in, Obj *model, AVal **args, const char **kw, uint32_t n);
    ModuleSource modules;   /* none: names imported from the project stay unknown */
    const char *path;       /* the script's path, where its imports resolve from */
} InterpHooks;

Interp *interp_new(Arena *a, Syntax *S, const Ir *ir, Trace *tr, const InterpHooks *hooks);
/* Evaluates value v of function fi on demand (memoized per function frame). */
AVal *interp_eval(Interp *in, int fi, ValueId v);
/* Values for the driver */
AVal *av_tensor_new(Interp *in, DType dt, int nd, const int64_t *dim, bool gpu);
AVal *av_tensor_of(Interp *in, TId t);
AVal *av_int(Interp *in, int64_t i);
AVal *av_unknown(Interp *in);
AVal *av_obj(Interp *in, NnKind kind);
void obj_set(Interp *in, Obj *o, const char *name, AVal *v);
/* d[key] = val in place, keeping insertion order; the value it replaced goes to *prior
 * (left as it was when the key is new; prior may be NULL). */
void dict_set(Interp *in, AVal *d, const char *key, AVal *val, AVal **prior);
AVal *obj_get(Obj *o, const char *name);
/* The GPU tensor a value stands for (moving a CPU tensor in), or 0. */
TId av_gpu(Interp *in, AVal *v);
bool av_int_of(const AVal *v, int64_t *out);
const char *interp_error(const Interp *in);   /* why evaluation gave up, or NULL */
/* Where a layer first received something that is not a tensor, or NULL. */
const char *interp_lost(const Interp *in);
/* where a model was picked from a module by a name pfc cannot read, or NULL */
const char *interp_factory_unread(const Interp *in);
/* What the interpretation assumed; *n gets the count. */
const char *const *interp_notes(const Interp *in, uint32_t *n);
uint64_t interp_steps(const Interp *in);

#endif
