/* ir: the CST of a module lowered to SSA, one function per scope (module,
 * function, method, lambda, comprehension), with phi nodes at joins and
 * lattice facts on every value. Rules read this, never the CST alone.
 *
 * Construction follows Braun et al., "Simple and Efficient Construction of
 * Static Single Assignment Form" (CC 2013): variables are looked up per block,
 * phis are created on demand and left incomplete in blocks whose predecessors
 * are not all known yet (loop headers) until the block is sealed. */
#ifndef PFC_IR_H
#define PFC_IR_H
#include "../parser/parser.h"

typedef uint32_t ValueId;     /* index into IrFunction.values; 0 is "no value" */
typedef uint32_t BlockId;

#define IR_OPS(X) \
    X(NONE)      /* placeholder for id 0 */ \
    X(UNDEF)     /* a variable read before any assignment on some path */ \
    X(CONST)     /* literal: node is the literal */ \
    X(PARAM)     /* function parameter: name */ \
    X(GLOBAL)    /* a module-level name or builtin: name; qual if resolved */ \
    X(PHI)       /* args: one per predecessor, in block pred order */ \
    X(CALL)      /* args[0] callee, then positional args; ir_kwname(v, i) names keyword args */ \
    X(ATTR)      /* args[0].name */ \
    X(SUBSCR)    /* args[0][args[1]] */ \
    X(BINOP)     /* node is the operator expression */ \
    X(UNARY) \
    X(COMPARE)   /* result is a bool: kills graph attachment */ \
    X(BOOLOP) \
    X(BUILD)     /* tuple, list, set, dict, f-string, comprehension result */ \
    X(UNPACK)    /* element `index` of args[0] (tuple targets, for-loop targets) */ \
    X(ITER_NEXT) /* next item of the iterable args[0] (for loops) */ \
    X(FUNC)      /* a def or lambda: callee index in Ir.funcs */ \
    X(CLASS)     /* a class statement: class index in Ir.classes */ \
    X(STORE_ATTR)   /* args[0].name = args[1] */ \
    X(STORE_SUBSCR) /* args[0][args[1]] = args[2] */ \
    X(AUG_STORE)    /* marker: the BINOP args[0] was stored back by `x op= y` */ \
    X(DEL) \
    X(WITH_ENTER)   /* args[0] the context manager; result is the `as` value */ \
    X(WITH_EXIT) \
    X(RETURN)       /* args[0] or none */ \
    X(YIELD) \
    X(RAISE) \
    X(AWAIT) \
    X(OPAQUE)       /* anything else: facts unknown */

typedef enum IrOp {
#define X(id) IR_##id,
    IR_OPS(X)
#undef X
    IR__COUNT
} IrOp;

/* Graph attachment lattice: BOTTOM (no information yet) < DETACHED, ATTACHED < MAYBE. */
typedef enum Attach { ATT_BOTTOM, ATT_DETACHED, ATT_ATTACHED, ATT_MAYBE } Attach;

/* Grad mode at a program point. */
typedef enum GradMode { GRAD_ENABLED, GRAD_DISABLED, GRAD_UNKNOWN } GradMode;

/* What a value is, as far as the rules care (bits). */
enum {
    ROLE_MODEL = 1 << 0,      /* an nn.Module instance (or a HF model) */
    ROLE_OPTIMIZER = 1 << 1,
    ROLE_LOSS = 1 << 2,       /* the output of a loss function or loss module */
    ROLE_LOADER = 1 << 3,     /* a DataLoader */
    ROLE_BATCH = 1 << 4,      /* an item drawn from a loader */
    ROLE_DEVICE = 1 << 5,
    ROLE_SCALAR = 1 << 6,     /* a reduction's output: one element */
    ROLE_SOFTMAX = 1 << 7,    /* probabilities from softmax */
    ROLE_SIGMOID = 1 << 8,
    ROLE_LOG_SOFTMAX = 1 << 9,
    ROLE_LOSS_FN = 1 << 10,   /* a loss module instance: nn.CrossEntropyLoss() */
    ROLE_SCHEDULER = 1 << 11,
    ROLE_PYNUM = 1 << 12,     /* a Python number: float(), .item() */
    ROLE_CUDA = 1 << 13,      /* may be a CUDA device or a tensor moved to one (a may-fact) */
    ROLE_PARAM = 1 << 14,     /* a model's parameters (leaves: keeping them costs nothing) */
    ROLE_MODE_DEP = 1 << 15,  /* a module that behaves differently in eval mode (or may) */
};

enum {
    IRV_STMT = 1,          /* the whole expression of an expression statement */
    IRV_GRAD_FORCED = 2,   /* computed under an explicit torch.enable_grad() */
    IRV_BACKWARD_RECV = 4, /* `.backward()` is called on it: it must be attached */
    IRV_MODULE_USE = 8,    /* `.eval()`, `.parameters()`... is called on it: an nn.Module */
};

/* 48 bytes: a 10 MB module has over half a million values. The small fields
 * share one word; the static assertion below keeps them wide enough. */
typedef struct IrValue {
    uint8_t op;            /* IrOp */
    uint8_t attach : 2;    /* Attach */
    uint8_t grad : 2;      /* GradMode in force where the value is computed */
    uint8_t flags : 4;     /* IRV_* */
    uint16_t roles;        /* ROLE_* bits */
    uint32_t node;         /* CST node (or token elem) it came from, for spans */
    uint32_t name;         /* interned name: attribute, parameter, global */
    uint32_t qual;         /* interned qualified name ("torch.nn.functional.softmax") or 0 */
    uint32_t index;        /* UNPACK element / FUNC or CLASS index / PARAM position /
                              the BOOLOP of `A if C else B`: the value of C */
    uint32_t cls;          /* facts: 1 + index of the in-file class this is an instance of */
    uint32_t ctor;         /* facts: qualified name of the library callable that made it */
    uint32_t origin;       /* facts: the DataLoader(...) call this loader comes from, as
                              (function + 1) << 20 | value, or 0 */
    uint32_t nargs;
    BlockId block;
    ValueId *args;         /* a CALL's keyword names follow them: ir_kwname */
} IrValue;
_Static_assert(IR__COUNT <= 256 && ATT_MAYBE < 4 && GRAD_UNKNOWN < 4 && IRV_MODULE_USE < 16 &&
                   ROLE_MODE_DEP < (1 << 16),
               "IrValue's small fields hold every op, attach state, grad mode, flag and role");
_Static_assert(sizeof(IrValue) == 48, "IrValue stays 48 bytes");

/* The keyword name of argument i: a CALL's, one per argument, are stored
 * right after its arguments (0: positional, or the callee, or not a CALL). */
static inline uint32_t ir_kwname(const IrValue *v, uint32_t i)
{
    return v->op == IR_CALL ? v->args[v->nargs + i] : 0;
}

typedef struct IrBlock {
    ARENA_VEC(ValueId) values;    /* in execution order (phis first) */
    ARENA_VEC(BlockId) preds;
    ARENA_VEC(BlockId) succs;
    BlockId loop_header;          /* innermost enclosing loop's header, 0 if none */
    BlockId loop_parent;          /* for a loop header: the enclosing loop's header */
    uint32_t loop_node;           /* the FOR/WHILE node of that loop */
    ValueId cond;                 /* the value an if/elif/while test branches on here, or 0 */
    uint32_t cond_node;           /* that test's CST node */
    bool sealed;
} IrBlock;

typedef enum ScopeKind { SCOPE_MODULE, SCOPE_FUNCTION, SCOPE_LAMBDA, SCOPE_COMPREHENSION,
                         SCOPE_CLASS } ScopeKind;

typedef struct IrFunction {
    uint32_t name;                /* interned; 0 for lambdas and comprehensions */
    uint32_t node;                /* the FUNC_DEF / LAMBDA / ... / MODULE node */
    ScopeKind kind;
    int class_index;              /* -1, or the class this is a method of */
    int parent;                   /* enclosing function, -1 for the module */
    GradMode entry_grad;          /* from decorators (@torch.no_grad()) */
    ARENA_VEC(IrValue) values;    /* values.v[0] is a placeholder */
    ARENA_VEC(IrBlock) blocks;    /* blocks.v[0] is the entry */
    ARENA_VEC(ValueId) params;
    ARENA_VEC(ValueId) returns;   /* the RETURN values */
} IrFunction;

typedef struct IrClass {
    uint32_t name, node;
    ARENA_VEC(uint32_t) bases;    /* interned qualified names of the bases */
    ARENA_VEC(int) methods;       /* function indices */
    bool is_module;               /* derives from torch.nn.Module (directly or in-file) */
} IrClass;

typedef struct IrModuleDef { uint32_t name; ValueId value; } IrModuleDef;

/* A write into a dict pfc can read (ir/dicts.c): the dict is value `dict`
 * of function `fn`; `store` is the STORE_SUBSCR in function `in`, or 0 for
 * a call that adds entries pfc cannot list (`d.update(other)`). */
typedef struct IrDictWrite { uint32_t fn; ValueId dict; uint32_t in; ValueId store; } IrDictWrite;
/* Parameter `slot` of function fn is, at some in-file call, the dict value
 * `dict` of function dfn (and at every call, one such dict). */
typedef struct IrDictParam { uint32_t fn, slot, dfn; ValueId dict; } IrDictParam;

typedef struct Ir {
    Syntax *syn;
    ARENA_VEC(IrFunction) funcs;  /* funcs.v[0] is the module */
    ARENA_VEC(IrClass) classes;
    ARENA_VEC(IrModuleDef) module_defs;   /* module-level assignments, by name */
    /* name id -> 1 + index of its last entry in module_defs; entries of one
     * name are chained through prev_def (1-based, 0 ends) */
    uint32_t *last_def;
    uint32_t *prev_def;
    uint32_t nnames;
    ARENA_VEC(uint32_t) import_nodes;   /* IMPORT and IMPORT_FROM statements, any scope */
    /* (class index + 1) << 32 | method name -> function index, open
     * addressing (ir_class_method); the first method of a name wins */
    uint64_t *method_keys;
    int *method_fns;
    uint32_t method_mask;
    uint32_t name_forward;              /* the interned "forward" */
    struct ProjectBindings *project;    /* exports of imported project modules, or NULL */
    IrDictWrite *dict_writes;           /* sorted by (fn, dict) */
    uint32_t ndict_writes;
    IrDictParam *dict_params;           /* sorted by (fn, slot) */
    uint32_t ndict_params;
    uint32_t *global_names;             /* declared `global` in some function, sorted */
    uint32_t nglobal_names;
} Ir;

/* Lowers a parsed module (errors allowed: ERROR nodes become OPAQUE values)
 * and computes the lattice facts. Memory comes from the Syntax's arena. */
void ir_build(Ir *ir, Syntax *syn);

const char *ir_op_name(IrOp op);

/* The function index of class `cls` (0-based) method `name`, or -1: one
 * hashed lookup, not a scan of the class's methods. */
int ir_class_method(const Ir *ir, uint32_t cls, uint32_t name);

/* An allocation site (IrValue.origin): the call `value` of function `fn`,
 * as (fn + 1) << 20 | value; 0 when either is too large to encode. */
static inline uint32_t ir_site(uint32_t fn, ValueId value)
{
    return value < (1u << 20) && fn + 1 < (1u << 12) ? (fn + 1) << 20 | value : 0;
}
static inline uint32_t ir_site_function(uint32_t site) { return (site >> 20) - 1; }
static inline ValueId ir_site_value(uint32_t site) { return site & 0xfffff; }

/* A value with trivial phis (every operand one value) followed to that value. */
ValueId ir_resolve(const IrFunction *f, ValueId v);
/* The argument call v passes for parameter `slot` of g (positional or by
 * keyword; skip_self 1 for a method, whose self the call does not pass), or 0. */
ValueId ir_call_argument(const IrValue *v, const IrFunction *g, uint32_t skip_self, uint32_t slot);

/* The values an element read from a dict may be: `d[k]`, `d.get(k)`, an
 * item of `d.values()` or the value of one of `d.items()`, where d is a
 * literal (or a module-level one, or a parameter every in-file call fills
 * with one) that only `d[k] = v` adds to. A constant
 * key selects its entries, any other key every entry. False when pfc
 * cannot list them (a `**` splat, `d.update(...)`, more than IR_DICT_MAX). */
enum { IR_DICT_MAX = 16 };
typedef struct IrDictHits { uint32_t n; uint32_t fn[IR_DICT_MAX]; ValueId v[IR_DICT_MAX]; } IrDictHits;
bool ir_dict_element(const Ir *ir, const IrFunction *f, ValueId v, IrDictHits *out);
void ir_index_dict_writes(Ir *ir);
/* The in-file function a callee value denotes (a def, a module-level name,
 * a method of an instance's class, a model's forward), or -1. */
int ir_callee_function(const Ir *ir, const IrFunction *f, ValueId callee);
/* The position in g->params of parameter value `param` (PARAM's index also
 * counts a bare `*` and `/`), or UINT32_MAX. */
uint32_t ir_param_slot(const IrFunction *g, ValueId param);
/* The text of a constant string (without its quotes and prefix: "train" and
 * 'train' are one key) or number; false for anything else. */
bool ir_const_key(const Syntax *S, const IrValue *k, const char **text, uint32_t *len);

/* Stable text dump for golden tests: every function, or the one named `only`. */
struct Buf;
void ir_dump(const Ir *ir, const char *only, struct Buf *out);

/* The same, with what a client of the IR knows of each function (the passes'
 * code context and effects) written by note at the end of its header line. */
typedef void IrDumpNote(const void *ctx, int fi, struct Buf *out);
void ir_dump_noted(const Ir *ir, const char *only, IrDumpNote *note, const void *ctx,
                   struct Buf *out);

#endif
