/* Facts several rules share, computed once per file. */
#ifndef PFC_ANALYSIS_H
#define PFC_ANALYSIS_H
#include "pass.h"
#include "../ir/modules.h"

/* What running a function (or a call) may do, transitively over the file. */
enum {
    EFF_BACKWARD = 1,     /* loss.backward(), accelerator.backward(loss), autograd.backward */
    EFF_STEP = 2,         /* optimizer.step() */
    EFF_ZERO_GRAD = 4,    /* optimizer/model.zero_grad(), p.grad = None */
    EFF_EVAL = 8,         /* model.eval() */
    EFF_TRAIN = 16,       /* model.train() */
    EFF_AUTOGRAD = 32,    /* torch.autograd.grad(...) */
    EFF_MODEL_CALL = 64,  /* runs a model forward */
    EFF_ITERATE = 128,    /* draws from a loader (in object summaries only) */
};

/* What a function does to which object (passes/object_effects.c): an effect
 * on an allocation site, or on a parameter (the argument of each call). */
enum { MODE_MAX_TARGETS = 8 };
typedef enum ModeTargetKind { MT_SITE, MT_PARAM } ModeTargetKind;
typedef struct ModeTarget {
    uint8_t effect;   /* EFF_EVAL, EFF_TRAIN, EFF_STEP, EFF_ZERO_GRAD or EFF_ITERATE */
    uint8_t kind;     /* ModeTargetKind */
    uint32_t id;      /* the site (IrValue.origin) or the parameter's position */
} ModeTarget;
typedef struct ModeSummary {
    uint8_t any;      /* effects on an object no site or parameter names (and past the bound) */
    uint8_t n;
    ModeTarget v[MODE_MAX_TARGETS];
} ModeSummary;

/* How a function is reached: model code runs under its caller's grad mode and
 * mode; unit tests are neither training nor evaluation. */
typedef enum CodeContext {
    CTX_OTHER = 0,  /* training, evaluation or library code: the rules decide */
    CTX_MODEL,      /* forward / forward_* of an nn.Module and what they call */
    CTX_TEST,       /* test_* functions and methods, unittest.TestCase methods */
} CodeContext;

typedef struct Analysis {
    Syntax *S;
    const Ir *ir;
    uint32_t *effects;        /* per function */
    ModeSummary *modes;       /* per function: effects by object, transitive over calls */
    uint32_t **loop_effects;  /* per function, per loop header block */
    uint8_t *called_with_grad;/* per function: some in-file call runs with grad enabled, from
                                 code that itself may run with grad enabled */
    uint32_t *ncalls;         /* per function: in-file call sites */
    uint8_t *context;         /* per function: a CodeContext */
    uint32_t *parents;        /* CST node -> parent node: an_parent builds it when first asked */
    const struct ParamFacts *params;   /* optimizers' parameter sets, adapters, freezing (ir/params.h) */
    ModuleFacts modules;      /* in-file nn.Module classes: registrations, forward's reach */
    bool uses_cuda;           /* the script moves work to a CUDA device */
    bool non_blocking;        /* some .to(..., non_blocking=True) */
    /* interned method names, so that matching is an integer test */
    uint32_t n_append, n_extend, n_appendleft, n_insert, n_add, n_clear, n_backward, n_step,
        n_zero_grad, n_eval, n_train, n_grad, n_item, n_to, n_cuda, n_forward, n_num_workers,
        n_pin_memory, n_non_blocking, n_training, n_module, n_orig_mod;
} Analysis;

/* The CST parent of a node (UINT32_MAX for the root). The table costs 4 bytes
 * a node: it is built the first time a report or a fix walks up the tree. */
uint32_t an_parent(Analysis *an, uint32_t node);

void analysis_init(Analysis *an, Syntax *S, const Ir *ir);

/* From the value `at` (an eval() call), along the control flow and the next
 * iterations of loops around it: is a backward() (or autograd.grad) reached
 * before the model is put back in train mode (train(), or a callee that
 * trains)? Scratch memory comes from A. */
bool an_backward_before_train(const Analysis *an, Arena *A, const IrFunction *f, ValueId at,
                              ValueId obj);

/* The object summaries: computed by analysis_init. */
void an_compute_object_effects(Analysis *an);
/* Is value id an eval() / train() (or a `.training = False/True` store)?
 * Returns EFF_EVAL, EFF_TRAIN or 0, and the receiver. */
uint32_t an_mode_change(const Analysis *an, const IrFunction *f, ValueId id, ValueId *recv);
/* Does value k put obj (a value of f; 0: any object) back in train mode: a
 * train() of it, or a call whose callee trains it (or an object pfc cannot name)? */
bool an_ends_mode(const Analysis *an, const IrFunction *f, ValueId k, ValueId obj);
/* dump-ir's ` objects=...` note: a function's summary, nothing when empty. */
struct Buf;
void an_note_object_effects(const Analysis *an, uint32_t fi, struct Buf *out);
/* May a and b (values of f; 0: unknown) be one object? No only when their
 * allocation sites differ or they are different attributes of one base. */
bool an_may_alias(const Analysis *an, const IrFunction *f, ValueId a, ValueId b);
/* The argument that call `call` of f passes for parameter `slot` of function fi, or 0. */
ValueId an_call_arg_for_param(const Analysis *an, const IrFunction *f, ValueId call, uint32_t fi,
                              uint32_t slot);

/* Is every in-file call of function fi made with grad disabled (directly or
 * through callers that run without grad)? */
bool an_runs_without_grad(const Analysis *an, uint32_t fi);

/* Does call v run a model's forward: the model itself, a submodule of it or
 * one of its own methods (`agent.get_action(obs)`, `model.network(batch)`)? */
bool an_runs_model(const Analysis *an, const IrFunction *f, const IrValue *v);

/* The code context of a function (see CodeContext). */
CodeContext an_context(const Analysis *an, const IrFunction *f);
/* Names for debugging dumps: "model", "test", "other"; an EFF_* bit's
 * "backward", "zero_grad", ... (NULL for a value that is not one bit). */
const char *an_context_name(CodeContext c);
const char *an_effect_name(uint32_t bit);

/* If v is `recv.<method>(...)`, returns true and the receiver. */
bool an_method_call(const IrFunction *f, const IrValue *v, uint32_t method, ValueId *recv);
/* Is recv, the receiver of a backward() call, an engine that takes the loss
 * as its argument (accelerator.backward(loss), a DeepSpeed engine's)? */
bool an_backward_engine(const Analysis *an, const IrFunction *f, ValueId recv);
/* Effects of one value: its own (a method call) and those of an in-file callee. */
uint32_t an_value_effects(const Analysis *an, const IrFunction *f, ValueId v);
/* Is block b inside the loop whose header is h (at any depth)? */
bool an_in_loop(const IrFunction *f, BlockId b, BlockId h);
/* Does v keep its identity across iterations of loop h (created before the
 * loop, carried by a header phi, or an attribute of such a value)? */
bool an_lives_across(const IrFunction *f, ValueId v, BlockId h);
/* What a `for` loop with header h iterates (its ITER_NEXT operand), or 0. */
ValueId an_loop_iterable(const IrFunction *f, BlockId h);
/* Does iterating `it` draw from the loader made at `origin` (IrValue.origin):
 * the loader itself, or zip/enumerate/iter/tqdm/itertools over it? */
bool an_draws_from(const Analysis *an, const IrFunction *f, ValueId it, uint32_t origin);
/* Effects of everything inside loop h. */
uint32_t an_loop_effects(const Analysis *an, const IrFunction *f, BlockId h);
/* Interned string equality. */
bool an_qual_is(const Analysis *an, uint32_t id, const char *s);
bool an_qual_prefix(const Analysis *an, uint32_t id, const char *prefix);
/* Does any value derived from `from` (through operations) reach a backward()? */
bool an_reaches_backward(const Analysis *an, const IrFunction *f, ValueId from);
/* The optimizer a step() call steps (optimizer.step(), scaler.step(opt)), or 0. */
ValueId an_stepped_optimizer(const Analysis *an, const IrFunction *f, const IrValue *v);
/* Does a value derived from `from` reach one of the function's returns? */
bool an_reaches_return(const Analysis *an, const IrFunction *f, ValueId from);
/* The k-th positional argument node of a CALL node, or the call node itself. */
uint32_t an_call_arg_node(const Syntax *S, uint32_t call, uint32_t k);
/* A CONST node's token kind / text helpers. */
bool an_is_const_zero(const Analysis *an, const IrFunction *f, ValueId v);

#endif
