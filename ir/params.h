/* ir/params: what the optimizers of a file hold and what happens to the
 * models' parameters. Computed after the facts fixpoint from its object
 * identities (IrValue.origin): an optimizer's parameter sources name the
 * model object (allocation site) they come from, and every adapter, freeze,
 * checkpointing call or attribute store names the object it changes. Rules
 * TG101-TG106 and TG302 ask these, never the syntax tree. */
#ifndef PFC_PARAMS_H
#define PFC_PARAMS_H
#include "ir.h"

/* How a parameter source selects from the parameters it iterates. */
typedef enum ParamFilter {
    PF_ALL,            /* model.parameters() */
    PF_REQUIRES_GRAD,  /* filter(lambda p: p.requires_grad, ...), [p for p in ... if p.requires_grad] */
    PF_NAME,           /* [p for n, p in model.named_parameters() if "lora" in n] */
    PF_OTHER,          /* some other condition */
} ParamFilter;

/* The parameters of model object `site` (0: not known), or of its attribute
 * `part` (an interned name; 0: the whole model). */
typedef struct ParamSource { uint32_t site, part; uint8_t filter; } ParamSource;

enum { PARAMS_MAX_SOURCES = 8 };

typedef struct OptimizerFact {
    uint32_t fn;                 /* function of the constructor call */
    ValueId at;                  /* the call torch.optim.X(...) */
    uint32_t site;               /* its allocation site */
    ParamSource src[PARAMS_MAX_SOURCES];
    uint32_t nsrc;
    bool unknown;                /* some parameters come from where pfc cannot tell */
} OptimizerFact;

typedef enum ModelEventKind {
    ME_ADAPTER,      /* get_peft_model, LoraModel, inject_adapter_in_model, add_adapter */
    ME_KBIT_PREP,    /* prepare_model_for_kbit_training: freezes the base, enables input grads */
    ME_CHECKPOINT,   /* gradient_checkpointing_enable(), or a Trainer whose args ask for it */
    ME_INPUT_GRADS,  /* enable_input_require_grads(), a hook on get_input_embeddings() */
    ME_GRAD_WRITE,   /* x.requires_grad_(...), p.requires_grad = ... */
    ME_ATTR_STORE,   /* model.<part> = <a new module> */
} ModelEventKind;

/* ME_ADAPTER's value: HF's model.add_adapter() (its checkpointing enables
 * input gradients itself) rather than a PEFT wrapper. */
enum { ADAPTER_WRAPPED = 0, ADAPTER_IN_PLACE = 1 };

/* A requires_grad value written, or whether checkpointing is reentrant. */
typedef enum GradValue { GV_FALSE, GV_TRUE, GV_UNKNOWN } GradValue;

typedef struct ModelEvent {
    uint8_t kind;        /* ModelEventKind */
    uint8_t value;       /* GRAD_WRITE: the GradValue written; CHECKPOINT: reentrant or not */
    bool whole;          /* GRAD_WRITE: every parameter of the object, unconditionally */
    uint32_t site;       /* the model object, 0 if not known */
    uint32_t part;       /* the attribute below it, or 0 */
    uint32_t added;      /* ATTR_STORE: the new module's site (it holds parameters) */
    uint32_t fn;         /* where it happens, as the function fn sees it: */
    ValueId at;          /*   the value itself, or the call of the helper that does it */
    uint32_t node;       /* the statement's CST node, for findings */
} ModelEvent;

/* A floating-point type named in a configuration. */
typedef enum DtypeName { DT_UNKNOWN, DT_FP16, DT_BF16, DT_FP32 } DtypeName;

/* A dtype some configuration asks for, and the CST node that says so. */
typedef struct DtypeFact { uint32_t fn, node; uint8_t dtype; } DtypeFact;

typedef struct ParamFacts {
    ARENA_VEC(OptimizerFact) optimizers;
    ARENA_VEC(ModelEvent) events;   /* own events first, then those lifted to callers */
    bool unknown_grad_write;        /* a requires_grad write on an object pfc cannot name */
    /* BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_compute_dtype=...): the compute dtype */
    ARENA_VEC(DtypeFact) quant_compute;
    /* the training precision: TrainingArguments(bf16=True), Accelerator(mixed_precision=...),
     * autocast(dtype=...), Lightning's Trainer(precision=...); DT_UNKNOWN when not a literal */
    ARENA_VEC(DtypeFact) precision;
    /* LoraConfig(r=...) literal ranks (0 when not a literal) */
} ParamFacts;

/* Computes the facts of a file whose IR facts are computed. Memory from A. */
ParamFacts *params_collect(const Ir *ir, Arena *A);

/* The source offset of value v of function fn: program order within fn. */
uint32_t params_pos(const Ir *ir, uint32_t fn, ValueId v);
/* The first value of fn (in source order) that is object `site`, or 0. */
ValueId params_first_seen(const Ir *ir, uint32_t fn, uint32_t site);
/* Is object `site` used in fn (a method called on it, passed to a call, put
 * in a container) at a source offset after pos? */
bool params_used_after(const Ir *ir, uint32_t fn, uint32_t site, uint32_t pos);
/* Do the optimizers of the file hold the parameters of object `site` (some
 * source names it, its whole or the part `part`)? */
bool params_held(const ParamFacts *P, uint32_t site, uint32_t part);
/* Is any optimizer's parameter set not known? */
bool params_any_unknown(const ParamFacts *P);

/* Does module value v (a constructor call of f) hold parameters: a torch.nn
 * layer that has weights, an in-file module, a library model? */
bool params_module_has_parameters(const Ir *ir, const IrFunction *f, const IrValue *v);

/* Does in-file class cls1 register self.<attr> in a method? */
bool params_class_registers(const Ir *ir, uint32_t cls1, uint32_t attr);
/* Does a method store into self.<attr>.<x> (a tied weight, a patched layer)? */
bool params_class_patches(const Ir *ir, uint32_t cls1, uint32_t attr);

#endif
