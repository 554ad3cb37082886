/* Statements, scopes, imports and the entry point of the IR. */
#include "internal.h"
#include "project.h"
#include <stdlib.h>
#include <string.h>

/* ---- name sets -------------------------------------------------------------------------- */

enum { NAME_SET_SMALL = 8 };

static uint32_t name_slot(uint32_t name, uint32_t mask)
{
    return (uint32_t)((name * 0x9E3779B1u) >> 7) & mask;
}

static void name_set_index(NameSet *s, uint32_t name)
{
    uint32_t i = name_slot(name, s->mask);
    while (s->slots[i])
        i = (i + 1) & s->mask;
    s->slots[i] = name;
}

/* Keeps the index at most half full. */
static void name_set_reindex(NameSet *s)
{
    uint32_t size = 32;
    while (size < s->v.n * 2 + 2)
        size *= 2;
    free(s->slots);
    s->slots = calloc(size, sizeof *s->slots);
    if (!s->slots)
        abort();
    s->mask = size - 1;
    for (uint32_t k = 0; k < s->v.n; k++)
        name_set_index(s, s->v.v[k]);
}

bool name_set_has(const NameSet *s, uint32_t name)
{
    if (!s->slots) {
        for (uint32_t k = 0; k < s->v.n; k++)
            if (s->v.v[k] == name)
                return true;
        return false;
    }
    for (uint32_t i = name_slot(name, s->mask); s->slots[i]; i = (i + 1) & s->mask)
        if (s->slots[i] == name)
            return true;
    return false;
}

void name_set_add(NameSet *s, uint32_t name)
{
    if (!name || name_set_has(s, name))
        return;
    LIST_PUSH(s->v, name);
    if (s->slots && s->v.n * 2 <= s->mask + 1)
        name_set_index(s, name);
    else if (s->v.n > NAME_SET_SMALL)
        name_set_reindex(s);
}

void name_set_free(NameSet *s)
{
    free(s->v.v);
    free(s->slots);
    memset(s, 0, sizeof *s);
}

/* ---- which names a scope binds ------------------------------------------------------------ */

static uint32_t tok_name_at(const Syntax *S, const Node *n, TokKind k)
{
    const Token *t = node_token(S, n, k);
    return t ? t->name : 0;
}

static void collect_target(Lowerer *L, uint32_t id, NameSet *out)
{
    const Node *t = syn_node(L->S, id);
    if (t->kind == N_NAME) {
        name_set_add(out, L->S->toks.v[t->first_tok].name);
    } else if (t->kind == N_TUPLE || t->kind == N_LIST || t->kind == N_PAREN ||
               t->kind == N_STARRED) {
        FOR_EACH_KID(t, kid)
            collect_target(L, kid, out);
    }
}

/* The last NAME token of a node (import aliases: `a.b as c` binds c). */
static uint32_t last_name(const Syntax *S, const Node *n)
{
    for (uint32_t i = n->nkids; i-- > 0;)
        if (elem_is_token(n->kids[i]) && S->toks.v[elem_index(n->kids[i])].kind == T_NAME)
            return S->toks.v[elem_index(n->kids[i])].name;
    return 0;
}

static void collect_import_alias(Lowerer *L, const Node *alias, NameSet *out)
{
    const Node *dotted = node_kid(L->S, alias, 0);
    if (node_token(L->S, alias, T_KW_AS))
        name_set_add(out, last_name(L->S, alias));
    else if (dotted)   /* import a.b binds a */
        name_set_add(out, tok_name_at(L->S, dotted, T_NAME));
    else
        name_set_add(out, tok_name_at(L->S, alias, T_NAME));
}

/* Nodes that open a scope of their own: their insides bind nothing here. */
static bool opens_scope(NodeKind k)
{
    return k == N_LAMBDA || k == N_LIST_COMP || k == N_SET_COMP || k == N_DICT_COMP ||
           k == N_GENERATOR;
}

/* Records what node `id` binds; returns whether its children belong to the
 * same scope and should be visited. */
static bool collect_one(Lowerer *L, uint32_t id, NameSet *bound, NameSet *globals)
{
    const Node *n = syn_node(L->S, id);
    switch ((NodeKind)n->kind) {
    case N_ASSIGN: {
        uint32_t last = UINT32_MAX;
        FOR_EACH_KID(n, kid) {
            if (last != UINT32_MAX)
                collect_target(L, last, bound);   /* all but the value */
            last = kid;
        }
        return true;
    }
    case N_AUG_ASSIGN: case N_ANN_ASSIGN: case N_FOR: case N_DEL:
        collect_target(L, node_kid_id(L->S, n, 0), bound);
        return true;
    case N_WITH_ITEM:
        if (node_nkids(L->S, n) > 1)
            collect_target(L, node_kid_id(L->S, n, 1), bound);
        return true;
    case N_NAMED_EXPR:
        collect_target(L, node_kid_id(L->S, n, 0), bound);
        return true;
    case N_IMPORT_ALIAS:
        collect_import_alias(L, n, bound);
        return false;
    case N_FUNC_DEF: case N_CLASS_DEF:
        name_set_add(bound, tok_name_at(L->S, n, T_NAME));
        return false;   /* its decorators' and defaults' walruses are too rare to matter */
    case N_EXCEPT: case N_PAT_AS: case N_PAT_STAR:
        if (node_token(L->S, n, T_KW_AS) || n->kind == N_PAT_STAR)
            name_set_add(bound, last_name(L->S, n));
        return true;
    case N_PAT_CAPTURE:
        name_set_add(bound, tok_name_at(L->S, node_kid(L->S, n, 0), T_NAME));
        return false;
    case N_GLOBAL: case N_NONLOCAL:
        for (uint32_t i = 0; i < n->nkids; i++)
            if (elem_is_token(n->kids[i]) && L->S->toks.v[elem_index(n->kids[i])].kind == T_NAME)
                name_set_add(globals, L->S->toks.v[elem_index(n->kids[i])].name);
        return false;
    default:
        return !opens_scope((NodeKind)n->kind);
    }
}

/* The names a scope binds, found with an explicit stack: expression chains
 * can be far deeper than the C stack. */
static void collect_bindings(Lowerer *L, uint32_t body, NameSet *bound, NameSet *globals)
{
    struct { uint32_t *v, n, cap; } stack = {0};   /* malloc'ed: every scope walks again */
    LIST_PUSH(stack, body);
    while (stack.n) {
        uint32_t id = stack.v[--stack.n];
        if (!collect_one(L, id, bound, globals))
            continue;
        const Node *n = syn_node(L->S, id);
        for (uint32_t i = n->nkids; i-- > 0;)
            if (!elem_is_token(n->kids[i]))
                LIST_PUSH(stack, n->kids[i]);
    }
    free(stack.v);
}

/* ---- module symbols ------------------------------------------------------------------------ */

/* The qualified name the module's latest import of `name` bound, or 0: a
 * small hash map by name (a scan of the imports per read would be quadratic
 * in a module with thousands of them). Slots hold name and qual; 0 = empty. */
static uint32_t import_slot(uint32_t name, uint32_t mask) { return (name * 0x9E3779B1u) & mask; }

uint32_t module_import_qual(Lowerer *L, uint32_t name)
{
    if (!L->import_map)
        return 0;
    for (uint32_t i = import_slot(name, L->import_mask); L->import_map[i][0]; i = (i + 1) & L->import_mask)
        if (L->import_map[i][0] == name)
            return L->import_map[i][1];
    return 0;
}

/* Sets name's slot; true if the name is new to the map. */
static bool put_import(uint32_t (*map)[2], uint32_t mask, uint32_t name, uint32_t qual)
{
    uint32_t i = import_slot(name, mask);
    while (map[i][0] && map[i][0] != name)
        i = (i + 1) & mask;
    bool added = !map[i][0];
    map[i][0] = name;
    map[i][1] = qual;
    return added;
}

static void note_module_import(Lowerer *L, uint32_t name, uint32_t qual)
{
    if (!name)
        return;
    if (!L->import_map || (L->nimports + 1) * 2 > L->import_mask + 1) {   /* at most half full */
        uint32_t size = L->import_map ? (L->import_mask + 1) * 2 : 64;
        uint32_t (*grown)[2] = calloc(size, sizeof *grown);
        if (!grown)
            abort();
        for (uint32_t i = 0; L->import_map && i <= L->import_mask; i++)
            if (L->import_map[i][0])
                put_import(grown, size - 1, L->import_map[i][0], L->import_map[i][1]);
        free(L->import_map);
        L->import_map = grown;
        L->import_mask = size - 1;
    }
    L->nimports += put_import(L->import_map, L->import_mask, name, qual);
}

void module_record_def(Lowerer *L, uint32_t name, ValueId v)
{
    IrModuleDef d = {name, v};
    VEC_PUSH(L->A, L->ir->module_defs, d);
}

/* The dotted text of a DOTTED_NAME node, interned. */
static uint32_t dotted_qual(Lowerer *L, const Node *dotted, uint32_t prefix)
{
    uint32_t q = prefix;
    for (uint32_t i = 0; i < dotted->nkids; i++) {
        Elem e = dotted->kids[i];
        if (!elem_is_token(e) || L->S->toks.v[elem_index(e)].kind != T_NAME)
            continue;
        uint32_t nm = L->S->toks.v[elem_index(e)].name;
        q = q ? ir_intern_qual(L, q, nm) : nm;
    }
    return q;
}

/* An import binds a name to a qualified name. Reads of the name that no
 * other binding can reach get the qualified name directly (see load_name):
 * inside a loop the SSA value would be an incomplete phi at lowering time,
 * and decisions made while lowering (no_grad regions) need the name now. */
static void bind_import(Lowerer *L, uint32_t name, uint32_t qual, uint32_t node)
{
    ValueId v = ir_emit(L, IR_GLOBAL, node);
    IrValue *x = &ir_cur_fn(L)->values.v[v];
    x->name = name;
    x->qual = qual;
    ir_write_var(L, name, L->fs->cur, v);
    ImportEntry e = {name, qual};
    VEC_PUSH(L->T, L->fs->imports, e);
    if (L->fs->fn == 0) {
        module_record_def(L, name, v);
        note_module_import(L, name, qual);
    }
}

uint32_t scope_import_qual(Lowerer *L, uint32_t name)
{
    const FnState *fs = L->fs;
    if (name_set_has(&fs->rebound, name))
        return 0;
    for (uint32_t i = fs->imports.n; i-- > 0;)
        if (fs->imports.v[i].name == name)
            return fs->imports.v[i].qual;
    return 0;
}

/* import a.b.c [as d] */
static void lower_import(Lowerer *L, uint32_t id)
{
    const Node *n = syn_node(L->S, id);
    VEC_PUSH(L->A, L->ir->import_nodes, id);
    FOR_EACH_KID(n, aid) {
        const Node *alias = syn_node(L->S, aid);
        const Node *dotted = node_kid(L->S, alias, 0);
        if (!dotted)
            continue;
        if (node_token(L->S, alias, T_KW_AS)) {
            bind_import(L, last_name(L->S, alias), dotted_qual(L, dotted, 0), aid);
        } else {
            uint32_t first = tok_name_at(L->S, dotted, T_NAME);
            bind_import(L, first, first, aid);
        }
    }
}

/* The leading dots of a relative import, then its dotted name: "..utils".
 * The dots stay in the qualified name so that the project can resolve it
 * against the importing file's package; no library name starts with one. */
static uint32_t relative_base(Lowerer *L, const Node *n)
{
    char buf[256];
    uint32_t len = 0;
    for (uint32_t i = 0; i < n->nkids && len < 64; i++) {
        Elem e = n->kids[i];
        TokKind k = elem_is_token(e) ? (TokKind)L->S->toks.v[elem_index(e)].kind : T_NAME;
        if (k == T_DOT || k == T_ELLIPSIS) {
            for (int d = k == T_DOT ? 1 : 3; d > 0; d--)
                buf[len++] = '.';
        } else if (k == T_KW_IMPORT) {
            break;
        }
    }
    /* the interner keeps the pointer: a new name must outlive this frame */
    uint32_t base = intern_lookup(&L->S->names, buf, len);
    if (!base)
        base = intern(&L->S->names, arena_strndup(L->A, buf, len), len);
    FOR_EACH_KID(n, kid) {
        const Node *k = syn_node(L->S, kid);
        if (k->kind == N_DOTTED_NAME) {
            uint32_t d = dotted_qual(L, k, 0), dl, bl;
            const char *ds = intern_str(&L->S->names, d, &dl);
            const char *bs = intern_str(&L->S->names, base, &bl);
            char *q = arena_alloc(L->A, bl + dl + 1);
            memcpy(q, bs, bl);
            memcpy(q + bl, ds, dl);
            return intern(&L->S->names, q, bl + dl);
        }
    }
    return base;
}

/* The qualified name `from base import name` binds: "a.b.c", "..utils.f", ".f". */
static uint32_t from_import_qual(Lowerer *L, uint32_t base, uint32_t name)
{
    uint32_t bl;
    const char *b = intern_str(&L->S->names, base, &bl);
    if (bl && b[bl - 1] == '.') {   /* `from . import name` */
        uint32_t nl;
        const char *s = intern_str(&L->S->names, name, &nl);
        char *q = arena_alloc(L->A, bl + nl + 1);
        memcpy(q, b, bl);
        memcpy(q + bl, s, nl);
        return intern(&L->S->names, q, bl + nl);
    }
    return ir_intern_qual(L, base, name);
}

/* from a.b import c [as d], ... ; from .m import c */
static void lower_import_from(Lowerer *L, uint32_t id)
{
    const Node *n = syn_node(L->S, id);
    VEC_PUSH(L->A, L->ir->import_nodes, id);
    uint32_t base = 0;
    bool relative = node_token(L->S, n, T_DOT) || node_token(L->S, n, T_ELLIPSIS);
    if (relative) {
        base = relative_base(L, n);
    } else {
        FOR_EACH_KID(n, kid) {
            const Node *k = syn_node(L->S, kid);
            if (k->kind == N_DOTTED_NAME && !base)
                base = dotted_qual(L, k, 0);
        }
    }
    FOR_EACH_KID(n, aid) {
        const Node *alias = syn_node(L->S, aid);
        if (alias->kind != N_IMPORT_ALIAS)
            continue;
        uint32_t orig = tok_name_at(L->S, alias, T_NAME);
        uint32_t bound = node_token(L->S, alias, T_KW_AS) ? last_name(L->S, alias) : orig;
        bind_import(L, bound, base && orig ? from_import_qual(L, base, orig) : 0, aid);
    }
}

/* ---- statements -------------------------------------------------------------------------- */

static void lower_stmt(Lowerer *L, uint32_t id);

static void lower_block(Lowerer *L, uint32_t id)
{
    if (id == UINT32_MAX)
        return;
    const Node *n = syn_node(L->S, id);
    FOR_EACH_KID(n, kid)
        lower_stmt(L, kid);
}

/* The first child node of a given kind, or UINT32_MAX. */
static uint32_t kid_of_kind(const Syntax *S, uint32_t id, NodeKind k)
{
    const Node *n = syn_node(S, id);
    FOR_EACH_KID(n, kid)
        if (syn_node(S, kid)->kind == k)
            return kid;
    return UINT32_MAX;
}

/* Ends the current block with an edge to `to`, if it is reachable. */
static void jump(Lowerer *L, BlockId to) { ir_add_edge(L, L->fs->cur, to); }

static BlockId begin_sealed_block(Lowerer *L, BlockId from)
{
    BlockId b = ir_new_block(L);
    ir_add_edge(L, from, b);
    ir_seal(L, b);
    L->fs->cur = b;
    return b;
}

/* The position in n->kids of the first node child at or after `from`. */
static uint32_t next_kid_pos(const Node *n, uint32_t from)
{
    while (from < n->nkids && elem_is_token(n->kids[from]))
        from++;
    return from;
}

/* if test: BLOCK (elif test: BLOCK)* [else: BLOCK] -- ELIF nodes are children of IF */
/* The current block branches on test (its value v): kept for whoever
 * evaluates branches (the estimator), also when the test is a bare name
 * and so no value of the block stands for it. */
static void mark_test(Lowerer *L, uint32_t test, ValueId v)
{
    IrBlock *b = &ir_cur_fn(L)->blocks.v[L->fs->cur];
    b->cond = v;
    b->cond_node = test;
}

static void lower_if_chain(Lowerer *L, uint32_t id, uint32_t first_clause)
{
    const Node *n = syn_node(L->S, id);
    BlockId join = ir_new_block(L);
    uint32_t raw = next_kid_pos(n, 0);   /* position in kids[]: node_kid(i) is linear */
    for (uint32_t k = 0; k < first_clause && raw < n->nkids; k++)
        raw = next_kid_pos(n, raw + 1);
    uint32_t test = node_kid_id(L->S, n, 0), body = node_kid_id(L->S, n, 1);
    for (;;) {
        mark_test(L, test, ir_lower_expr(L, test));
        BlockId cond = L->fs->cur;
        begin_sealed_block(L, cond);
        lower_block(L, body);
        jump(L, join);
        BlockId other = ir_new_block(L);
        ir_add_edge(L, cond, other);
        ir_seal(L, other);
        L->fs->cur = other;
        if (raw >= n->nkids)
            break;
        const Node *c = syn_node(L->S, n->kids[raw]);
        raw = next_kid_pos(n, raw + 1);
        if (c->kind == N_ELIF) {
            test = node_kid_id(L->S, c, 0);
            body = node_kid_id(L->S, c, 1);
            continue;
        }
        if (c->kind == N_ELSE)
            lower_block(L, node_kid_id(L->S, c, 0));
        break;
    }
    jump(L, join);
    ir_seal(L, join);
    L->fs->cur = join;
}

/* The `else` clause of a loop or try (if any), then on to `join`, which has
 * all its predecessors now. */
static void lower_else_and_join(Lowerer *L, uint32_t stmt, BlockId join)
{
    uint32_t orelse = kid_of_kind(L->S, stmt, N_ELSE);
    if (orelse != UINT32_MAX)
        lower_block(L, node_kid_id(L->S, syn_node(L->S, orelse), 0));
    jump(L, join);
    ir_seal(L, join);
    L->fs->cur = join;
}

static void push_loop(Lowerer *L, BlockId header, BlockId exit, uint32_t node)
{
    FnState *fs = L->fs;
    if (fs->nloops < MAX_LOOP_DEPTH) {
        LoopCtx c = {header, exit, node};
        fs->loops[fs->nloops] = c;
    }
    fs->nloops++;
}

static void pop_loop(Lowerer *L) { L->fs->nloops--; }

static LoopCtx *current_loop(Lowerer *L)
{
    FnState *fs = L->fs;
    return fs->nloops > 0 && fs->nloops <= MAX_LOOP_DEPTH ? &fs->loops[fs->nloops - 1] : NULL;
}

/* while test: BLOCK [else: BLOCK]  /  for target in iter: BLOCK [else: BLOCK] */
static void lower_loop(Lowerer *L, uint32_t id, bool is_for)
{
    const Node *n = syn_node(L->S, id);
    ValueId iter = is_for ? ir_lower_expr(L, node_kid_id(L->S, n, 1)) : 0;
    BlockId header = ir_new_block(L);
    jump(L, header);
    BlockId after = ir_new_block(L);
    push_loop(L, header, after, id);
    /* the header belongs to its own loop */
    ir_cur_fn(L)->blocks.v[header].loop_parent = ir_cur_fn(L)->blocks.v[header].loop_header;
    ir_cur_fn(L)->blocks.v[header].loop_header = header;
    ir_cur_fn(L)->blocks.v[header].loop_node = id;
    L->fs->cur = header;
    ValueId next = 0;
    if (is_for)
        next = ir_emit1(L, IR_ITER_NEXT, id, iter);
    else
        mark_test(L, node_kid_id(L->S, syn_node(L->S, id), 0), ir_lower_expr(L, node_kid_id(L->S, syn_node(L->S, id), 0)));
    BlockId body = ir_new_block(L);
    ir_add_edge(L, header, body);
    ir_seal(L, body);
    L->fs->cur = body;
    if (is_for)
        ir_assign(L, node_kid_id(L->S, syn_node(L->S, id), 0), next);
    lower_block(L, kid_of_kind(L->S, id, N_BLOCK));
    jump(L, header);
    pop_loop(L);
    ir_seal(L, header);
    begin_sealed_block(L, header);   /* the loop ends normally: its else clause runs */
    lower_else_and_join(L, id, after);
}

static void lower_break_continue(Lowerer *L, bool is_break)
{
    LoopCtx *c = current_loop(L);
    if (c)
        jump(L, is_break ? c->exit : c->header);
    ir_dead(L);
}

/* try: BLOCK (except ...: BLOCK)* [else: BLOCK] [finally: BLOCK]
 * An exception may leave the body anywhere: handlers are entered from the
 * block before the body and from its end. */
static void lower_try(Lowerer *L, uint32_t id)
{
    BlockId before = L->fs->cur;
    BlockId join = ir_new_block(L);
    begin_sealed_block(L, before);
    lower_block(L, kid_of_kind(L->S, id, N_BLOCK));
    BlockId body_end = L->fs->cur;
    uint32_t nk = node_nkids(L->S, syn_node(L->S, id));
    for (uint32_t i = 0; i < nk; i++) {
        uint32_t cid = node_kid_id(L->S, syn_node(L->S, id), i);
        const Node *c = syn_node(L->S, cid);
        if (c->kind != N_EXCEPT)
            continue;
        BlockId h = ir_new_block(L);
        ir_add_edge(L, before, h);
        ir_add_edge(L, body_end, h);
        ir_seal(L, h);
        L->fs->cur = h;
        uint32_t nck = node_nkids(L->S, c);
        for (uint32_t j = 0; j + 1 < nck; j++)
            ir_lower_expr(L, node_kid_id(L->S, syn_node(L->S, cid), j));
        if (node_token(L->S, syn_node(L->S, cid), T_KW_AS))
            ir_store_name(L, last_name(L->S, syn_node(L->S, cid)), ir_emit(L, IR_OPAQUE, cid));
        lower_block(L, kid_of_kind(L->S, cid, N_BLOCK));
        jump(L, join);
    }
    L->fs->cur = body_end;
    lower_else_and_join(L, id, join);
    uint32_t fin = kid_of_kind(L->S, id, N_FINALLY);
    if (fin != UINT32_MAX)
        lower_block(L, node_kid_id(L->S, syn_node(L->S, fin), 0));
}

/* The grad mode a context manager sets, from its qualified name. */
static GradMode grad_mode_of_context(Lowerer *L, ValueId ctx, GradMode current)
{
    const IrFunction *f = ir_cur_fn(L);
    const IrValue *v = &f->values.v[ctx];
    if (v->op != IR_CALL || !v->nargs)
        return current;
    const IrValue *callee = &f->values.v[v->args[0]];
    uint32_t len;
    const char *q = intern_str(&L->S->names, callee->qual, &len);
    if (!callee->qual)
        return current;
    if ((len == 13 && memcmp(q, "torch.no_grad", 13) == 0) ||
        (len == 20 && memcmp(q, "torch.inference_mode", 20) == 0))
        return GRAD_DISABLED;
    if (len == 17 && memcmp(q, "torch.enable_grad", 17) == 0)
        return GRAD_ENABLED;
    if (len == 22 && memcmp(q, "torch.set_grad_enabled", 22) == 0) {
        if (v->nargs < 2)
            return GRAD_UNKNOWN;
        const IrValue *arg = &f->values.v[v->args[1]];
        if (arg->op == IR_CONST) {
            const Token *t = &L->S->toks.v[syn_node(L->S, arg->node)->first_tok];
            return t->kind == T_KW_FALSE ? GRAD_DISABLED
                   : t->kind == T_KW_TRUE ? GRAD_ENABLED : GRAD_UNKNOWN;
        }
        return GRAD_UNKNOWN;
    }
    return current;
}

static bool qual_is(const Lowerer *L, uint32_t qual, const char *s);

static bool is_set_grad_enabled(Lowerer *L, ValueId call)
{
    const IrFunction *f = ir_cur_fn(L);
    const IrValue *v = &f->values.v[call];
    return v->op == IR_CALL && v->nargs &&
           qual_is(L, f->values.v[v->args[0]].qual, "torch.set_grad_enabled");
}

static bool is_enable_grad(Lowerer *L, ValueId ctx)
{
    const IrFunction *f = ir_cur_fn(L);
    const IrValue *v = &f->values.v[ctx];
    if (v->op != IR_CALL || !v->nargs)
        return false;
    uint32_t len;
    const char *q = intern_str(&L->S->names, f->values.v[v->args[0]].qual, &len);
    return len == 17 && memcmp(q, "torch.enable_grad", 17) == 0;
}

/* with item (as target)?, ...: BLOCK */
static void lower_with(Lowerer *L, uint32_t id)
{
    GradMode saved = L->fs->grad;
    bool saved_forced = L->fs->grad_forced;
    uint32_t nk = node_nkids(L->S, syn_node(L->S, id));
    ARENA_VEC(ValueId) ctxs = {0};
    for (uint32_t i = 0; i < nk; i++) {
        uint32_t item = node_kid_id(L->S, syn_node(L->S, id), i);
        if (syn_node(L->S, item)->kind != N_WITH_ITEM)
            continue;
        ValueId ctx = ir_lower_expr(L, node_kid_id(L->S, syn_node(L->S, item), 0));
        VEC_PUSH(L->T, ctxs, ctx);
        GradMode g = grad_mode_of_context(L, ctx, L->fs->grad);
        L->fs->grad_forced = g == GRAD_ENABLED && g != L->fs->grad ? true
                             : g == GRAD_ENABLED && L->fs->grad == GRAD_ENABLED
                                 ? (L->fs->grad_forced || is_enable_grad(L, ctx))
                                 : false;
        L->fs->grad = g;
        ValueId entered = ir_emit1(L, IR_WITH_ENTER, item, ctx);
        if (node_nkids(L->S, syn_node(L->S, item)) > 1)
            ir_assign(L, node_kid_id(L->S, syn_node(L->S, item), 1), entered);
    }
    lower_block(L, kid_of_kind(L->S, id, N_BLOCK));
    L->fs->grad = saved;
    L->fs->grad_forced = saved_forced;
    for (uint32_t i = ctxs.n; i-- > 0;)
        ir_emit1(L, IR_WITH_EXIT, id, ctxs.v[i]);
}

static void lower_aug_assign(Lowerer *L, uint32_t id)
{
    uint32_t target = node_kid_id(L->S, syn_node(L->S, id), 0);
    ValueId old = ir_lower_expr(L, target);
    ValueId rhs = ir_lower_expr(L, node_kid_id(L->S, syn_node(L->S, id), 1));
    ValueId r = ir_emit2(L, IR_BINOP, id, old, rhs);
    ir_assign(L, target, r);
    ir_emit1(L, IR_AUG_STORE, id, r);
}

static void lower_match(Lowerer *L, uint32_t id)
{
    ir_lower_expr(L, node_kid_id(L->S, syn_node(L->S, id), 0));
    BlockId before = L->fs->cur, join = ir_new_block(L);
    FOR_EACH_KID(syn_node(L->S, id), cid) {
        if (syn_node(L->S, cid)->kind != N_CASE)
            continue;
        begin_sealed_block(L, before);
        NameSet caps = {0};
        collect_bindings(L, node_kid_id(L->S, syn_node(L->S, cid), 0), &caps, &caps);
        for (uint32_t k = 0; k < caps.v.n; k++)
            ir_store_name(L, caps.v.v[k], ir_emit(L, IR_OPAQUE, cid));
        name_set_free(&caps);
        lower_block(L, kid_of_kind(L->S, cid, N_BLOCK));
        jump(L, join);
    }
    ir_add_edge(L, before, join);
    ir_seal(L, join);
    L->fs->cur = join;
}

static void lower_simple(Lowerer *L, uint32_t id)
{
    const Node *n = syn_node(L->S, id);
    uint32_t nk = node_nkids(L->S, n);
    switch ((NodeKind)n->kind) {
    case N_EXPR_STMT: {
        ValueId v = ir_lower_expr(L, node_kid_id(L->S, n, 0));
        ir_cur_fn(L)->values.v[v].flags |= IRV_STMT;
        /* `torch.set_grad_enabled(False)` as a statement: the mode holds
         * for what follows (until the enclosing with-block, if any, ends) */
        if (is_set_grad_enabled(L, v))
            L->fs->grad = grad_mode_of_context(L, v, L->fs->grad);
        return;
    }
    case N_ASSIGN: {
        uint32_t rhs = node_kid_id(L->S, n, nk - 1);
        ValueId v = ir_lower_expr(L, rhs);
        uint32_t i = 0;
        L->rhs_node = rhs;
        FOR_EACH_KID(n, kid)
            if (i++ + 1 < nk)
                ir_assign(L, kid, v);
        L->rhs_node = 0;
        return;
    }
    case N_ANN_ASSIGN:
        if (nk >= 3)
            ir_assign(L, node_kid_id(L->S, n, 0),
                      ir_lower_expr(L, node_kid_id(L->S, syn_node(L->S, id), 2)));
        return;
    case N_AUG_ASSIGN: lower_aug_assign(L, id); return;
    case N_RETURN: {
        ValueId r = nk ? ir_lower_expr(L, node_kid_id(L->S, n, 0)) : 0;
        ValueId v = r ? ir_emit1(L, IR_RETURN, id, r) : ir_emit(L, IR_RETURN, id);
        LIST_PUSH(ir_cur_fn(L)->returns, v);
        ir_dead(L);
        return;
    }
    case N_RAISE:
        for (uint32_t i = 0; i < nk; i++)
            ir_lower_expr(L, node_kid_id(L->S, syn_node(L->S, id), i));
        ir_emit(L, IR_RAISE, id);
        ir_dead(L);
        return;
    case N_BREAK: lower_break_continue(L, true); return;
    case N_CONTINUE: lower_break_continue(L, false); return;
    case N_IMPORT: lower_import(L, id); return;
    case N_IMPORT_FROM: lower_import_from(L, id); return;
    case N_DEL: case N_ASSERT:
        FOR_EACH_KID(n, kid)
            ir_lower_expr(L, kid);
        return;
    default:
        return;
    }
}

static void lower_def(Lowerer *L, uint32_t id);
static void lower_class(Lowerer *L, uint32_t id);

static void lower_stmt(Lowerer *L, uint32_t id)
{
    const Node *n = syn_node(L->S, id);
    switch ((NodeKind)n->kind) {
    case N_SIMPLE_LINE:
        FOR_EACH_KID(n, kid)
            lower_simple(L, kid);
        return;
    case N_IF: lower_if_chain(L, id, 2); return;
    case N_WHILE: lower_loop(L, id, false); return;
    case N_FOR: lower_loop(L, id, true); return;
    case N_TRY: lower_try(L, id); return;
    case N_WITH: lower_with(L, id); return;
    case N_MATCH: lower_match(L, id); return;
    case N_FUNC_DEF: lower_def(L, id); return;
    case N_CLASS_DEF: lower_class(L, id); return;
    case N_BLOCK: lower_block(L, id); return;
    default: return;   /* ERROR nodes and type aliases carry no dataflow we use */
    }
}

/* ---- scopes -------------------------------------------------------------------------------- */

static int new_function(Lowerer *L, uint32_t node, uint32_t name, ScopeKind kind)
{
    IrFunction f;
    memset(&f, 0, sizeof f);
    f.name = name;
    f.node = node;
    f.kind = kind;
    f.class_index = kind == SCOPE_FUNCTION ? L->class_index : -1;
    f.parent = L->fs ? L->fs->fn : -1;
    f.entry_grad = GRAD_ENABLED;
    int idx = (int)L->ir->funcs.n;
    LIST_PUSH(L->ir->funcs, f);
    IrFunction *nf = &L->ir->funcs.v[idx];
    ir_values_reserve(nf);   /* value 0 means none: a zeroed placeholder */
    memset(&nf->values.v[0], 0, sizeof nf->values.v[0]);
    nf->values.n = 1;
    IrBlock entry;
    memset(&entry, 0, sizeof entry);
    entry.sealed = true;
    ir_block_push(nf, &entry);
    return idx;
}

static void begin_scope(Lowerer *L, FnState *fs, int idx, GradMode grad)
{
    memset(fs, 0, sizeof *fs);
    fs->fn = idx;
    fs->cur = 0;
    fs->grad = grad;
    L->fs = fs;
}

/* Phis found trivial during construction forward to their value: make every
 * operand point at the final value. */
static void resolve_function(IrFunction *f)
{
    for (uint32_t i = 1; i < f->values.n; i++) {
        IrValue *v = &f->values.v[i];
        for (uint32_t a = 0; a < v->nargs; a++)
            v->args[a] = ir_resolve(f, v->args[a]);
    }
}

static bool qual_is(const Lowerer *L, uint32_t qual, const char *s)
{
    return intern_is(&L->S->names, qual, s);
}

static bool qual_prefix(const Lowerer *L, uint32_t qual, const char *p)
{
    return intern_has_prefix(&L->S->names, qual, p);
}

/* @torch.no_grad() / @torch.inference_mode() (called or not) */
static GradMode decorator_grad(Lowerer *L, ValueId dec, GradMode current)
{
    const IrFunction *f = ir_cur_fn(L);
    const IrValue *v = &f->values.v[dec];
    if (v->op == IR_CALL && v->nargs)
        v = &f->values.v[v->args[0]];
    if (qual_is(L, v->qual, "torch.no_grad") || qual_is(L, v->qual, "torch.inference_mode"))
        return GRAD_DISABLED;
    if (qual_is(L, v->qual, "torch.enable_grad"))
        return GRAD_ENABLED;
    return current;
}

static void add_param(Lowerer *L, uint32_t name, uint32_t node, uint32_t pos)
{
    if (!name)
        return;
    ValueId p = ir_emit(L, IR_PARAM, node);
    IrValue *v = &ir_cur_fn(L)->values.v[p];
    v->name = name;
    v->index = pos;
    LIST_PUSH(ir_cur_fn(L)->params, p);
    name_set_add(&L->fs->assigned, name);
    ir_store_name(L, name, p);
}

/* Lowers parameter defaults in the enclosing scope; returns the PARAMS node. */
static void lower_defaults(Lowerer *L, uint32_t params)
{
    if (params == UINT32_MAX)
        return;
    FOR_EACH_KID(syn_node(L->S, params), pid) {
        const Node *p = syn_node(L->S, pid);
        if (node_token(L->S, p, T_EQUAL))
            ir_lower_expr(L, node_kid_id(L->S, p, node_nkids(L->S, p) - 1));
    }
}

static void bind_params(Lowerer *L, uint32_t params)
{
    if (params == UINT32_MAX)
        return;
    uint32_t i = 0;
    FOR_EACH_KID(syn_node(L->S, params), pid)
        add_param(L, tok_name_at(L->S, syn_node(L->S, pid), T_NAME), pid, i++);
}

static int lower_function_body(Lowerer *L, uint32_t id, uint32_t name, ScopeKind kind,
                               uint32_t params, uint32_t body, bool body_is_expr,
                               GradMode grad)
{
    FnState *outer = L->fs;
    int idx = new_function(L, id, name, kind);
    L->ir->funcs.v[idx].entry_grad = grad;
    FnState fs;
    begin_scope(L, &fs, idx, grad);
    if (body != UINT32_MAX && !body_is_expr)
        collect_bindings(L, body, &fs.assigned, &fs.globals);
    bind_params(L, params);
    int saved_class = L->class_index;
    L->class_index = -1;
    if (body_is_expr) {
        ValueId r = ir_lower_expr(L, body);
        ValueId v = ir_emit1(L, IR_RETURN, body, r);
        LIST_PUSH(ir_cur_fn(L)->returns, v);
    } else {
        lower_block(L, body);
    }
    L->class_index = saved_class;
    resolve_function(&L->ir->funcs.v[idx]);
    ir_end_scope(L, &fs, outer);
    return idx;
}

/* DECORATOR* ['async'] 'def' NAME [TYPE_PARAMS] PARAMS ['->' expr] ':' BLOCK */
static void lower_def(Lowerer *L, uint32_t id)
{
    GradMode grad = GRAD_ENABLED;
    uint32_t nk = node_nkids(L->S, syn_node(L->S, id));
    for (uint32_t i = 0; i < nk; i++) {
        uint32_t kid = node_kid_id(L->S, syn_node(L->S, id), i);
        if (syn_node(L->S, kid)->kind == N_DECORATOR)
            grad = decorator_grad(L, ir_lower_expr(L, node_kid_id(L->S, syn_node(L->S, kid), 0)),
                                  grad);
    }
    uint32_t params = kid_of_kind(L->S, id, N_PARAMS);
    lower_defaults(L, params);
    uint32_t name = tok_name_at(L->S, syn_node(L->S, id), T_NAME);
    int cls = L->class_index;
    int idx = lower_function_body(L, id, name, SCOPE_FUNCTION, params,
                                  kid_of_kind(L->S, id, N_BLOCK), false, grad);
    L->ir->funcs.v[idx].class_index = cls;
    if (cls >= 0)
        VEC_PUSH(L->A, L->ir->classes.v[cls].methods, idx);
    ValueId f = ir_emit(L, IR_FUNC, id);
    ir_cur_fn(L)->values.v[f].index = (uint32_t)idx;
    ir_store_name(L, name, f);
}

ValueId ir_lower_lambda(Lowerer *L, uint32_t id)
{
    uint32_t params = kid_of_kind(L->S, id, N_PARAMS);
    lower_defaults(L, params);
    uint32_t nk = node_nkids(L->S, syn_node(L->S, id));
    uint32_t body = node_kid_id(L->S, syn_node(L->S, id), nk - 1);
    if (body == params)
        body = UINT32_MAX;
    int idx = lower_function_body(L, id, 0, SCOPE_LAMBDA, params, body, true, L->fs->grad);
    ValueId f = ir_emit(L, IR_FUNC, id);
    ir_cur_fn(L)->values.v[f].index = (uint32_t)idx;
    return f;
}

static const char *const module_bases[] = {
    "torch.nn.Module", "torch.nn.modules.module.Module", "torch.nn.Sequential",
    "pytorch_lightning.LightningModule", "lightning.LightningModule",
    "lightning.pytorch.LightningModule", "transformers.PreTrainedModel",
};

static bool contains_for(const char *s, size_t n)
{
    for (size_t i = 0; i + 3 <= n; i++)
        if (memcmp(s + i, "For", 3) == 0)
            return true;
    return false;
}

/* torch.nn.<Layer>: a class of torch.nn (not of its functional, init,
 * utils or parameter namespaces), named in CamelCase; `class Head(nn.Linear)`
 * is a module. Also transformers' model classes (`GPT2PreTrainedModel`,
 * `LlamaForCausalLM`, `BertModel`). */
static bool library_module_class(Lowerer *L, uint32_t qual)
{
    uint32_t len;
    const char *q = intern_str(&L->S->names, qual, &len);
    const char *last = q + len;
    while (last > q && last[-1] != '.')
        last--;
    size_t n = (size_t)(q + len - last);
    if (!qual || !n || last[0] < 'A' || last[0] > 'Z' || (n == 9 && !memcmp(last, "Parameter", 9)) ||
        (n == 6 && !memcmp(last, "Buffer", 6)))
        return false;   /* tensors, not modules */
    if (len > 9 && memcmp(q, "torch.nn.", 9) == 0)
        return (size_t)(last - q) == 9 || (len > 17 && memcmp(q, "torch.nn.modules.", 17) == 0);
    if (len > 13 && memcmp(q, "transformers.", 13) == 0 && (size_t)(last - q) == 13)
        return (n > 5 && memcmp(last + n - 5, "Model", 5) == 0) || contains_for(last, n);
    return false;
}

/* The last class of the file named so (as the name resolves once defined), or NULL. */
static const IrClass *in_file_class(Lowerer *L, uint32_t name)
{
    for (uint32_t c = L->ir->classes.n; c-- > 0;)
        if (L->ir->classes.v[c].name == name)
            return &L->ir->classes.v[c];
    return NULL;
}

static bool base_is_module(Lowerer *L, const IrValue *base)
{
    for (size_t i = 0; i < sizeof module_bases / sizeof module_bases[0]; i++)
        if (qual_is(L, base->qual, module_bases[i]))
            return true;
    if (library_module_class(L, base->qual))
        return true;
    if (base->op == IR_GLOBAL || base->op == IR_CLASS) {
        const IrClass *c = in_file_class(L, base->name);
        return c && c->is_module;
    }
    return false;
}

static bool defines_forward(Lowerer *L, const IrClass *c)
{
    for (uint32_t m = 0; m < c->methods.n; m++)
        if (qual_is(L, L->ir->funcs.v[c->methods.v[m]].name, "forward"))
            return true;
    return false;
}

/* DECORATOR* 'class' NAME [TYPE_PARAMS] [ARGUMENTS] ':' BLOCK */
static void lower_class(Lowerer *L, uint32_t id)
{
    IrClass c;
    bool imported_base = false;
    memset(&c, 0, sizeof c);
    c.name = tok_name_at(L->S, syn_node(L->S, id), T_NAME);
    c.node = id;
    uint32_t args = kid_of_kind(L->S, id, N_ARGUMENTS);
    if (args != UINT32_MAX) FOR_EACH_KID(syn_node(L->S, args), a) {
        if (syn_node(L->S, a)->kind == N_KEYWORD)
            continue;
        ValueId b = ir_lower_expr(L, a);
        IrValue base = ir_cur_fn(L)->values.v[b];
        if (base.op == IR_CLASS)
            base.name = L->ir->classes.v[base.index].name;
        VEC_PUSH(L->A, c.bases, base.qual ? base.qual : base.name);
        c.is_module |= base_is_module(L, &base);
        /* imported: a qualified name, or a global no class of the file
         * defines (a relative or star import) */
        imported_base |= base.qual ? !qual_prefix(L, base.qual, "builtins.")
                                   : base.op == IR_GLOBAL && !in_file_class(L, base.name);
    }
    int cls = (int)L->ir->classes.n;
    VEC_PUSH(L->A, L->ir->classes, c);
    int saved = L->class_index;
    L->class_index = cls;
    FnState *outer = L->fs;
    int idx = new_function(L, id, c.name, SCOPE_CLASS);
    FnState fs;
    begin_scope(L, &fs, idx, outer->grad);
    uint32_t body = kid_of_kind(L->S, id, N_BLOCK);
    collect_bindings(L, body, &fs.assigned, &fs.globals);
    lower_block(L, body);
    resolve_function(&L->ir->funcs.v[idx]);
    ir_end_scope(L, &fs, outer);
    L->class_index = saved;
    /* a class of an imported base (MegatronModule, a project's BaseModel)
     * that defines forward() is a module */
    if (imported_base && defines_forward(L, &L->ir->classes.v[cls]))
        L->ir->classes.v[cls].is_module = true;
    ValueId v = ir_emit(L, IR_CLASS, id);
    ir_cur_fn(L)->values.v[v].index = (uint32_t)cls;
    ir_store_name(L, c.name, v);
}

/* Module-level definitions by name, so lookups do not scan them all. */
static void index_module_defs(Ir *ir)
{
    Arena *a = ir->syn->arena;
    ir->nnames = ir->syn->names.by_id.n;
    ir->last_def = arena_zalloc(a, (ir->nnames + 1) * sizeof *ir->last_def);
    ir->prev_def = arena_zalloc(a, (ir->module_defs.n + 1) * sizeof *ir->prev_def);
    for (uint32_t i = 0; i < ir->module_defs.n; i++) {
        uint32_t name = ir->module_defs.v[i].name;
        if (name >= ir->nnames)
            continue;
        ir->prev_def[i] = ir->last_def[name];
        ir->last_def[name] = i + 1;
    }
}

static uint32_t method_slot(const Ir *ir, uint64_t key)
{
    uint32_t i = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & ir->method_mask;
    while (ir->method_keys[i] && ir->method_keys[i] != key)
        i = (i + 1) & ir->method_mask;
    return i;
}

static void index_class_methods(Ir *ir)
{
    uint32_t n = 0;
    for (uint32_t c = 0; c < ir->classes.n; c++)
        n += ir->classes.v[c].methods.n;
    uint32_t size = 16;
    while (size < 2 * n)
        size *= 2;
    ir->method_mask = size - 1;
    ir->method_keys = arena_zalloc(ir->syn->arena, size * sizeof *ir->method_keys);
    ir->method_fns = arena_alloc(ir->syn->arena, size * sizeof *ir->method_fns);
    for (uint32_t c = 0; c < ir->classes.n; c++)
        for (uint32_t m = 0; m < ir->classes.v[c].methods.n; m++) {
            int fn = ir->classes.v[c].methods.v[m];
            uint64_t key = (uint64_t)(c + 1) << 32 | ir->funcs.v[fn].name;
            uint32_t i = method_slot(ir, key);
            if (!ir->method_keys[i]) {
                ir->method_keys[i] = key;
                ir->method_fns[i] = fn;
            }
        }
    ir->name_forward = intern(&ir->syn->names, "forward", 7);
}

int ir_class_method(const Ir *ir, uint32_t cls, uint32_t name)
{
    if (!ir->method_keys || cls >= ir->classes.n)
        return -1;
    uint32_t i = method_slot(ir, (uint64_t)(cls + 1) << 32 | name);
    return ir->method_keys[i] ? ir->method_fns[i] : -1;
}

void ir_build(Ir *ir, Syntax *syn) { ir_build_in_project(ir, syn, NULL); }

/* Lowering, then (with a project) the imported modules' exports, then facts:
 * the hook runs only once the file's own imports are known. */
void ir_build_in_project(Ir *ir, Syntax *syn, const IrProjectHook *hook)
{
    memset(ir, 0, sizeof *ir);
    ir->syn = syn;
    Lowerer L;
    memset(&L, 0, sizeof L);
    L.ir = ir;
    L.S = syn;
    L.A = syn->arena;
    Arena scratch;
    arena_init(&scratch);
    L.T = &scratch;
    L.class_index = -1;
    int idx = new_function(&L, syn->root, 0, SCOPE_MODULE);
    FnState fs;
    begin_scope(&L, &fs, idx, GRAD_ENABLED);
    NameSet ignored = {0};
    collect_bindings(&L, syn->root, &L.module_assigned, &ignored);
    fs.assigned = L.module_assigned;
    lower_block(&L, syn->root);
    resolve_function(&ir->funcs.v[0]);
    arena_free(&scratch);   /* first: the module's values settle next, the peak of lowering */
    ir_end_scope(&L, &fs, NULL);
    name_set_free(&L.module_assigned);   /* the module's fs.assigned: ir_end_scope leaves it */
    free(L.import_map);
    name_set_free(&ignored);
    ir->funcs.v = ir_heap_settle(L.A, ir->funcs.v, ir->funcs.cap = ir->funcs.n, sizeof(IrFunction));
    index_module_defs(ir);
    index_class_methods(ir);
    if (hook && ir->import_nodes.n) {
        ProjectView view = {NULL, 0};
        hook->resolve(hook->ctx, ir, &view);
        if (view.n)
            ir_project_bind(ir, &view);
    }
    ir_index_dict_writes(ir);   /* after the bind: a project callee may change a dict */
    ir_compute_facts(ir);
}
