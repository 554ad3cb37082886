/* Shared by the IR's lowering files. */
#ifndef PFC_IR_INTERNAL_H
#define PFC_IR_INTERNAL_H
#include "ir.h"
#include <stdbool.h>

enum { MAX_LOOP_DEPTH = 64, MAX_COMP_DEPTH = 16 };

/* A set of interned names: `v` in insertion order, and past a few names an
 * open-addressing index, so that a scope binding a million names stays linear. */
typedef struct NameSet {
    ARENA_VEC(uint32_t) v;
    uint32_t *slots;    /* 0 = empty; NULL while the set is small */
    uint32_t mask;
} NameSet;
/* malloc'ed: a scope's sets go when ir_end_scope ends it */
bool name_set_has(const NameSet *s, uint32_t name);
void name_set_add(NameSet *s, uint32_t name);
void name_set_free(NameSet *s);

typedef struct ImportEntry { uint32_t name, qual; } ImportEntry;
typedef struct DefEntry { uint64_t var; BlockId block; ValueId value; } DefEntry;
/* Incomplete phis of one block are chained (next: 1-based, 0 ends) so that
 * sealing a block visits only its own. */
typedef struct IncompletePhi { BlockId block; uint64_t var; ValueId phi; uint32_t next; } IncompletePhi;
typedef struct PhiChain { uint32_t head, tail; } PhiChain;
typedef struct LoopCtx { BlockId header, exit; uint32_t node; } LoopCtx;

/* Lowering state of one function; nested defs get their own. */
typedef struct FnState {
    int fn;
    BlockId cur;
    GradMode grad;
    bool grad_forced;    /* inside an explicit torch.enable_grad() */
    DefEntry *defs;
    uint32_t defs_mask, ndefs;
    ARENA_VEC(IncompletePhi) incomplete;
    ARENA_VEC(PhiChain) incomplete_of;   /* by block */
    LoopCtx loops[MAX_LOOP_DEPTH];
    int nloops;
    NameSet assigned;    /* names bound anywhere in the scope: locals */
    NameSet globals;     /* declared global / nonlocal */
    ARENA_VEC(struct ImportEntry) imports;   /* names this scope binds by import */
    NameSet rebound;     /* names this scope also binds otherwise */
    NameSet comp_vars[MAX_COMP_DEPTH];
    uint32_t comp_tags[MAX_COMP_DEPTH];
    int ncomp;
} FnState;


typedef struct Lowerer {
    Ir *ir;
    Syntax *S;
    Arena *A;
    Arena *T;                     /* lowering's own scratch: name sets, incomplete phis,
                                     work stacks; freed when the file is lowered */
    ArenaIds ids;                 /* where values' operand lists are packed */
    FnState *fs;
    int class_index;              /* class whose body is being lowered, or -1 */
    uint32_t comp_counter;
    uint32_t rhs_node;            /* the value being assigned, for item-store spans */
    uint32_t (*import_map)[2];    /* module-level imports: {name, qualified name} (stmt.c) */
    uint32_t import_mask, nimports;
    NameSet module_assigned;
} Lowerer;

/* Arrays that grow while a file is lowered live in malloc'ed memory, doubled
 * by realloc, and move into the arena at their exact size when done
 * (ir_heap_settle): doubling inside the arena would leave every outgrown copy
 * behind until the file is freed. */
void *ir_heap_grow(void *v, uint32_t *cap, uint32_t first, size_t elem);
void *ir_heap_settle(Arena *A, void *v, uint32_t n, size_t elem);
#define LIST_PUSH(vec, x) do { \
        if ((vec).n == (vec).cap) \
            (vec).v = ir_heap_grow((vec).v, &(vec).cap, 4, sizeof *(vec).v); \
        (vec).v[(vec).n++] = (x); \
    } while (0)

/* Doubles the room of a function's values while it is lowered (malloc'ed
 * until ir_end_scope moves them into the arena). */
void ir_values_reserve(IrFunction *f);
/* Appends a block to a function being lowered (malloc'ed like its values). */
void ir_block_push(IrFunction *f, const IrBlock *b);
/* Ends a scope begun on fs: frees its definition table, back to outer. */
void ir_end_scope(Lowerer *L, FnState *fs, FnState *outer);

/* lower.c */
ValueId ir_new_value(Lowerer *L, IrOp op, uint32_t node, BlockId b);
ValueId ir_emit(Lowerer *L, IrOp op, uint32_t node);
ValueId ir_emit1(Lowerer *L, IrOp op, uint32_t node, ValueId a);
ValueId ir_emit2(Lowerer *L, IrOp op, uint32_t node, ValueId a, ValueId b);
ValueId ir_lower_expr(Lowerer *L, uint32_t id);
void ir_assign(Lowerer *L, uint32_t target, ValueId v);
void ir_store_name(Lowerer *L, uint32_t name, ValueId v);
void ir_write_var(Lowerer *L, uint64_t var, BlockId b, ValueId v);
BlockId ir_new_block(Lowerer *L);
void ir_add_edge(Lowerer *L, BlockId from, BlockId to);
void ir_seal(Lowerer *L, BlockId b);
void ir_dead(Lowerer *L);
IrFunction *ir_cur_fn(Lowerer *L);
uint32_t ir_intern_qual(Lowerer *L, uint32_t base_qual, uint32_t name);
uint32_t ir_intern_cstr(Lowerer *L, const char *s);
ValueId ir_resolve(const IrFunction *f, ValueId v);

/* stmt.c */
ValueId ir_lower_lambda(Lowerer *L, uint32_t id);
uint32_t module_import_qual(Lowerer *L, uint32_t name);
uint32_t scope_import_qual(Lowerer *L, uint32_t name);
void module_record_def(Lowerer *L, uint32_t name, ValueId v);

/* facts.c */
void ir_compute_facts(Ir *ir);
Attach attach_join(Attach a, Attach b);

#endif
