/* CST -> SSA lowering (Braun et al. 2013), one IrFunction per scope. */
#include "internal.h"
#include <stdlib.h>
#include <string.h>

/* ---- values and blocks -------------------------------------------------------------- */

static IrFunction *fn(Lowerer *L) { return &L->ir->funcs.v[L->fs->fn]; }

/* One doubling by realloc, starting at `first` elements (internal.h). */
void *ir_heap_grow(void *v, uint32_t *cap, uint32_t first, size_t elem)
{
    *cap = *cap ? *cap * 2 : first;
    v = realloc(v, (size_t)*cap * elem);
    if (!v)
        abort();
    return v;
}

/* A malloc'ed array moved into the arena at its exact size (NULL if empty). */
enum { ADOPT_MIN = 64 * 1024 };   /* smaller arrays are copied: a malloc each would cost more */

void *ir_heap_settle(Arena *A, void *v, uint32_t n, size_t elem)
{
    size_t size = (size_t)n * elem;
    if (size >= ADOPT_MIN) {   /* shrunk in place and handed over: never two copies at once */
        void *exact = realloc(v, size);
        return arena_adopt(A, exact ? exact : v);
    }
    void *exact = n ? arena_copy(A, v, size) : NULL;
    free(v);
    return exact;
}

void ir_values_reserve(IrFunction *f)
{
    f->values.v = ir_heap_grow(f->values.v, &f->values.cap, 16, sizeof *f->values.v);
}

/* The blocks too: most functions have a few (arena doubling from 16 would
 * reserve 1 KB for each). */
void ir_block_push(IrFunction *f, const IrBlock *b)
{
    LIST_PUSH(f->blocks, *b);
}

ValueId ir_new_value(Lowerer *L, IrOp op, uint32_t node, BlockId b)
{
    IrFunction *f = fn(L);
    IrValue v;
    memset(&v, 0, sizeof v);
    v.op = (uint8_t)op;
    v.node = node;
    v.block = b;
    v.grad = (uint8_t)L->fs->grad;
    v.flags = L->fs->grad_forced ? IRV_GRAD_FORCED : 0;
    ValueId id = f->values.n;
    if (f->values.n == f->values.cap)
        ir_values_reserve(f);
    f->values.v[f->values.n++] = v;
    return id;
}

/* Appends a value to the current block. */
static ValueId emit(Lowerer *L, IrOp op, uint32_t node)
{
    ValueId id = ir_new_value(L, op, node, L->fs->cur);
    LIST_PUSH(fn(L)->blocks.v[L->fs->cur].values, id);
    return id;
}

static void set_args(Lowerer *L, ValueId v, const ValueId *args, uint32_t n)
{
    ValueId *packed = n ? arena_ids(L->A, &L->ids, n) : NULL;
    if (n)
        memcpy(packed, args, n * sizeof *args);
    IrValue *x = &fn(L)->values.v[v];
    x->nargs = n;
    x->args = packed;
}

static ValueId emit1(Lowerer *L, IrOp op, uint32_t node, ValueId a)
{
    ValueId v = emit(L, op, node);
    set_args(L, v, &a, 1);
    return v;
}

static ValueId emit2(Lowerer *L, IrOp op, uint32_t node, ValueId a, ValueId b)
{
    ValueId args[2] = {a, b};
    ValueId v = emit(L, op, node);
    set_args(L, v, args, 2);
    return v;
}

static BlockId new_block(Lowerer *L)
{
    IrFunction *f = fn(L);
    IrBlock b;
    memset(&b, 0, sizeof b);
    b.loop_header = L->fs->nloops ? L->fs->loops[L->fs->nloops - 1].header : 0;
    b.loop_node = L->fs->nloops ? L->fs->loops[L->fs->nloops - 1].node : 0;
    BlockId id = f->blocks.n;
    ir_block_push(f, &b);
    return id;
}

static bool block_dead(Lowerer *L, BlockId b)
{
    return b != 0 && fn(L)->blocks.v[b].preds.n == 0 && fn(L)->blocks.v[b].sealed;
}

static void add_edge(Lowerer *L, BlockId from, BlockId to)
{
    if (block_dead(L, from))
        return;   /* code after return/break: nothing flows out of it */
    IrFunction *f = fn(L);
    LIST_PUSH(f->blocks.v[from].succs, to);
    LIST_PUSH(f->blocks.v[to].preds, from);
}

/* After return/raise/break/continue: following code is unreachable. */
static void start_dead_block(Lowerer *L)
{
    BlockId b = new_block(L);
    fn(L)->blocks.v[b].sealed = true;
    L->fs->cur = b;
}

/* ---- variables (Braun et al.) -------------------------------------------------------- */

static uint64_t def_hash(BlockId b, uint64_t var)
{
    uint64_t h = ((uint64_t)b * 0x9E3779B97F4A7C15ull) ^ (var * 0xC2B2AE3D27D4EB4Full);
    return h ^ (h >> 29);
}

static void defs_grow(Lowerer *L, FnState *fs)
{
    uint32_t old = fs->defs_mask + 1;
    DefEntry *o = fs->defs;
    uint32_t size = fs->defs ? old * 2 : 16;   /* most functions define a few names */
    /* malloc'ed, not in the arena: the table lives only while its function
     * is lowered (ir_end_scope frees it), and a module of a 10 MB file would
     * otherwise keep every table it outgrew until the file is done */
    fs->defs = calloc(size, sizeof *fs->defs);
    if (!fs->defs)
        abort();
    fs->defs_mask = size - 1;
    fs->ndefs = 0;
    for (uint32_t i = 0; o && i < old; i++)
        if (o[i].value)
            ir_write_var(L, o[i].var, o[i].block, o[i].value);
    free(o);
}

/* One malloc'ed list moved to `*room`, which advances past it. */
static uint32_t *settle_list(uint32_t **room, uint32_t *v, uint32_t n)
{
    uint32_t *exact = n ? *room : NULL;
    if (n)
        memcpy(exact, v, n * sizeof *v);
    *room += n;
    free(v);
    return exact;
}

/* Every block's values, predecessors and successors, packed back to back in
 * one arena allocation: one each would round most (one or two ids) up to 16
 * bytes. */
static void settle_block_lists(Arena *A, IrFunction *f)
{
    _Static_assert(sizeof(ValueId) == sizeof(uint32_t) && sizeof(BlockId) == sizeof(uint32_t),
                   "block lists share one allocation of 32-bit ids");
    size_t total = 0;
    for (uint32_t b = 0; b < f->blocks.n; b++) {
        const IrBlock *k = &f->blocks.v[b];
        total += (size_t)k->values.n + k->preds.n + k->succs.n;
    }
    uint32_t *room = total ? arena_alloc(A, total * sizeof *room) : NULL;
    for (uint32_t b = 0; b < f->blocks.n; b++) {
        IrBlock *k = &f->blocks.v[b];
        k->values.v = settle_list(&room, k->values.v, k->values.cap = k->values.n);
        k->preds.v = settle_list(&room, k->preds.v, k->preds.cap = k->preds.n);
        k->succs.v = settle_list(&room, k->succs.v, k->succs.cap = k->succs.n);
    }
}

void ir_end_scope(Lowerer *L, FnState *fs, FnState *outer)
{
    free(fs->defs);
    fs->defs = NULL;
    if (outer)   /* the module's is the Lowerer's module_assigned */
        name_set_free(&fs->assigned);
    name_set_free(&fs->globals);
    name_set_free(&fs->rebound);
    for (int i = 0; i < MAX_COMP_DEPTH; i++)
        name_set_free(&fs->comp_vars[i]);
    IrFunction *f = &L->ir->funcs.v[fs->fn];
    settle_block_lists(L->A, f);
    f->params.v = ir_heap_settle(L->A, f->params.v, f->params.cap = f->params.n, sizeof(ValueId));
    f->returns.v = ir_heap_settle(L->A, f->returns.v, f->returns.cap = f->returns.n, sizeof(ValueId));
    f->values.v = ir_heap_settle(L->A, f->values.v, f->values.cap = f->values.n, sizeof(IrValue));
    f->blocks.v = ir_heap_settle(L->A, f->blocks.v, f->blocks.cap = f->blocks.n, sizeof(IrBlock));
    L->fs = outer;
}

void ir_write_var(Lowerer *L, uint64_t var, BlockId b, ValueId v)
{
    FnState *fs = L->fs;
    if ((uint64_t)(fs->ndefs + 1) * 4 > (uint64_t)(fs->defs_mask + 1) * 3)   /* at most 3/4 full */
        defs_grow(L, fs);
    for (uint32_t i = (uint32_t)def_hash(b, var) & fs->defs_mask;; i = (i + 1) & fs->defs_mask) {
        DefEntry *e = &fs->defs[i];
        if (!e->value) {
            e->block = b;
            e->var = var;
            e->value = v;
            fs->ndefs++;
            return;
        }
        if (e->block == b && e->var == var) {
            e->value = v;
            return;
        }
    }
}

static ValueId lookup_def(Lowerer *L, uint64_t var, BlockId b)
{
    FnState *fs = L->fs;
    if (!fs->defs)
        return 0;
    for (uint32_t i = (uint32_t)def_hash(b, var) & fs->defs_mask;; i = (i + 1) & fs->defs_mask) {
        DefEntry *e = &fs->defs[i];
        if (!e->value)
            return 0;
        if (e->block == b && e->var == var)
            return e->value;
    }
}

/* A phi whose operands are all one value (or itself) is that value: record
 * the forwarding in `index`; ir_resolve follows it. */
ValueId ir_resolve(const IrFunction *f, ValueId v)
{
    for (int guard = 0; guard < 1000 && v && f->values.v[v].op == IR_PHI &&
                        f->values.v[v].index;
         guard++)
        v = f->values.v[v].index;
    return v;
}

static ValueId try_remove_trivial_phi(Lowerer *L, ValueId phi)
{
    IrFunction *f = fn(L);
    ValueId same = 0;
    IrValue *p = &f->values.v[phi];
    for (uint32_t i = 0; i < p->nargs; i++) {
        ValueId op = ir_resolve(f, p->args[i]);
        if (op == same || op == phi)
            continue;
        if (same)
            return phi;   /* merges two different values: a real phi */
        same = op;
    }
    if (!same) {
        /* never assigned on any path: keep the variable's name (at module
         * level, a builtin or a name read inside a loop) */
        uint32_t name = p->name;
        same = ir_new_value(L, IR_UNDEF, p->node, p->block);
        fn(L)->values.v[same].name = name;
    }
    f->values.v[phi].index = same;
    return same;
}

static ValueId read_var(Lowerer *L, uint64_t var, BlockId b);
static ValueId read_var_recursive(Lowerer *L, uint64_t var, BlockId b);

static ValueId add_phi_operands(Lowerer *L, uint64_t var, ValueId phi)
{
    IrFunction *f = fn(L);
    BlockId b = f->values.v[phi].block;
    uint32_t n = f->blocks.v[b].preds.n;
    ValueId *ops = n ? arena_ids(L->A, &L->ids, n) : NULL;
    for (uint32_t i = 0; i < n; i++)
        ops[i] = read_var(L, var, fn(L)->blocks.v[b].preds.v[i]);
    f = fn(L);
    f->values.v[phi].args = ops;
    f->values.v[phi].nargs = n;
    return try_remove_trivial_phi(L, phi);
}

static ValueId new_phi(Lowerer *L, BlockId b, uint64_t var)
{
    ValueId phi = ir_new_value(L, IR_PHI, 0, b);
    fn(L)->values.v[phi].name = (uint32_t)var;
    /* phis go first in their block: insert at the front */
    IrBlock *blk = &fn(L)->blocks.v[b];
    LIST_PUSH(blk->values, phi);
    memmove(blk->values.v + 1, blk->values.v, (blk->values.n - 1) * sizeof(ValueId));
    blk->values.v[0] = phi;
    return phi;
}

static ValueId undef_var(Lowerer *L, uint64_t var, BlockId b)
{
    ValueId v = ir_new_value(L, IR_UNDEF, 0, b);
    fn(L)->values.v[v].name = (uint32_t)var;   /* which variable: a builtin at module level */
    return v;
}

/* Up a chain of sealed single-predecessor blocks, iteratively: a long chain
 * must not recurse once per block, and a cycle of such blocks (unreachable
 * code after a raise or return) has no definition at all. */
static ValueId read_single_pred_chain(Lowerer *L, uint64_t var, BlockId b)
{
    BlockId p = fn(L)->blocks.v[b].preds.v[0];
    for (uint32_t steps = 0; steps <= fn(L)->blocks.n; steps++) {
        ValueId d = lookup_def(L, var, p);
        if (d)
            return ir_resolve(fn(L), d);
        const IrBlock *pb = &fn(L)->blocks.v[p];
        if (!pb->sealed || pb->preds.n != 1)
            return read_var_recursive(L, var, p);
        if (p == b)
            break;
        p = pb->preds.v[0];
    }
    return undef_var(L, var, b);
}

static void add_incomplete(Lowerer *L, BlockId b, uint64_t var, ValueId phi)
{
    FnState *fs = L->fs;
    IncompletePhi ip = {b, var, phi, 0};
    VEC_PUSH(L->T, fs->incomplete, ip);
    PhiChain none = {0, 0};
    while (fs->incomplete_of.n <= b)
        VEC_PUSH(L->T, fs->incomplete_of, none);
    PhiChain *c = &fs->incomplete_of.v[b];
    if (c->tail)
        fs->incomplete.v[c->tail - 1].next = fs->incomplete.n;
    else
        c->head = fs->incomplete.n;
    c->tail = fs->incomplete.n;
}

static ValueId read_var_recursive(Lowerer *L, uint64_t var, BlockId b)
{
    IrBlock *blk = &fn(L)->blocks.v[b];
    ValueId v;
    if (!blk->sealed) {
        v = new_phi(L, b, var);
        add_incomplete(L, b, var, v);
    } else if (blk->preds.n == 1) {
        v = read_single_pred_chain(L, var, b);
    } else if (blk->preds.n == 0) {
        v = undef_var(L, var, b);
    } else {
        v = new_phi(L, b, var);
        ir_write_var(L, var, b, v);
        v = add_phi_operands(L, var, v);
    }
    ir_write_var(L, var, b, v);
    return v;
}

static ValueId read_var(Lowerer *L, uint64_t var, BlockId b)
{
    ValueId v = lookup_def(L, var, b);
    return v ? ir_resolve(fn(L), v) : read_var_recursive(L, var, b);
}

static void seal_block(Lowerer *L, BlockId b)
{
    FnState *fs = L->fs;
    if (b < fs->incomplete_of.n) {
        /* add_phi_operands may chain more phis of b: follow next live */
        for (uint32_t i = fs->incomplete_of.v[b].head; i; i = fs->incomplete.v[i - 1].next) {
            IncompletePhi ip = fs->incomplete.v[i - 1];
            add_phi_operands(L, ip.var, ip.phi);
        }
        fs->incomplete_of.v[b].head = fs->incomplete_of.v[b].tail = 0;
    }
    fn(L)->blocks.v[b].sealed = true;
}

/* ---- names ------------------------------------------------------------------------------ */

static uint32_t name_of(const Lowerer *L, const Node *n)
{
    return n && n->kind == N_NAME ? L->S->toks.v[n->first_tok].name : 0;
}

/* Comprehension variables live in their own scope: their keys carry a tag. */
static uint64_t var_key(const Lowerer *L, uint32_t name)
{
    for (int i = L->fs->ncomp - 1; i >= 0; i--)
        if (name_set_has(&L->fs->comp_vars[i], name))
            return ((uint64_t)L->fs->comp_tags[i] << 32) | name;
    return name;
}

uint32_t ir_intern_qual(Lowerer *L, uint32_t base_qual, uint32_t name)
{
    uint32_t bl, nl;
    const char *b = intern_str(&L->S->names, base_qual, &bl);
    const char *s = intern_str(&L->S->names, name, &nl);
    char *q = arena_alloc(L->A, bl + nl + 2);
    memcpy(q, b, bl);
    q[bl] = '.';
    memcpy(q + bl + 1, s, nl);
    return intern(&L->S->names, q, bl + 1 + nl);
}

uint32_t ir_intern_cstr(Lowerer *L, const char *s)
{
    return intern(&L->S->names, s, (uint32_t)strlen(s));
}

static const char *const builtin_names[] = {
    "abs", "all", "any", "bool", "dict", "enumerate", "filter", "float", "getattr", "hasattr",
    "int", "isinstance", "iter", "len", "list", "map", "max", "min", "next", "print", "range",
    "reversed", "round", "set", "setattr", "sorted", "str", "sum", "super", "tuple", "type",
    "zip", "open", "id", "hash", "repr", "format", "divmod", "pow", "vars", "callable", "eval",
};

static uint32_t builtin_qual(Lowerer *L, uint32_t name)
{
    uint32_t len;
    const char *s = intern_str(&L->S->names, name, &len);
    for (size_t i = 0; i < sizeof builtin_names / sizeof builtin_names[0]; i++)
        if (strlen(builtin_names[i]) == len && memcmp(builtin_names[i], s, len) == 0)
            return ir_intern_qual(L, ir_intern_cstr(L, "builtins"), name);
    return 0;
}

/* A name not assigned in this scope: an import, a module-level definition or
 * a builtin. */
static ValueId load_global(Lowerer *L, uint32_t name, uint32_t node)
{
    ValueId v = emit(L, IR_GLOBAL, node);
    IrValue *x = &fn(L)->values.v[v];
    x->name = name;
    x->qual = module_import_qual(L, name);
    if (!x->qual && !name_set_has(&L->module_assigned, name))
        x->qual = builtin_qual(L, name);
    return v;
}

static bool is_local(const Lowerer *L, uint32_t name)
{
    const FnState *fs = L->fs;
    if (name_set_has(&fs->globals, name))
        return false;
    for (int i = fs->ncomp - 1; i >= 0; i--)
        if (name_set_has(&fs->comp_vars[i], name))
            return true;
    /* At module level too, a name no statement binds is a builtin or comes
     * from a star import: read as a variable it would meet an incomplete phi
     * inside a loop (and lose its qualification when the phi collapses), and
     * the lookup would walk every block above (an elif chain). */
    return name_set_has(&fs->assigned, name) || (fs->fn == 0 && name_set_has(&fs->rebound, name));
}

static ValueId load_name(Lowerer *L, uint32_t name, uint32_t node)
{
    if (!name)
        return emit(L, IR_OPAQUE, node);
    if (!is_local(L, name))
        return load_global(L, name, node);
    uint32_t imported = var_key(L, name) == name ? scope_import_qual(L, name) : 0;
    if (imported) {
        ValueId g = emit(L, IR_GLOBAL, node);
        fn(L)->values.v[g].name = name;
        fn(L)->values.v[g].qual = imported;
        return g;
    }
    ValueId v = read_var(L, var_key(L, name), L->fs->cur);
    IrValue *x = &fn(L)->values.v[v];
    if (x->op == IR_UNDEF && L->fs->fn == 0) {
        /* module level, never assigned on this path: a builtin or a name
         * defined by code pfc cannot see (star import) */
        return load_global(L, name, node);
    }
    return v;
}

void ir_store_name(Lowerer *L, uint32_t name, ValueId v)
{
    if (!name)
        return;
    name_set_add(&L->fs->rebound, name);
    ir_write_var(L, var_key(L, name), L->fs->cur, v);
    IrValue *x = &fn(L)->values.v[v];
    if (!x->name && (x->op == IR_CALL || x->op == IR_FUNC || x->op == IR_CLASS))
        x->name = name;   /* for dumps and messages: `model = Net()` */
    if (L->fs->fn == 0)
        module_record_def(L, name, v);
}

/* ---- expressions ----------------------------------------------------------------------- */

static ValueId lower_expr(Lowerer *L, uint32_t id);

static ValueId lower_kids(Lowerer *L, uint32_t id, IrOp op)
{
    const Node *n = syn_node(L->S, id);
    uint32_t k = node_nkids(L->S, n), i = 0;
    ValueId *args = k ? arena_ids(L->A, &L->ids, k) : NULL;   /* reserved now: kids lower nested lists */
    FOR_EACH_KID(n, kid)
        args[i++] = lower_expr(L, kid);
    ValueId v = emit(L, op, id);
    fn(L)->values.v[v].args = args;
    fn(L)->values.v[v].nargs = k;
    return v;
}

static ValueId lower_call(Lowerer *L, uint32_t id, ValueId callee)
{
    uint32_t argid = node_kid_id(L->S, syn_node(L->S, id), 1);
    uint32_t k = argid == UINT32_MAX ? 0 : node_nkids(L->S, syn_node(L->S, argid));
    ValueId *args = arena_ids(L->A, &L->ids, 2 * (k + 1));   /* the keyword names follow: ir_kwname */
    uint32_t *kw = args + k + 1;
    memset(kw, 0, (k + 1) * sizeof *kw);
    args[0] = callee;
    uint32_t i = 0;
    const Node *argn = argid == UINT32_MAX ? NULL : syn_node(L->S, argid);
    if (argn) FOR_EACH_KID(argn, aid) {
        const Node *a = syn_node(L->S, aid);
        if (a->kind == N_KEYWORD) {
            kw[i + 1] = name_of(L, node_kid(L->S, a, 0));
            args[i + 1] = lower_expr(L, node_kid_id(L->S, a, 1));
        } else {
            args[i + 1] = lower_expr(L, aid);
        }
        i++;
    }
    ValueId v = emit(L, IR_CALL, id);
    fn(L)->values.v[v].args = args;
    fn(L)->values.v[v].nargs = k + 1;
    return v;
}

static ValueId lower_attribute(Lowerer *L, uint32_t id, ValueId base)
{
    const Node *n = syn_node(L->S, id);
    const Token *name = n->nkids >= 3 && elem_is_token(n->kids[n->nkids - 1])
                            ? &L->S->toks.v[elem_index(n->kids[n->nkids - 1])]
                            : NULL;
    ValueId v = emit1(L, IR_ATTR, id, base);
    IrValue *x = &fn(L)->values.v[v];
    x->name = name && name->kind == T_NAME ? name->name : 0;
    /* name resolution through attributes: F.softmax -> torch.nn.functional.softmax */
    uint32_t base_qual = fn(L)->values.v[base].qual;
    if (base_qual && x->name && fn(L)->values.v[base].op != IR_CALL)
        fn(L)->values.v[v].qual = ir_intern_qual(L, base_qual, x->name);
    return v;
}

static bool is_left_spine(const Lowerer *L, uint32_t id)
{
    if (id == UINT32_MAX)
        return false;
    NodeKind k = (NodeKind)syn_node(L->S, id)->kind;
    return k == N_BIN_OP || k == N_ATTRIBUTE || k == N_CALL || k == N_SUBSCRIPT;
}

/* One step up a left spine, the left operand already lowered. */
static ValueId lower_spine_step(Lowerer *L, uint32_t id, ValueId left)
{
    switch ((NodeKind)syn_node(L->S, id)->kind) {
    case N_ATTRIBUTE: return lower_attribute(L, id, left);
    case N_CALL: return lower_call(L, id, left);
    case N_SUBSCRIPT:
        return emit2(L, IR_SUBSCR, id, left, lower_expr(L, node_kid_id(L->S, syn_node(L->S, id), 1)));
    default:
        return emit2(L, IR_BINOP, id, left, lower_expr(L, node_kid_id(L->S, syn_node(L->S, id), 1)));
    }
}

/* Left-deep chains (a + b + ..., a.b.c(...)[i]) are unbounded in length:
 * walk down the spine with a loop, then lower from the innermost operand up. */
static ValueId lower_left_spine(Lowerer *L, uint32_t id)
{
    /* most chains are short: the spine lives on the stack until it outgrows it
     * (in the arena, one copy per chain would stay behind until the file is done) */
    uint32_t local[16];
    struct { uint32_t *v, n, cap; } spine = {local, 0, 16};
    uint32_t cur = id;
    while (is_left_spine(L, cur)) {
        if (spine.n == spine.cap) {
            uint32_t *was = spine.v;
            spine.v = ir_heap_grow(was == local ? NULL : was, &spine.cap, 0, sizeof *spine.v);
            if (was == local)
                memcpy(spine.v, local, sizeof local);
        }
        spine.v[spine.n++] = cur;
        cur = node_kid_id(L->S, syn_node(L->S, cur), 0);
    }
    ValueId left = lower_expr(L, cur);
    for (uint32_t i = spine.n; i-- > 0;)
        left = lower_spine_step(L, spine.v[i], left);
    if (spine.v != local)
        free(spine.v);
    return left;
}

static void bind_comprehension_targets(Lowerer *L, uint32_t target, NameSet *vars)
{
    const Node *t = syn_node(L->S, target);
    if (t->kind == N_NAME) {
        name_set_add(vars, name_of(L, t));
        return;
    }
    if (t->kind == N_TUPLE || t->kind == N_LIST || t->kind == N_PAREN || t->kind == N_STARRED)
        FOR_EACH_KID(t, kid)
            bind_comprehension_targets(L, kid, vars);
}

/* A comprehension is lowered in line, once (no loop): its element's facts are
 * what rules need. Its variables are renamed so they do not leak. */
static ValueId lower_comprehension(Lowerer *L, uint32_t id)
{
    FnState *fs = L->fs;
    if (fs->ncomp >= MAX_COMP_DEPTH)
        return emit(L, IR_OPAQUE, id);
    NameSet *vars = &fs->comp_vars[fs->ncomp];
    name_set_free(vars);   /* an earlier comprehension's, at this depth */
    fs->comp_tags[fs->ncomp] = ++L->comp_counter;
    fs->ncomp++;
    ARENA_VEC(ValueId) parts = {0};
    FOR_EACH_KID(syn_node(L->S, id), cid) {
        const Node *c = syn_node(L->S, cid);
        if (c->kind != N_COMP_FOR)
            continue;
        uint32_t target = node_kid_id(L->S, c, 0);
        ValueId it = lower_expr(L, node_kid_id(L->S, c, 1));
        bind_comprehension_targets(L, target, vars);
        ir_assign(L, target, emit1(L, IR_ITER_NEXT, cid, it));
        uint32_t j = 0;
        FOR_EACH_KID(c, condid) {
            const Node *cond = syn_node(L->S, condid);
            if (j++ >= 2 && cond->kind == N_COMP_IF)
                VEC_PUSH(L->T, parts, lower_expr(L, node_kid_id(L->S, cond, 0)));
        }
    }
    ValueId elem = lower_expr(L, node_kid_id(L->S, syn_node(L->S, id), 0));
    fs->ncomp--;
    ValueId v = emit1(L, IR_BUILD, id, elem);
    return v;
}

static ValueId lower_expr(Lowerer *L, uint32_t id)
{
    if (id == UINT32_MAX)
        return emit(L, IR_OPAQUE, 0);
    const Node *n = syn_node(L->S, id);
    switch ((NodeKind)n->kind) {
    case N_NAME: return load_name(L, name_of(L, n), id);
    case N_CONSTANT: case N_NUMBER: case N_STRING: case N_STRINGS:
        return emit(L, IR_CONST, id);
    case N_FSTRING: lower_kids(L, id, IR_OPAQUE); return emit(L, IR_CONST, id);
    case N_FSTRING_FIELD: case N_FORMAT_SPEC: return lower_kids(L, id, IR_OPAQUE);
    case N_PAREN: return lower_expr(L, node_kid_id(L->S, n, 0));
    case N_TUPLE: case N_LIST: case N_SET: case N_DICT: case N_DICT_ITEM: case N_SLICE:
        return lower_kids(L, id, IR_BUILD);
    case N_STARRED: case N_DOUBLE_STARRED: return lower_expr(L, node_kid_id(L->S, n, 0));
    case N_LIST_COMP: case N_SET_COMP: case N_DICT_COMP: case N_GENERATOR:
        return lower_comprehension(L, id);
    case N_NAMED_EXPR: {
        ValueId v = lower_expr(L, node_kid_id(L->S, n, 1));
        ir_store_name(L, name_of(L, node_kid(L->S, syn_node(L->S, id), 0)), v);
        return v;
    }
    case N_IF_EXP: {
        ValueId a = lower_expr(L, node_kid_id(L->S, n, 0));
        ValueId c = lower_expr(L, node_kid_id(L->S, syn_node(L->S, id), 1));
        ValueId b = lower_expr(L, node_kid_id(L->S, syn_node(L->S, id), 2));
        ValueId v = emit2(L, IR_BOOLOP, id, a, b);
        ir_cur_fn(L)->values.v[v].index = c;   /* the estimator picks the branch */
        return v;
    }
    case N_BOOL_OP: return lower_kids(L, id, IR_BOOLOP);
    case N_NOT: return lower_kids(L, id, IR_COMPARE);
    case N_COMPARE: return lower_kids(L, id, IR_COMPARE);
    case N_BIN_OP: case N_ATTRIBUTE: case N_CALL: case N_SUBSCRIPT:
        return lower_left_spine(L, id);
    case N_POWER: return lower_kids(L, id, IR_BINOP);
    case N_UNARY_OP: return lower_kids(L, id, IR_UNARY);
    case N_AWAIT: return lower_kids(L, id, IR_AWAIT);
    case N_YIELD: case N_YIELD_FROM: return lower_kids(L, id, IR_YIELD);
    case N_LAMBDA: return ir_lower_lambda(L, id);
    default: return emit(L, IR_OPAQUE, id);
    }
}

ValueId ir_lower_expr(Lowerer *L, uint32_t id) { return lower_expr(L, id); }

/* ---- assignment targets ------------------------------------------------------------------ */

void ir_assign(Lowerer *L, uint32_t target, ValueId v)
{
    const Node *t = syn_node(L->S, target);
    switch ((NodeKind)t->kind) {
    case N_NAME:
        ir_store_name(L, name_of(L, t), v);
        return;
    case N_PAREN:
        ir_assign(L, node_kid_id(L->S, t, 0), v);
        return;
    case N_STARRED:
        ir_assign(L, node_kid_id(L->S, t, 0), emit1(L, IR_BUILD, target, v));
        return;
    case N_TUPLE: case N_LIST: {
        uint32_t i = 0;
        FOR_EACH_KID(t, kid) {
            ValueId e = emit1(L, IR_UNPACK, target, v);
            fn(L)->values.v[e].index = i++;
            ir_assign(L, kid, e);
        }
        return;
    }
    case N_ATTRIBUTE: {
        const Node *n = t;
        const Token *name = &L->S->toks.v[elem_index(n->kids[n->nkids - 1])];
        ValueId obj = lower_expr(L, node_kid_id(L->S, n, 0));
        ValueId s = emit2(L, IR_STORE_ATTR, target, obj, v);
        fn(L)->values.v[s].name = name->kind == T_NAME ? name->name : 0;
        return;
    }
    case N_SUBSCRIPT: {
        ValueId obj = lower_expr(L, node_kid_id(L->S, t, 0));
        ValueId idx = lower_expr(L, node_kid_id(L->S, syn_node(L->S, target), 1));
        ValueId args[3] = {obj, idx, v};
        ValueId s = emit(L, IR_STORE_SUBSCR, target);
        set_args(L, s, args, 3);
        fn(L)->values.v[s].index = L->rhs_node;
        return;
    }
    default:
        return;
    }
}

/* ---- control flow helpers used by stmt.c -------------------------------------------------- */

BlockId ir_new_block(Lowerer *L) { return new_block(L); }
void ir_add_edge(Lowerer *L, BlockId from, BlockId to) { add_edge(L, from, to); }
void ir_seal(Lowerer *L, BlockId b) { seal_block(L, b); }
void ir_dead(Lowerer *L) { start_dead_block(L); }
ValueId ir_emit(Lowerer *L, IrOp op, uint32_t node) { return emit(L, op, node); }
ValueId ir_emit1(Lowerer *L, IrOp op, uint32_t node, ValueId a) { return emit1(L, op, node, a); }
ValueId ir_emit2(Lowerer *L, IrOp op, uint32_t node, ValueId a, ValueId b)
{
    return emit2(L, op, node, a, b);
}
IrFunction *ir_cur_fn(Lowerer *L) { return fn(L); }
