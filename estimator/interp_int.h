/* Internals shared by the interpreter's core (interp.c: Python semantics,
 * frames, control flow) and its library (torchlib.h: torch, torch.nn,
 * torch.nn.functional, tensor methods, data loading, builtins, frameworks). */
#ifndef PFC_INTERP_INT_H
#define PFC_INTERP_INT_H
#include "interp.h"

typedef struct Frame {
    int fi;
    bool demand;          /* evaluated on demand (top level), not executed */
    AVal **vals;
    AVal **iters;         /* ITER_NEXT: the sequence being iterated */
    uint32_t *iterpos;
    bool *iter_done;
    AVal *ret;
    BlockId prev;         /* the block executed before the current one */
    struct DemandState *dm;   /* on demand: which blocks run, the stores (demand.c) */
} Frame;

/* A module of the project: the script, or one its code imports. Functions,
 * classes, interned names and CST nodes are indices into one module's IR
 * and syntax, so the interpreter runs with one module current (the fields of
 * Interp below mirror it) and switches when a call enters another. */
struct InterpModule {
    Syntax *S;
    const Ir *ir;
    const char *path;     /* its file (the script's path as given) */
    const char *label;    /* for notes: its file's name, NULL for the script */
    Frame **demand;       /* per function */
    const char **names;   /* interned id -> C string, filled on use */
    uint32_t *parent;     /* CST parent of each node */
    /* its imports, resolved once each (imported()): qualified name -> value,
     * NULL until asked */
    Interner import_names;
    ARENA_VEC(AVal *) import_vals;
    ARENA_VEC(const char *) star_modules;   /* `from M import *`, in order */
    bool stars_read;
};

typedef struct LoadedModule {
    const char *dotted;   /* as the import names it, from its importer's directory */
    const char *importer;
    InterpModule *mod;    /* NULL: not a module of the project */
} LoadedModule;

struct Interp {
    Arena *a;
    /* the current module (a copy of mod's fields) */
    InterpModule *mod;
    Syntax *S;
    const Ir *ir;
    Frame **demand;
    const char **names;
    uint32_t *parent;
    InterpModule *script;
    ARENA_VEC(LoadedModule) loaded;
    int star_depth;       /* `from m import *` chains being followed */
    Trace *tr;
    InterpHooks hooks;
    uint64_t steps;
    int depth;
    uintptr_t stack_base;   /* where the first evaluation started */
    const char *error;
    AVal unknown, none;
    /* the step's model call (the first call of a module from the top level) */
    int64_t batch_override, seq_override;   /* 0: as the script says */
    bool force_autocast;                    /* run the model under autocast */
    DType force_autocast_dtype;
    bool no_autocast;                       /* --precision fp32: the script's autocast is off */
    int64_t seen_batch, seen_seq;
    const char *model_class;
    const char *model_file;                 /* its class's module, NULL for the script */
    bool model_called;
    bool model_call_named;                  /* its result is assigned to a variable */
    ARENA_VEC(const char *) notes;          /* what it had to assume, for the report */
    uint32_t cur_node;                      /* the call being evaluated (for messages) */
    const char *lost;                       /* where the tensors were first lost, or NULL */
    const char *model_passed;               /* the first unmodelled call given the model, or NULL */
    const char *factory_unread;             /* a model picked by a name pfc cannot read, or NULL */
    bool in_trainer;                        /* the Trainer's step is running */
    int64_t trainer_batch;                  /* its per-device batch */
    /* what a framework's loop decided while the step ran, for the phases:
     * its optimizer (an NN_OPTIMIZER object with __class__ and keywords,
     * from Lightning's configure_optimizers) and gradient accumulation */
    Obj *step_optimizer;
    int64_t accumulation;
    /* the script's own command line (pfc estimate SCRIPT -- ARGS), where
     * the script lives (config files are relative to it), --model NAME */
    const char *const *script_args;
    uint32_t nscript_args;
    const char *script_path;
    /* the ranks the run is for (--world-size, WORLD_SIZE; 1 when not
     * given) and the GPUs of one node (LOCAL_WORLD_SIZE, else the world) */
    int64_t world_size, local_world_size;
};

#define ARGS_MAX 64
typedef struct Args {
    AVal *v[ARGS_MAX];
    const char *kw[ARGS_MAX];   /* NULL for positional */
    uint32_t n;
} Args;

/* ---- on-demand frames (demand.c) ------------------------------------------------------
 * A demand frame (the top level, or a function whose values are asked for
 * without running it) evaluates a value when something needs it, not in
 * order. Python's order still matters in two places, and demand.c keeps it:
 * which way a branch goes (a join takes the value of the edge that runs, not
 * always the first), and what a store changes (`args.batch_size = ...`,
 * `cfg["lr"] = ...`, `model.fc = nn.Linear(...)`): a read sees the last store
 * before it in the code; the object itself gets every store of the frame
 * once the value it hangs off is computed, so code that runs later (a
 * function the object is passed to) sees them. */
bool demand_edge_live(Interp *in, Frame *fr, BlockId from, BlockId to);
/* Whether the code from block b on only raises: it ends without a return,
 * without branching and before any join (an `if bad: raise ...` body). An unknown
 * condition over such a body is taken as false. */
bool arm_raises(const IrFunction *f, BlockId b);
/* The phi operand a demand frame takes: the first whose edge runs. */
ValueId demand_phi_operand(Interp *in, Frame *fr, const IrValue *phi);
/* The last store before `read` (an ATTR or SUBSCR value) of the same
 * attribute or key on the same SSA value, in a block that runs; 0 if none. */
ValueId demand_store_before(Interp *in, Frame *fr, ValueId read);
/* The value the object had before the frame's stores changed it, when the
 * read comes before all of them but they were applied already; NULL if
 * none. */
AVal *demand_value_before_stores(Interp *in, Frame *fr, ValueId read);
/* v was just computed: applies the stores that hang off it (once each). */
void demand_apply_stores(Interp *in, Frame *fr, ValueId v);
/* The store's effect on an object (interp.c, also used by executed frames):
 * prior gets the value it replaced (NULL: none, or not an attribute). */
void apply_store_attr(Interp *in, AVal *base, const char *name, AVal *val, AVal **prior);
void apply_store_subscr(Interp *in, AVal *base, AVal *key, AVal *val, AVal **prior);
AVal *frame_eval(Interp *in, Frame *fr, ValueId v);
/* Whether two constant keys (strings, integers) are the same key. */
bool same_key(const AVal *a, const AVal *b);

/* nn.Module parameters (torchlib_params.c). A module's parameters as a
 * list of AV_PARAM, in named_parameters()' order (named: (name, param)
 * pairs; prefix names the module, NULL: none); a library model that has not
 * run yet is one placeholder (param 0, self the model). */
AVal *module_parameters(Interp *in, AVal *m, bool named, const char *prefix);
/* requires_grad = trains for a parameter, a placeholder, a module's
 * parameters or a list of them. */
void set_requires_grad(Interp *in, AVal *target, bool trains);
/* Marks held[i] for each trace parameter i that an optimizer's `params`
 * (parameters, modules, parameter-group dicts, lists of them) holds;
 * false when part of it is not something pfc can follow. */
bool optimizer_holds(Interp *in, AVal *params, bool *held);

/* torchvision heads (vision_head.c): `model.fc` of an NN_VISION model
 * (NULL: not its head), and, when the model runs, the head the script put
 * there (its classes become the model's). */
AVal *vision_head_attr(Interp *in, AVal *model, const char *name);
void vision_apply_head(Interp *in, Obj *m);
void vision_rebind_head(Interp *in, Obj *m);

/* core (interp.c) */
/* Makes m the current module (NULL: stays); returns the one to restore. */
InterpModule *enter_module(Interp *in, InterpModule *m);
const char *in_name(Interp *in, uint32_t id);
AVal *av_new(Interp *in, AKind k);
AVal *av_str(Interp *in, const char *s);
AVal *av_float(Interp *in, double f);
AVal *av_bool(Interp *in, bool b);
AVal *av_seq(Interp *in, uint32_t n);
AVal *av_qual(Interp *in, const char *q);
AVal *av_bound(Interp *in, AVal *recv, const char *method);
AVal *av_none(Interp *in);
bool av_truth(const AVal *v, bool *known);
bool av_num(const AVal *v, double *out);
AVal *args_get(const Args *a, int pos, const char *kw);
AVal *call_value(Interp *in, AVal *callee, Args *a);
AVal *iter_items(Interp *in, AVal *seq);   /* a SEQ of the items, or NULL */
AVal *run_method(Interp *in, AVal *self, const char *name, Args *a, bool *found);
/* The attribute of an object of the project's class that holds the library
 * module its class derives from (nn.Linear, a Hugging Face model), built by
 * its __init__: the object's weights, sizes and forward where its class
 * defines none. */
#define LIBRARY_BASE "__base__"
/* C.name for a class of the project: from_pretrained when a library base
 * loads it, else unknown. */
AVal *interp_class_attr(Interp *in, AVal *cls, const char *name);
void interp_fail(Interp *in, const char *why);
/* The estimate is refused for why (the trace keeps the first reason), and the
 * interpretation stops. */
void refuse(Interp *in, const char *why);
/* Records an assumption ("line N: ..."), once per text. */
void interp_note(Interp *in, uint32_t node, const char *what);
void interp_lost_here(Interp *in, const char *what);
/* The script's text of argument pos (or keyword kw) of the call being
 * evaluated, for messages ("len(vocab)"); NULL when the call does not show
 * it (arguments after a splat, or ones pfc made). */
const char *interp_arg_source(Interp *in, int pos, const char *kw);
const char *interp_call_source(Interp *in);   /* the call's own text, likewise */
/* Calls `recv.name(...)` anywhere in the file whose receiver evaluates to
 * obj (on demand): fn gets the call's evaluated arguments. */
void for_each_call_on(Interp *in, const char *name, const Obj *obj,
                      void (*fn)(Interp *in, void *ctx, Args *a), void *ctx);

/* library (torchlib*.c; the dispatch is in torchlib.c) */
/* A dtype named by a value: torch.bfloat16, "bfloat16", AV_DTYPE. */
bool dtype_of(const AVal *v, DType *out);
AVal *lib_call(Interp *in, const char *qual, Args *a);
/* A call pfc does not model (`qual` names it; NULL: the call's own text): a tensor it receives is
 * taken through as an elementwise op; a model it receives is taken as
 * returned unchanged (with the optimizers and loaders passed beside it, in
 * order, as wrappers give them back), noted; else unknown. The alternative,
 * an unknown, would lose the model's forward without a word. */
AVal *unmodelled_call(Interp *in, const char *qual, Args *a);
/* An unmodelled call received the model (`what`): kept for the refusal
 * when the step's forward is not followed after all. */
void interp_model_passed(Interp *in, const char *what);
const char *interp_model_passed_at(const Interp *in);
AVal *method_call(Interp *in, AVal *recv, const char *name, Args *a);
AVal *attr_of_value(Interp *in, AVal *base, const char *name);
/* getattr(module, "name") of a library or project module; NULL if not a module */
AVal *interp_module_attr(Interp *in, const AVal *module, const char *name);
/* A model picked from a module by a key pfc cannot read (models.__dict__[k],
 * getattr(models, k)) at `node`: if no model is found, the refusal says
 * which name and how to give it. */
void interp_factory_unread_at(Interp *in, uint32_t node, const char *module, const AVal *key);
AVal *module_call(Interp *in, Obj *m, Args *a);
AVal *tensor_binop(Interp *in, int tok, AVal *x, AVal *y);
AVal *tensor_subscript(Interp *in, AVal *x, AVal *idx);
AVal *loader_batch(Interp *in, AVal *loader);
void tie_weight(Interp *in, Obj *m, const char *name, AVal *v);
/* A framework's loop is about to run model's step: the report names it. */
void step_model(Interp *in, AVal *model);
/* Which dimension of a library module's input holds the batch: 1 for the
 * sequence-first layouts (recurrent, attention and Transformer modules
 * without batch_first), else 0. */
int module_batch_dim(const Obj *m);
/* --key from the script's command line (after `--`) as a literal, noted as
 * read; NULL when not given. */
AVal *script_value(Interp *in, const char *key);
/* A string or unknown configuration value v, copied with where it came
 * from (NULL: v's) and the words that give it (AVal.cli); other values
 * as they are (torchlib_cli.c). */
AVal *config_value(Interp *in, AVal *v, const char *origin, const char *cli);
/* A function the script hands to a command-line library, or that nothing
 * in the script calls: how the words give its parameters. fire and
 * jsonargparse take `--name value` for any of them; fire also fills them in
 * order from the other words, jsonargparse only those without a default
 * (its positionals), and reads `--config FILE`. With several functions
 * (CLI([train, test]), Fire({"train": train})) the word `command` chooses it. */
typedef enum EntryKind { ENTRY_PLAIN, ENTRY_FIRE, ENTRY_JSONARGPARSE } EntryKind;
typedef struct EntryPoint {
    EntryKind kind;
    const char *function;      /* its name, for messages */
    const char *command;       /* NULL: the only one */
    const char *params[ARGS_MAX];
    bool has_default[ARGS_MAX];
    uint32_t n;
} EntryPoint;
/* Parameter k's value from the words, an unknown naming it when it is
 * required and missing, or NULL (its default holds); *cli gets the words
 * that give it (torchlib_cli.c). */
AVal *entry_argument(Interp *in, const EntryPoint *e, uint32_t k, const char **cli);
/* "WHAT is the positional argument x, which the command line does not
 * give: give it as `pfc estimate SCRIPT -- X`": the refusal for an unknown
 * configuration value v that names what it lacks (its origin). */
const char *missing_config(Interp *in, const char *what, const AVal *v);

#endif
