/* ir/modules: what an in-file nn.Module class registers in __init__ and what
 * its forward reaches. Computed from the IR and its facts (after ir_build);
 * rules ask it whether a submodule is dead weight (TG306), whether forward
 * skips one on some paths (TG204), how F.dropout is told the mode (TG305). */
#ifndef PFC_IR_MODULES_H
#define PFC_IR_MODULES_H
#include "ir.h"

typedef enum ModAttrKind { MA_SUBMODULE, MA_PARAMETER, MA_BUFFER } ModAttrKind;

enum {
    MA_CONDITIONAL = 1,  /* registered on some paths of __init__ only */
    MA_IN_FORWARD = 2,   /* read by forward or a method (or nested function) it reaches */
    MA_ELSEWHERE = 4,    /* used outside forward's reach: another method, outside the
                            class, a string naming it, passed out from __init__ */
    MA_NO_PARAMS = 8,    /* holds no parameters: an activation, pooling, dropout, a loss,
                            an in-file class that registers none, an empty ModuleList */
};

typedef struct ModAttr {
    uint32_t name;       /* interned attribute name */
    uint32_t node;       /* CST node of the first registration (`self.x = ...`) */
    uint8_t kind;        /* ModAttrKind */
    uint8_t flags;       /* MA_* */
    int of_class;        /* a submodule of an in-file class: its index, else -1 */
    uint32_t name_node;  /* the string naming it in register_parameter("x", ...), or 0 */
} ModAttr;

typedef struct ModClass {
    int cls;             /* index in Ir.classes */
    int init, forward;   /* function indices, or -1 */
    bool escapes;        /* what forward reaches cannot be told: getattr with a computed
                            name, self.children()/_modules/__dict__, hooks, super().forward,
                            self passed to code pfc does not read */
    bool local;          /* only this file can read its attributes: an in-file class or
                            function builds it, or the file is a script (`__main__`); a
                            library's top-level model may be read by any importer */
    uint32_t nattrs;
    ModAttr *attrs;
    uint32_t ntrained;   /* names of self attributes forward's reach reads with grad enabled */
    uint32_t *trained;   /* (registered or not; not methods), sorted by first read */
} ModClass;

typedef struct ModuleFacts {
    uint32_t n;          /* one per in-file nn.Module class */
    ModClass *v;
} ModuleFacts;

/* Computes the facts of every in-file module class; memory from A. */
void ir_modules(const Ir *ir, Arena *A, ModuleFacts *out);

/* Does the forward of in-file module class cls (index in Ir.classes) read
 * self.<attr> with grad enabled, by name, directly or through the methods and
 * nested functions it reaches? Reads under torch.no_grad(), and everything a
 * method reached only from no_grad code reads, do not train. An attribute
 * reached only by getattr with a computed name is not proven. */
bool ir_forward_trains(const ModuleFacts *mf, int cls, uint32_t attr);

/* How a functional dropout call is told the mode: not a dropout call, an
 * explicit `training=` (keyword or third positional), left at the default
 * (training=True, whatever the module's mode), or unknown (`**kw`). */
typedef enum DropoutMode { DROPOUT_NONE, DROPOUT_EXPLICIT, DROPOUT_DEFAULT, DROPOUT_UNKNOWN }
    DropoutMode;
DropoutMode ir_dropout_mode(const Ir *ir, const IrFunction *f, const IrValue *v);

#endif
