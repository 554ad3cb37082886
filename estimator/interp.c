/* The abstract interpreter's core: Python values, frames, control flow and
 * calls into functions and classes defined in the file (see interp.h). */
#include "checked.h"
#include "interp_int.h"
#include "../ir/project.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 4096
/* Nested evaluation is bounded by the stack it uses, not only by depth: the
 * CLI's main thread has at least 8 MiB, and 2 MiB leaves room for sanitizers. */
#define MAX_STACK (2u << 20)
#define MAX_STEPS 2000000
#define MAX_ITERATIONS 100000

static bool too_deep(Interp *in)
{
    char probe;
    uintptr_t here = (uintptr_t)&probe;
    if (!in->stack_base)
        in->stack_base = here;
    uintptr_t used = in->stack_base > here ? in->stack_base - here : here - in->stack_base;
    return in->depth >= MAX_DEPTH || used > MAX_STACK;
}

/* ---- values ----------------------------------------------------------------------------- */

AVal *av_new(Interp *in, AKind k)
{
    if (in->a->total > CK_ARENA_MAX && !in->error) {
        tr_refuse(in->tr, "the script needs more memory to interpret than an estimate may use (1 GiB)");
        interp_fail(in, in->tr->error);
    }
    AVal *v = arena_zalloc(in->a, sizeof *v);
    v->k = (uint8_t)k;
    return v;
}

AVal *av_unknown(Interp *in) { return &in->unknown; }
AVal *av_none(Interp *in) { return &in->none; }

AVal *av_int(Interp *in, int64_t i)
{
    AVal *v = av_new(in, AV_INT);
    v->i = i;
    return v;
}

AVal *av_float(Interp *in, double f)
{
    AVal *v = av_new(in, AV_FLOAT);
    v->f = f;
    return v;
}

AVal *av_bool(Interp *in, bool b)
{
    AVal *v = av_new(in, AV_BOOL);
    v->i = b;
    return v;
}

AVal *av_str(Interp *in, const char *s)
{
    AVal *v = av_new(in, AV_STR);
    v->s = s;
    return v;
}

AVal *av_qual(Interp *in, const char *q)
{
    AVal *v = av_new(in, AV_QUAL);
    v->s = q;
    return v;
}

AVal *av_bound(Interp *in, AVal *recv, const char *method)
{
    AVal *v = av_new(in, AV_BOUND);
    v->self = recv;
    v->s = method;
    return v;
}

AVal *av_seq(Interp *in, uint32_t n)
{
    AVal *v = av_new(in, AV_SEQ);
    v->n = n;
    v->items = arena_zalloc(in->a, (n ? n : 1) * sizeof *v->items);
    return v;
}

AVal *av_obj(Interp *in, NnKind kind)
{
    AVal *v = av_new(in, AV_OBJECT);
    v->obj = arena_zalloc(in->a, sizeof *v->obj);
    v->obj->cls = -1;
    v->obj->nn = kind;
    /* an opaque object is a module only where its maker says so: most are a
     * run's configuration, data or tooling (argparse, a dataset, a Trainer) */
    v->obj->is_module = kind != NN_NONE && kind < NN_OPAQUE;
    return v;
}

AVal *av_tensor_new(Interp *in, DType dt, int nd, const int64_t *dim, bool gpu)
{
    AVal *v = av_new(in, AV_TENSOR);
    v->nd = (uint8_t)(nd > TR_MAXDIM ? TR_MAXDIM : nd);
    memcpy(v->dim, dim, v->nd * sizeof *dim);
    v->dtype = (uint8_t)dt;
    tr_check_shape(in->tr, "a tensor", v->nd, v->dim);
    if (gpu) {
        v->gpu = true;
        v->t = tr_input(in->tr, dt, v->nd, v->dim);
    }
    return v;
}

AVal *av_tensor_of(Interp *in, TId t)
{
    AVal *v = av_new(in, AV_TENSOR);
    const TTensor *x = &in->tr->t.v[t];
    v->nd = x->nd;
    memcpy(v->dim, x->dim, sizeof v->dim);
    v->dtype = x->dtype;
    v->gpu = true;
    v->t = t;
    return v;
}

TId av_gpu(Interp *in, AVal *v)
{
    if (!v || v->k != AV_TENSOR)
        return 0;
    if (!v->gpu) {
        /* data the script moves to the GPU (or feeds the model directly) */
        v->t = tr_input(in->tr, (DType)v->dtype, v->nd, v->dim);
        v->gpu = true;
    }
    return v->t;
}

bool av_int_of(const AVal *v, int64_t *out)
{
    if (v && (v->k == AV_INT || v->k == AV_BOOL)) {
        *out = v->i;
        return true;
    }
    /* an integral float in int64's range (beyond it the cast is undefined) */
    if (v && v->k == AV_FLOAT && v->f > -9.2e18 && v->f < 9.2e18 && v->f == (double)(int64_t)v->f) {
        *out = (int64_t)v->f;
        return true;
    }
    return false;
}

bool av_num(const AVal *v, double *out)
{
    if (v && (v->k == AV_INT || v->k == AV_BOOL)) {
        *out = (double)v->i;
        return true;
    }
    if (v && v->k == AV_FLOAT) {
        *out = v->f;
        return true;
    }
    return false;
}

bool av_truth(const AVal *v, bool *known)
{
    *known = true;
    switch (v->k) {
    case AV_NONE: return false;
    case AV_BOOL: case AV_INT: return v->i != 0;
    case AV_FLOAT: return v->f != 0;
    case AV_STR: return v->s && v->s[0];
    case AV_SEQ: case AV_DICT: return v->n != 0;
    case AV_OBJECT: case AV_FUNC: case AV_CLASS: case AV_QUAL: case AV_DTYPE: case AV_DEVICE:
        return true;
    default:
        *known = false;
        return false;
    }
}

void obj_set(Interp *in, Obj *o, const char *name, AVal *v)
{
    for (uint32_t i = 0; i < o->nattr; i++)
        if (strcmp(o->names[i], name) == 0) {
            o->vals[i] = v;
            return;
        }
    if (o->nattr == o->cap) {
        uint32_t cap = o->cap ? o->cap * 2 : 8;
        const char **names = arena_alloc(in->a, cap * sizeof *names);
        AVal **vals = arena_alloc(in->a, cap * sizeof *vals);
        if (o->nattr) {
            memcpy(names, o->names, o->nattr * sizeof *names);
            memcpy(vals, o->vals, o->nattr * sizeof *vals);
        }
        o->names = names;
        o->vals = vals;
        o->cap = cap;
    }
    o->names[o->nattr] = name;
    o->vals[o->nattr++] = v;
}

AVal *obj_get(Obj *o, const char *name)
{
    for (uint32_t i = 0; o && i < o->nattr; i++)
        if (strcmp(o->names[i], name) == 0)
            return o->vals[i];
    return NULL;
}

AVal *args_get(const Args *a, int pos, const char *kw)
{
    if (kw)
        for (uint32_t i = 0; i < a->n; i++)
            if (a->kw[i] && strcmp(a->kw[i], kw) == 0)
                return a->v[i];
    int seen = 0;
    for (uint32_t i = 0; pos >= 0 && i < a->n; i++)
        if (!a->kw[i] && seen++ == pos)
            return a->v[i];
    return NULL;
}

void interp_fail(Interp *in, const char *why)
{
    if (!in->error)
        in->error = why;
}

const char *interp_error(const Interp *in) { return in->error; }

const char *interp_lost(const Interp *in) { return in->lost; }

/* "net.py:12: what" (or "line 12: what" in the script) for a node of the
 * current module (0: none). */
static const char *at_node(Interp *in, uint32_t node, const char *what)
{
    uint32_t line = 0, col = 0;
    if (node)
        syntax_line_col(in->S, node_start(in->S, syn_node(in->S, node)), &line, &col);
    return !line ? what
           : in->mod->label ? arena_printf(in->a, "%s:%u: %s", in->mod->label, line, what)
                            : arena_printf(in->a, "line %u: %s", line, what);
}

void interp_lost_here(Interp *in, const char *what)
{
    if (!in->lost)
        in->lost = at_node(in, in->cur_node, what);
}

const char *interp_factory_unread(const Interp *in) { return in->factory_unread; }

void interp_model_passed(Interp *in, const char *what)
{
    if (!in->model_passed)
        in->model_passed = at_node(in, in->cur_node,
                                   arena_printf(in->a, "%s received the model and is not modelled", what));
}

const char *interp_model_passed_at(const Interp *in) { return in->model_passed; }

/* A call in the script: a callee pfc cannot see (a method of an unknown
 * object, a name from a library it does not read) still passes on what
 * it is given, as unmodelled_call says. */
static AVal *call_site_value(Interp *in, AVal *callee, Args *a)
{
    return callee->k == AV_UNKNOWN ? unmodelled_call(in, NULL, a) : call_value(in, callee, a);
}

const char *const *interp_notes(const Interp *in, uint32_t *n)
{
    *n = in->notes.n;
    return in->notes.v;
}

void interp_note(Interp *in, uint32_t node, const char *what)
{
    uint32_t line = 0, col = 0;
    if (node)
        syntax_line_col(in->S, node_start(in->S, syn_node(in->S, node)), &line, &col);
    const char *text = !line ? what
                     : in->mod->label ? arena_printf(in->a, "%s:%u: %s", in->mod->label, line, what)
                                      : arena_printf(in->a, "line %u: %s", line, what);
    for (uint32_t i = 0; i < in->notes.n; i++)
        if (strcmp(in->notes.v[i], text) == 0)
            return;
    if (in->notes.n < 32)
        VEC_PUSH(in->a, in->notes, text);
}
uint64_t interp_steps(const Interp *in) { return in->steps; }

/* The source of one argument node, on one line and at most 60 bytes. */
static const char *node_source(Interp *in, const Node *n)
{
    uint32_t start = node_start(in->S, n), end = node_end(in->S, n);
    uint32_t len = end - start > 60 ? 57 : end - start;
    char *s = arena_printf(in->a, "%.*s%s", (int)len, in->S->src + start, len < end - start ? "..." : "");
    for (char *p = s; *p; p++)
        if (*p == '\n' || *p == '\r' || *p == '\t')
            *p = ' ';
    return s;
}

const char *interp_call_source(Interp *in)
{
    return in->cur_node ? node_source(in, syn_node(in->S, in->cur_node)) : NULL;
}

const char *interp_arg_source(Interp *in, int pos, const char *kw)
{
    const Node *call = in->cur_node ? syn_node(in->S, in->cur_node) : NULL;
    const Node *args = call && call->kind == N_CALL ? node_kid(in->S, call, 1) : NULL;
    int seen = 0;
    if (args) FOR_EACH_KID(args, id) {
        const Node *n = syn_node(in->S, id);
        uint32_t nk = node_nkids(in->S, n);
        const Token *name = n->kind == N_KEYWORD ? &in->S->toks.v[n->first_tok] : NULL;   /* NAME '=' */
        if (name && kw && nk && strcmp(in_name(in, name->name), kw) == 0)
            return node_source(in, node_kid(in->S, n, nk - 1));
        if (n->kind == N_STARRED)
            pos = -1;   /* positions after a splat are not the script's */
        if (n->kind != N_KEYWORD && n->kind != N_STARRED && n->kind != N_DOUBLE_STARRED && pos >= 0 &&
            seen++ == pos)
            return node_source(in, n);
    }
    return NULL;
}

const char *in_name(Interp *in, uint32_t id)
{
    if (!id || id >= in->S->names.by_id.n)
        return "";
    if (!in->names[id]) {
        uint32_t len;
        const char *s = intern_str(&in->S->names, id, &len);
        in->names[id] = arena_strndup(in->a, s, len);
    }
    return in->names[id];
}

/* ---- setup ------------------------------------------------------------------------------ */

static uint32_t *index_parents(Arena *a, const Syntax *S)
{
    uint32_t *parent = arena_zalloc(a, (S->nnodes + 1) * sizeof *parent);
    for (uint32_t id = 0; id < S->nnodes; id++) {
        const Node *n = &S->nodes[id];
        for (uint32_t k = 0; k < n->nkids; k++)
            if (!elem_is_token(n->kids[k]))
                parent[elem_index(n->kids[k])] = id;
    }
    return parent;
}

static InterpModule *module_new(Interp *in, Syntax *S, const Ir *ir, const char *path, const char *label)
{
    InterpModule *m = arena_zalloc(in->a, sizeof *m);
    m->S = S;
    m->ir = ir;
    m->path = path;
    m->label = label;
    m->demand = arena_zalloc(in->a, (ir->funcs.n + 1) * sizeof *m->demand);
    m->names = arena_zalloc(in->a, (S->names.by_id.n + 1) * sizeof *m->names);
    m->parent = index_parents(in->a, S);
    intern_init(&m->import_names, in->a);
    return m;
}

InterpModule *enter_module(Interp *in, InterpModule *m)
{
    InterpModule *prev = in->mod;
    if (m && m != prev) {
        in->mod = m;
        in->S = m->S;
        in->ir = m->ir;
        in->demand = m->demand;
        in->names = m->names;
        in->parent = m->parent;
    }
    return prev;
}

Interp *interp_new(Arena *a, Syntax *S, const Ir *ir, Trace *tr, const InterpHooks *hooks)
{
    Interp *in = arena_zalloc(a, sizeof *in);
    in->a = a;
    in->tr = tr;
    if (hooks)
        in->hooks = *hooks;
    in->unknown.k = AV_UNKNOWN;
    in->none.k = AV_NONE;
    in->script = module_new(in, S, ir, in->hooks.path ? in->hooks.path : "", NULL);
    enter_module(in, in->script);
    return in;
}

static Frame *frame_new(Interp *in, int fi, bool demand)
{
    const IrFunction *f = &in->ir->funcs.v[fi];
    Frame *fr = arena_zalloc(in->a, sizeof *fr);
    size_t n = f->values.n + 1;
    fr->fi = fi;
    fr->demand = demand;
    fr->vals = arena_zalloc(in->a, n * sizeof *fr->vals);
    fr->iters = arena_zalloc(in->a, n * sizeof *fr->iters);
    fr->iterpos = arena_zalloc(in->a, n * sizeof *fr->iterpos);
    fr->iter_done = arena_zalloc(in->a, n * sizeof *fr->iter_done);
    fr->prev = UINT32_MAX;
    return fr;
}

static Frame *demand_frame(Interp *in, int fi)
{
    if (!in->demand[fi])
        in->demand[fi] = frame_new(in, fi, true);
    return in->demand[fi];
}

/* The IR value lowered for a CST node in function fi (the last one: an
 * expression's own value is emitted after its operands). */
static ValueId value_for_node(Interp *in, int fi, uint32_t node)
{
    const IrFunction *f = &in->ir->funcs.v[fi];
    for (uint32_t i = f->values.n; i-- > 1;)
        if (f->values.v[i].node == node && f->values.v[i].op != IR_STORE_ATTR &&
            f->values.v[i].op != IR_STORE_SUBSCR)
            return i;
    return 0;
}

/* ---- literals --------------------------------------------------------------------------- */

static const Token *first_token(Interp *in, uint32_t node)
{
    const Node *n = syn_node(in->S, node);
    return n->first_tok < n->end_tok ? &in->S->toks.v[n->first_tok] : NULL;
}

static AVal *number(Interp *in, const Token *t)
{
    char buf[64];
    uint32_t k = 0;
    bool is_float = false;
    const char *s = in->S->src + t->start;
    bool hex = t->len > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    for (uint32_t i = 0; i < t->len && k + 1 < sizeof buf; i++) {
        char c = s[i];
        if (c == '_')
            continue;
        if (c == 'j' || c == 'J')
            return av_unknown(in);
        if (!hex && (c == '.' || c == 'e' || c == 'E'))
            is_float = true;
        buf[k++] = c;
    }
    buf[k] = 0;
    if (is_float)
        return av_float(in, strtod(buf, NULL));
    return av_int(in, strtoll(buf, NULL, 0));
}

static AVal *string(Interp *in, const Token *t)
{
    const char *s = in->S->src + t->start;
    uint32_t n = t->len, k = 0;
    while (k < n && s[k] != '"' && s[k] != '\'')
        k++;
    if (k + 2 > n)
        return av_unknown(in);
    uint32_t q = (n - k >= 6 && s[k + 1] == s[k] && s[k + 2] == s[k]) ? 3 : 1;
    return av_str(in, arena_strndup(in->a, s + k + q, n - k - 2 * q));
}

static AVal *constant(Interp *in, uint32_t node)
{
    const Node *n = syn_node(in->S, node);
    const Token *t = first_token(in, node);
    if (!t)
        return av_unknown(in);
    switch ((NodeKind)n->kind) {
    case N_NUMBER: return number(in, t);
    case N_STRING: return string(in, t);
    case N_STRINGS: {
        AVal *first = n->nkids ? constant(in, node_kid_id(in->S, n, 0)) : av_unknown(in);
        return first;
    }
    case N_CONSTANT:
        if (t->kind == T_KW_TRUE || t->kind == T_KW_FALSE)
            return av_bool(in, t->kind == T_KW_TRUE);
        if (t->kind == T_KW_NONE)
            return av_none(in);
        return av_new(in, AV_ELLIPSIS);
    default:
        return av_unknown(in);
    }
}

/* ---- function calls --------------------------------------------------------------------- */

static AVal *eval(Interp *in, Frame *fr, ValueId v);
static AVal *exec_value(Interp *in, Frame *fr, ValueId v);

/* What *args receives: the positional arguments no parameter took. */
static AVal *rest_positionals(Interp *in, const Args *a, bool *used)
{
    AVal *s = av_seq(in, 0);
    s->items = arena_zalloc(in->a, (a->n + 1) * sizeof *s->items);
    for (uint32_t k = 0; k < a->n; k++)
        if (!a->kw[k] && !used[k]) {
            s->items[s->n++] = a->v[k];
            used[k] = true;
        }
    return s;
}

/* What **kwargs receives: the keyword arguments no parameter named, in order. */
static AVal *rest_keywords(Interp *in, const Args *a, bool *used)
{
    AVal *d = av_new(in, AV_DICT);
    for (uint32_t k = 0; k < a->n; k++)
        if (a->kw[k] && !used[k]) {
            dict_set(in, d, a->kw[k], a->v[k], NULL);
            used[k] = true;
        }
    return d;
}

/* Binds a call's arguments to a function's parameters (positional, keyword,
 * defaults evaluated in the defining scope, *args and **kwargs). */
static void bind(Interp *in, Frame *fr, AVal *self, Args *a)
{
    const IrFunction *f = &in->ir->funcs.v[fr->fi];
    uint32_t pos = 0;
    bool *used = arena_zalloc(in->a, (a->n + 1) * sizeof *used);
    for (uint32_t i = 0; i < f->params.n; i++) {
        ValueId pv = f->params.v[i];
        const IrValue *p = &f->values.v[pv];
        const Node *pn = syn_node(in->S, p->node);
        const char *name = in_name(in, p->name);
        AVal *val = NULL;
        if (node_token(in->S, pn, T_STAR)) {   /* *args: the positionals left; none after it */
            fr->vals[pv] = rest_positionals(in, a, used);
            pos = a->n;
            continue;
        }
        if (node_token(in->S, pn, T_DOUBLESTAR)) {   /* **kwargs (the last parameter): the keywords left */
            fr->vals[pv] = rest_keywords(in, a, used);
            continue;
        }
        if (i == 0 && self && f->class_index >= 0) {
            fr->vals[pv] = self;
            continue;
        }
        for (uint32_t k = 0; k < a->n && !val; k++)
            if (a->kw[k] && strcmp(a->kw[k], name) == 0) {
                val = a->v[k];
                used[k] = true;
            }
        while (!val && pos < a->n) {
            if (!a->kw[pos] && !used[pos]) {
                val = a->v[pos];
                used[pos] = true;
            }
            pos++;
        }
        if (!val && node_token(in->S, pn, T_EQUAL) && f->parent >= 0) {
            uint32_t def = node_kid_id(in->S, pn, node_nkids(in->S, pn) - 1);
            ValueId dv = value_for_node(in, f->parent, def);
            val = dv ? eval(in, demand_frame(in, f->parent), dv) : NULL;
        }
        fr->vals[pv] = val ? val : av_unknown(in);
    }
}

/* (loop_header 0 means none: the entry block never heads a loop) */
static bool is_loop_header(const IrFunction *f, BlockId b) { return b && f->blocks.v[b].loop_header == b; }

/* An if/elif/while test's value: the branch it takes (0 the body, 1 the
 * rest); unknown: the body of an if, said so, and never a while's. */
static uint32_t branch_on(Interp *in, Frame *fr, BlockId b, ValueId test, uint32_t node, bool is_while)
{
    bool known;
    bool t = av_truth(eval(in, fr, test), &known);
    if (!known && is_while) {
        interp_note(in, node, "a while loop whose condition is unknown was not entered");
        return 1;   /* do not spin */
    }
    const IrBlock *blk = &in->ir->funcs.v[fr->fi].blocks.v[b];
    if (!known && blk->succs.n == 2 && arm_raises(&in->ir->funcs.v[fr->fi], blk->succs.v[0])) {
        interp_note(in, node, "a condition pfc cannot evaluate was taken as false (its body raises)");
        return 1;
    }
    if (!known)
        interp_note(in, node, "a condition pfc cannot evaluate was taken as true");
    return known && !t ? 1 : 0;
}

/* The branch a conditional block takes: the if/elif/while test is the last
 * value of the block. Unknown conditions take the first branch. */
static uint32_t choose_branch(Interp *in, Frame *fr, BlockId b)
{
    const IrFunction *f = &in->ir->funcs.v[fr->fi];
    const IrBlock *blk = &f->blocks.v[b];
    if (!blk->values.n)
        return 0;
    ValueId last = blk->values.v[blk->values.n - 1];
    if (is_loop_header(f, b) && f->values.v[last].op == IR_ITER_NEXT)
        return fr->iter_done[last] ? 1 : 0;
    for (uint32_t i = blk->values.n; i-- > 0;)
        if (f->values.v[blk->values.v[i]].op == IR_ITER_NEXT && is_loop_header(f, b))
            return fr->iter_done[blk->values.v[i]] ? 1 : 0;
    if (blk->cond)
        return branch_on(in, fr, b, blk->cond, blk->cond_node, is_loop_header(f, b));
    uint32_t node = f->values.v[last].node;
    uint32_t parent = in->parent[node];
    NodeKind pk = (NodeKind)syn_node(in->S, parent)->kind;
    if ((pk == N_IF || pk == N_ELIF || pk == N_WHILE) && node_kid_id(in->S, syn_node(in->S, parent), 0) == node) {
        bool known;
        bool t = av_truth(fr->vals[last] ? fr->vals[last] : av_unknown(in), &known);
        if (pk == N_WHILE && !known) {
            interp_note(in, node, "a while loop whose condition is unknown was not entered");
            return 1;   /* a while loop with an unknown condition: do not spin */
        }
        if (!known)
            interp_note(in, node, "a condition pfc cannot evaluate was taken as true");
        return known && !t ? 1 : 0;
    }
    return 0;
}

static bool is_comprehension(NodeKind k)
{
    return k == N_LIST_COMP || k == N_GENERATOR || k == N_SET_COMP || k == N_DICT_COMP;
}

/* Whether a node lies strictly inside a comprehension of the same function. */
static bool inside_comprehension(Interp *in, uint32_t node)
{
    for (uint32_t p = in->parent[node], guard = 0; node && p && guard < 256; p = in->parent[p], guard++) {
        NodeKind k = (NodeKind)syn_node(in->S, p)->kind;
        if (is_comprehension(k))
            return true;
        if (k == N_FUNC_DEF || k == N_CLASS_DEF || k == N_LAMBDA || k == N_BLOCK || k == N_MODULE)
            return false;
    }
    return false;
}

static AVal *run_frame(Interp *in, Frame *fr)
{
    const IrFunction *f = &in->ir->funcs.v[fr->fi];
    BlockId b = 0;
    uint64_t visits = 0;
    while (!in->error) {
        const IrBlock *blk = &f->blocks.v[b];
        if (++visits > MAX_ITERATIONS) {
            interp_fail(in, "a loop in the model's code did not finish within the step limit");
            break;
        }
        for (uint32_t i = 0; i < blk->values.n && !in->error; i++) {
            ValueId v = blk->values.v[i];
            if (f->values.v[v].op == IR_PARAM && fr->vals[v])
                continue;
            if (inside_comprehension(in, f->values.v[v].node))
                continue;   /* run by the comprehension's BUILD, once per item */
            exec_value(in, fr, v);
            if (f->values.v[v].op == IR_RETURN)
                return fr->ret ? fr->ret : av_none(in);
        }
        if (!blk->succs.n)
            break;
        uint32_t k = blk->succs.n == 1 ? 0 : choose_branch(in, fr, b);
        if (k >= blk->succs.n)
            k = 0;
        fr->prev = b;
        b = blk->succs.v[k];
    }
    return fr->ret ? fr->ret : av_none(in);
}

static AVal *run_function(Interp *in, int fi, AVal *self, Args *a)
{
    if (too_deep(in)) {
        interp_fail(in, "calls nest too deeply (recursion?)");
        return av_unknown(in);
    }
    Frame *fr = frame_new(in, fi, false);
    bind(in, fr, self, a);
    in->depth++;
    AVal *r = run_frame(in, fr);
    in->depth--;
    return r;
}

/* A function or class definition: the value names it by index. */
static AVal *definition(Interp *in, AKind k, uint32_t index)
{
    AVal *r = av_new(in, k);
    r->fn = (int)index;
    r->mod = in->mod;
    return r;
}

/* ---- classes of the project ------------------------------------------------------------ */

static AVal *imported(Interp *in, const char *q);
static AVal *star_imported(Interp *in, const char *name);

/* A class of the project: the module that defines it, its index there. */
typedef struct ClassRef {
    InterpModule *mod;
    int cls;
} ClassRef;

/* Base i of class c as c's module names it: a class of that module, one
 * imported from another module of the project, or (cls -1) a library
 * class such as nn.Module, whose methods pfc models elsewhere. */
static ClassRef base_class(Interp *in, ClassRef c, uint32_t i)
{
    InterpModule *back = enter_module(in, c.mod);
    uint32_t id = in->ir->classes.v[c.cls].bases.v[i];
    const char *name = in_name(in, id);
    ClassRef r = {NULL, -1};
    for (uint32_t k = 0; k < in->ir->classes.n && r.cls < 0; k++)
        if (in->ir->classes.v[k].name == id)
            r = (ClassRef){in->mod, (int)k};
    if (r.cls < 0) {   /* `from layers import Base`, `import layers`, a star import */
        AVal *v = strchr(name, '.') ? imported(in, name) : star_imported(in, name);
        if (v && v->k == AV_CLASS)
            r = (ClassRef){v->mod, v->fn};
    }
    enter_module(in, back);
    return r;
}

/* c and its project bases in method resolution order: depth first, left to
 * right, each class once (Python's C3 order wherever no two bases share a
 * base of the project). Returns the count, at most cap. */
static uint32_t linearize(Interp *in, ClassRef c, ClassRef *out, uint32_t n, uint32_t cap)
{
    for (uint32_t i = 0; i < n; i++)
        if (out[i].mod == c.mod && out[i].cls == c.cls)
            return n;
    if (n == cap)
        return n;
    out[n++] = c;
    uint32_t nbases = c.mod->ir->classes.v[c.cls].bases.n;
    for (uint32_t i = 0; i < nbases; i++) {
        ClassRef b = base_class(in, c, i);
        if (b.cls >= 0)
            n = linearize(in, b, out, n, cap);
    }
    return n;
}

#define MRO_MAX 16

static uint32_t mro_of(Interp *in, const Obj *o, ClassRef *out)
{
    return o->cls >= 0 ? linearize(in, (ClassRef){o->mod, o->cls}, out, 0, MRO_MAX) : 0;
}

/* Method `name` of class c itself (its module current), or -1. */
static int own_method(Interp *in, int cls, const char *name)
{
    const IrClass *c = &in->ir->classes.v[cls];
    for (uint32_t i = 0; i < c->methods.n; i++)
        if (strcmp(in_name(in, in->ir->funcs.v[c->methods.v[i]].name), name) == 0)
            return c->methods.v[i];
    return -1;
}

/* The first class of mro[from..n) that defines method `name`: its module
 * in *mod; -1 if none does. */
static int find_method(Interp *in, const ClassRef *mro, uint32_t from, uint32_t n, const char *name,
                       InterpModule **mod)
{
    for (uint32_t i = from; i < n; i++) {
        InterpModule *back = enter_module(in, mro[i].mod);
        int m = own_method(in, mro[i].cls, name);
        enter_module(in, back);
        if (m >= 0) {
            *mod = mro[i].mod;
            return m;
        }
    }
    return -1;
}

AVal *run_method(Interp *in, AVal *self, const char *name, Args *a, bool *found)
{
    ClassRef mro[MRO_MAX];
    uint32_t n = self && self->k == AV_OBJECT ? mro_of(in, self->obj, mro) : 0;
    InterpModule *mod = NULL;
    int m = find_method(in, mro, 0, n, name, &mod);
    *found = m >= 0;
    if (m < 0)
        return av_unknown(in);
    InterpModule *back = enter_module(in, mod);
    AVal *r = run_function(in, m, self, a);
    enter_module(in, back);
    return r;
}

static AVal *bound_method(Interp *in, InterpModule *mod, int fn, AVal *self)
{
    AVal *f = av_new(in, AV_FUNC);
    f->fn = fn;
    f->mod = mod;
    f->self = self;
    return f;
}

/* super() in a method of class C, or super(C, self): stands for self with
 * attribute lookup starting after C in self's method resolution order. */
static AVal *super_of(Interp *in, Frame *fr, Args *a)
{
    const IrFunction *f = &in->ir->funcs.v[fr->fi];
    AVal *cls = args_get(a, 0, NULL), *self = args_get(a, 1, NULL);
    if (!cls && f->class_index >= 0 && f->params.n) {
        cls = definition(in, AV_CLASS, (uint32_t)f->class_index);
        self = eval(in, fr, f->params.v[0]);
    }
    if (!cls || cls->k != AV_CLASS || !self || self->k != AV_OBJECT || self->obj->cls < 0)
        return av_unknown(in);
    AVal *s = av_new(in, AV_SUPER);
    s->self = self;
    s->fn = cls->fn;
    s->mod = cls->mod;
    return s;
}

/* ---- library bases ---------------------------------------------------------------------
 * A module class of the project may derive from a library class: nn.Linear,
 * nn.Sequential, a Hugging Face model, some library's model. Its __init__
 * (through super().__init__(...), or when the class defines none) builds that
 * class as the object's "__base__", whose parameters, attributes and forward
 * then stand for the base's; a library class pfc does not model is refused,
 * as its parameters cannot be counted. */

/* The callee super().__init__ gives for a library base (not a Python name). */
#define LIBRARY_INIT "<a library base's __init__>"

/* Library bases that register no parameters and define no forward. */
static bool adds_nothing(const char *q)
{
    static const char *const exact[] = {
        "torch.nn.Module", "torch.nn.modules.module.Module", "object", "builtins.object", "Module",
    };
    static const char *const leaves[] = {
        "ABC", "Generic", "Protocol", "LightningModule", "HyperparametersMixin", "PyTorchModelHubMixin",
        "ModelHubMixin", "NamedTuple", "Enum", "ModuleUtilsMixin",
    };
    const char *dot = strrchr(q, '.'), *leaf = dot ? dot + 1 : q;
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (strcmp(q, exact[i]) == 0)
            return true;
    for (size_t i = 0; i < sizeof leaves / sizeof leaves[0]; i++)
        if (strcmp(leaf, leaves[i]) == 0)
            return true;
    return false;
}

/* The first base of c and its project bases that is a library class adding
 * something, as the class's module names it; NULL if none. */
static const char *library_base_of(Interp *in, ClassRef c)
{
    ClassRef mro[MRO_MAX];
    uint32_t n = linearize(in, c, mro, 0, MRO_MAX);
    for (uint32_t i = 0; i < n; i++) {
        const IrClass *k = &mro[i].mod->ir->classes.v[mro[i].cls];
        for (uint32_t b = 0; b < k->bases.n; b++) {
            if (base_class(in, mro[i], b).cls >= 0)
                continue;
            InterpModule *back = enter_module(in, mro[i].mod);
            const char *q = in_name(in, k->bases.v[b]);
            enter_module(in, back);
            if (!adds_nothing(q))
                return q;
        }
    }
    return NULL;
}

static const char *library_base(Interp *in, const Obj *o)
{
    return o->is_module && o->cls >= 0 ? library_base_of(in, (ClassRef){o->mod, o->cls}) : NULL;
}

static const char *class_name(Interp *in, const Obj *o)
{
    InterpModule *back = enter_module(in, o->mod);
    const char *name = in_name(in, in->ir->classes.v[o->cls].name);
    enter_module(in, back);
    return name;
}

/* The library base's __init__ with the script's arguments: a torch.nn class
 * is built as the object's base; nothing else is modelled. */
static AVal *library_init(Interp *in, AVal *self, Args *a)
{
    const char *q = library_base(in, self->obj);
    if (!q || obj_get(self->obj, LIBRARY_BASE))   /* none, or from_pretrained loaded it */
        return av_none(in);
    if (strncmp(q, "torch.nn.", 9) == 0) {
        AVal *base = lib_call(in, q, a);
        if (base->k == AV_OBJECT && base->obj->is_module)
            obj_set(in, self->obj, LIBRARY_BASE, base);
        return av_none(in);
    }
    bool hf = strncmp(q, "transformers.", 13) == 0;
    refuse(in, arena_printf(in->a, "%s's base %s is not a class pfc models: the parameters its __init__ "
                                        "registers cannot be counted%s", class_name(in, self->obj), q,
                                 hf ? " (pfc reads Hugging Face models loaded with from_pretrained(NAME))" : ""));
    return av_none(in);
}

/* C.from_pretrained(NAME) of a class whose base is a library model: the
 * library loads the base (a Hugging Face model of the snapshot), then the
 * class's own __init__ runs, as transformers runs cls(config); the config
 * is not a value pfc reads, so sizes taken from it are refused. */
static AVal *library_pretrained(Interp *in, AVal *cls, Args *a)
{
    const char *q = library_base_of(in, (ClassRef){cls->mod, cls->fn});
    AVal *base = q ? lib_call(in, arena_printf(in->a, "%s.from_pretrained", q), a) : av_unknown(in);
    if (base->k != AV_OBJECT || !base->obj->is_module)
        return base;   /* the library hook says why */
    InterpModule *back = enter_module(in, cls->mod);
    AVal *self = av_obj(in, NN_NONE);
    self->obj->cls = cls->fn;
    self->obj->mod = in->mod;
    self->obj->is_module = true;
    obj_set(in, self->obj, LIBRARY_BASE, base);
    Args config = {{av_unknown(in)}, {NULL}, 1};
    bool found;
    run_method(in, self, "__init__", &config, &found);
    enter_module(in, back);
    return self;
}

static AVal *class_attr(Interp *in, AVal *self, const char *name);

/* C.name on a class of the project: from_pretrained of a library model's
 * subclass, or a class attribute along its bases (ResNet's
 * `planes * block.expansion`, with block the class passed in); a method
 * read off the class is not a value pfc follows. */
AVal *interp_class_attr(Interp *in, AVal *cls, const char *name)
{
    if (strcmp(name, "from_pretrained") == 0 && library_base_of(in, (ClassRef){cls->mod, cls->fn}))
        return av_bound(in, cls, name);
    Obj probe = {.cls = cls->fn, .mod = cls->mod};
    AVal self = {.k = AV_OBJECT, .obj = &probe};
    AVal *v = class_attr(in, &self, name);
    return v && v->k != AV_FUNC ? v : av_unknown(in);
}

/* super().name: a method of the classes after C; else the library base's
 * (its __init__ builds it; nn.Module's sets up nothing pfc counts). A
 * forward no class defines is refused: nn.Module has none, and looking it
 * up on self would run self's own forward again. */
static AVal *super_attr(Interp *in, AVal *sup, const char *name)
{
    ClassRef mro[MRO_MAX];
    uint32_t n = mro_of(in, sup->self->obj, mro), from = n;
    for (uint32_t i = 0; i < n; i++)
        if (mro[i].mod == sup->mod && mro[i].cls == sup->fn)
            from = i + 1;
    InterpModule *mod = NULL;
    int m = find_method(in, mro, from, n, name, &mod);
    if (m >= 0)
        return bound_method(in, mod, m, sup->self);
    AVal *base = obj_get(sup->self->obj, LIBRARY_BASE);
    const char *q = library_base(in, sup->self->obj);
    if (strcmp(name, "__init__") == 0)
        return q ? av_bound(in, sup->self, LIBRARY_INIT) : av_qual(in, "builtins.object.__init__");
    if (base)
        return attr_of_value(in, base, name);
    if (strcmp(name, "forward") == 0 || strcmp(name, "__call__") == 0) {
        const char *c = class_name(in, sup->self->obj);
        refuse(in, q ? arena_printf(in->a, "%s's super().%s() runs its base %s, which pfc does not model", c,
                                         name, q)
                          : arena_printf(in->a, "%s's super().%s() reaches nn.Module, which defines none", c, name));
        return av_unknown(in);
    }
    return attr_of_value(in, sup->self, name);
}

static bool class_has_decorator(Interp *in, int cls, const char *name)
{
    const Node *n = syn_node(in->S, in->ir->classes.v[cls].node);
    FOR_EACH_KID(n, did) {
        const Node *d = syn_node(in->S, did);
        if (d->kind != N_DECORATOR)
            continue;
        uint32_t e = node_kid_id(in->S, d, 0);
        const Token *last = d->end_tok > d->first_tok ? &in->S->toks.v[d->end_tok - 1] : NULL;
        for (uint32_t t = d->first_tok; t < d->end_tok; t++)
            if (in->S->toks.v[t].kind == T_NAME && strcmp(in_name(in, in->S->toks.v[t].name), name) == 0)
                return true;
        (void)e;
        (void)last;
    }
    return false;
}

/* The class body's function (its class-level assignments live there). */
static int class_body(Interp *in, int cls)
{
    for (uint32_t i = 0; i < in->ir->funcs.n; i++)
        if (in->ir->funcs.v[i].kind == SCOPE_CLASS && in->ir->funcs.v[i].node == in->ir->classes.v[cls].node)
            return (int)i;
    return -1;
}

/* Class-level `name [: T] = value` statements, in order: for dataclasses and
 * class attributes. Calls fn for each. */
static void class_fields(Interp *in, int cls, void (*fn)(Interp *, void *, const char *, uint32_t),
                         void *ctx)
{
    const Node *c = syn_node(in->S, in->ir->classes.v[cls].node);
    const Node *body = NULL;
    FOR_EACH_KID(c, kid)
        if (syn_node(in->S, kid)->kind == N_BLOCK)
            body = syn_node(in->S, kid);
    if (body) FOR_EACH_KID(body, lid) {
        const Node *line = syn_node(in->S, lid);
        if (line->kind == N_SIMPLE_LINE) FOR_EACH_KID(line, sid) {
            const Node *st = syn_node(in->S, sid);
            if (st->kind != N_ASSIGN && st->kind != N_ANN_ASSIGN)
                continue;
            const Node *target = node_kid(in->S, st, 0);
            if (target->kind != N_NAME)
                continue;
            const Token *t = &in->S->toks.v[target->first_tok];
            bool has_value = node_token(in->S, st, T_EQUAL) != NULL;
            uint32_t value = has_value ? node_kid_id(in->S, st, node_nkids(in->S, st) - 1) : UINT32_MAX;
            fn(in, ctx, in_name(in, t->name), value);
        }
    }
}

typedef struct FieldInit {
    Obj *obj;
    Args *args;
    int body;
} FieldInit;

/* A field keeps the place its first definition gave it (a base's field
 * that a subclass redefines takes the subclass's default), as dataclasses
 * order the __init__ parameters. */
static void init_field(Interp *in, void *ctx, const char *name, uint32_t value)
{
    FieldInit *fi = ctx;
    uint32_t pos = 0;
    while (pos < fi->obj->nattr && strcmp(fi->obj->names[pos], name) != 0)
        pos++;
    AVal *v = args_get(fi->args, -1, name);
    if (!v)
        v = args_get(fi->args, (int)pos, NULL);
    if (!v && value != UINT32_MAX && fi->body >= 0) {
        ValueId dv = value_for_node(in, fi->body, value);
        v = dv ? eval(in, demand_frame(in, fi->body), dv) : NULL;
    }
    obj_set(in, fi->obj, name, v ? v : av_unknown(in));
}

/* A dataclass's fields: those of its dataclass bases first, then its own. */
static void init_dataclass(Interp *in, Obj *o, const ClassRef *mro, uint32_t n, Args *a)
{
    for (uint32_t i = n; i-- > 0;) {
        InterpModule *back = enter_module(in, mro[i].mod);
        if (class_has_decorator(in, mro[i].cls, "dataclass")) {
            FieldInit fi = {o, a, class_body(in, mro[i].cls)};
            class_fields(in, mro[i].cls, init_field, &fi);
        }
        enter_module(in, back);
    }
}

static AVal *instantiate(Interp *in, int cls, Args *a)
{
    AVal *self = av_obj(in, NN_NONE);
    self->obj->cls = cls;
    self->obj->mod = in->mod;
    ClassRef mro[MRO_MAX];
    uint32_t n = mro_of(in, self->obj, mro);
    for (uint32_t i = 0; i < n; i++)   /* a base in another module may be the nn.Module */
        self->obj->is_module |= mro[i].mod->ir->classes.v[mro[i].cls].is_module;
    if (class_has_decorator(in, cls, "dataclass")) {
        init_dataclass(in, self->obj, mro, n, a);
        return self;
    }
    bool found;
    run_method(in, self, "__init__", a, &found);
    if (!found)   /* the library base's own __init__ takes the arguments */
        library_init(in, self, a);
    return self;
}

typedef struct ClassAttr {
    const char *want;
    uint32_t value;
    bool found;
} ClassAttr;

static void find_class_attr(Interp *in, void *ctx, const char *name, uint32_t value)
{
    (void)in;
    ClassAttr *ca = ctx;
    if (strcmp(name, ca->want) == 0 && value != UINT32_MAX) {
        ca->value = value;
        ca->found = true;
    }
}

/* A method or class attribute of class cls (its module current), or NULL. */
static AVal *own_attr(Interp *in, int cls, AVal *self, const char *name)
{
    int m = own_method(in, cls, name);
    if (m >= 0)
        return bound_method(in, in->mod, m, self);
    ClassAttr ca = {name, 0, false};
    class_fields(in, cls, find_class_attr, &ca);
    int body = class_body(in, cls);
    if (ca.found && body >= 0) {
        ValueId dv = value_for_node(in, body, ca.value);
        if (dv)
            return eval(in, demand_frame(in, body), dv);
    }
    return NULL;
}

/* A method or class attribute of an in-file object's class or its bases,
 * in resolution order, or NULL: evaluated in the module defining it. */
static AVal *class_attr(Interp *in, AVal *self, const char *name)
{
    ClassRef mro[MRO_MAX];
    uint32_t n = mro_of(in, self->obj, mro);
    AVal *v = NULL;
    for (uint32_t i = 0; i < n && !v; i++) {
        InterpModule *back = enter_module(in, mro[i].mod);
        v = own_attr(in, mro[i].cls, self, name);
        enter_module(in, back);
    }
    return v;
}

/* obj.name for an in-file object: instance attribute, method, class attribute. */
static AVal *object_attr(Interp *in, AVal *self, const char *name)
{
    AVal *v = obj_get(self->obj, name);
    if (v)
        return v;
    if (self->obj->cls >= 0 && (v = class_attr(in, self, name)))
        return v;
    return attr_of_value(in, self, name);
}

AVal *call_value(Interp *in, AVal *callee, Args *a)
{
    if (++in->steps > MAX_STEPS) {
        interp_fail(in, "the script's model code is too large to interpret");
        return av_unknown(in);
    }
    switch (callee->k) {
    case AV_FUNC:
    case AV_CLASS: {
        InterpModule *back = enter_module(in, callee->mod);
        AVal *r = callee->k == AV_FUNC ? run_function(in, callee->fn, callee->self, a)
                                       : instantiate(in, callee->fn, a);
        enter_module(in, back);
        return r;
    }
    case AV_QUAL:
        return lib_call(in, callee->s, a);
    case AV_BOUND:
        if (callee->self && callee->self->k == AV_CLASS)   /* C.from_pretrained(...) */
            return library_pretrained(in, callee->self, a);
        if (callee->self && callee->self->k == AV_OBJECT && strcmp(callee->s, LIBRARY_INIT) == 0)
            return library_init(in, callee->self, a);
        return method_call(in, callee->self, callee->s, a);
    case AV_OBJECT: {
        Obj *o = callee->obj;
        if (o->nn != NN_NONE)
            return module_call(in, o, a);
        bool found;
        AVal *r = run_method(in, callee, "forward", a, &found);
        if (!found)
            r = run_method(in, callee, "__call__", a, &found);
        if (!found && obj_get(o, LIBRARY_BASE))   /* the library base's forward */
            r = call_value(in, obj_get(o, LIBRARY_BASE), a);
        return r;
    }
    default:
        return av_unknown(in);
    }
}

/* ---- iteration ------------------------------------------------------------------------- */

/* The items a for loop over `seq` visits, or NULL when unknown. */
AVal *iter_items(Interp *in, AVal *seq)
{
    if (seq->k == AV_SEQ)
        return seq;
    if (seq->k == AV_DICT) {
        AVal *s = av_seq(in, seq->n);
        for (uint32_t i = 0; i < seq->n; i++)
            s->items[i] = av_str(in, seq->keys[i]);
        return s;
    }
    if (seq->k == AV_OBJECT && seq->obj->nn == NN_NONE && obj_get(seq->obj, LIBRARY_BASE))
        return iter_items(in, obj_get(seq->obj, LIBRARY_BASE));   /* class Blocks(nn.ModuleList) */
    if (seq->k == AV_OBJECT && seq->obj->nn == NN_MODULELIST)
        return obj_get(seq->obj, "__items__");
    if (seq->k == AV_OBJECT && seq->obj->nn == NN_SEQUENTIAL)
        return obj_get(seq->obj, "__items__");
    if (seq->k == AV_OBJECT && seq->obj->nn == NN_MODULEDICT) {
        AVal *d = obj_get(seq->obj, "__dict__");
        return d ? iter_items(in, d) : NULL;
    }
    return NULL;
}

static AVal *iter_next(Interp *in, Frame *fr, ValueId v, ValueId src)
{
    const IrFunction *f = &in->ir->funcs.v[fr->fi];
    AVal *seq = eval(in, fr, src);
    if (fr->demand) {
        AVal *items = iter_items(in, seq);
        if (items && items->n)
            return items->items[0];
        if (seq->k == AV_OBJECT && seq->obj->nn == NN_LOADER)
            return loader_batch(in, seq);
        return av_unknown(in);
    }
    BlockId b = f->values.v[v].block;
    bool fresh = !fr->iters[v] || (f->blocks.v[b].preds.n && fr->prev == f->blocks.v[b].preds.v[0]) ||
                 fr->prev == UINT32_MAX;
    if (fresh) {
        AVal *items = iter_items(in, seq);
        if (!items) {
            interp_note(in, f->values.v[v].node, "a loop over something pfc cannot enumerate ran once");
            /* unknown length: one representative iteration */
            items = av_seq(in, 1);
            items->items[0] = seq->k == AV_OBJECT && seq->obj->nn == NN_LOADER ? loader_batch(in, seq)
                                                                                : av_unknown(in);
        }
        fr->iters[v] = items;
        fr->iterpos[v] = 0;
    }
    AVal *items = fr->iters[v];
    if (fr->iterpos[v] >= items->n) {
        fr->iter_done[v] = true;
        return av_unknown(in);
    }
    fr->iter_done[v] = false;
    return items->items[fr->iterpos[v]++];
}

/* The comprehension's inline values: the first one lowered for it (*first)
 * and its ITER_NEXT, or 0 when there is none. */
static ValueId comprehension_values(Interp *in, const IrFunction *f, ValueId build, ValueId *first)
{
    const IrValue *bv = &f->values.v[build];
    uint32_t lo = node_start(in->S, syn_node(in->S, bv->node)), hi = node_end(in->S, syn_node(in->S, bv->node));
    ValueId it = 0;
    *first = build;
    for (ValueId i = build; i-- > 1;) {
        const IrValue *x = &f->values.v[i];
        if (x->block != bv->block || !x->node)
            break;
        uint32_t s = node_start(in->S, syn_node(in->S, x->node));
        if (s < lo || s >= hi)
            break;
        *first = i;
        if (x->op == IR_ITER_NEXT && !it)
            it = i;
    }
    return it;
}

/* {k: v for ...}: each element is a (key, value) pair; string keys only. */
static AVal *dict_of_pairs(Interp *in, AVal *pairs)
{
    uint32_t k = pairs->n;
    AVal *d = av_new(in, AV_DICT);
    d->items = arena_zalloc(in->a, (k + 1) * sizeof *d->items);
    d->keys = arena_zalloc(in->a, (k + 1) * sizeof *d->keys);
    for (uint32_t i = 0; i < k; i++) {
        AVal *pair = pairs->items[i];
        if (pair->k == AV_SEQ && pair->n == 2 && pair->items[0]->k == AV_STR) {
            d->keys[d->n] = pair->items[0]->s;
            d->items[d->n++] = pair->items[1];
        }
    }
    return d;
}

/* A comprehension in an executed function: its inline values (from the
 * first one lowered for it to the element) run once per item. */
static AVal *comprehension(Interp *in, Frame *fr, ValueId build)
{
    const IrFunction *f = &in->ir->funcs.v[fr->fi];
    const IrValue *bv = &f->values.v[build];
    ValueId first, it = comprehension_values(in, f, build, &first);
    if (!it)
        return av_unknown(in);
    /* the iterable is evaluated before the ITER_NEXT; evaluate the values up to it */
    for (ValueId i = first; i < it; i++)
        exec_value(in, fr, i);
    AVal *items = iter_items(in, eval(in, fr, f->values.v[it].args[0]));
    if (!items)
        return av_unknown(in);
    AVal *out = av_seq(in, items->n);
    uint32_t k = 0;
    for (uint32_t n = 0; n < items->n && !in->error; n++) {
        fr->vals[it] = items->items[n];
        bool keep = true;
        for (ValueId i = it + 1; i < build; i++) {
            exec_value(in, fr, i);
            /* a COMP_IF condition */
            uint32_t par = in->parent[f->values.v[i].node];
            if (syn_node(in->S, par)->kind == N_COMP_IF) {
                bool known;
                if (!av_truth(fr->vals[i], &known) && known)
                    keep = false;
            }
        }
        if (keep)
            out->items[k++] = fr->vals[bv->args[0]];
    }
    out->n = k;
    return syn_node(in->S, bv->node)->kind == N_DICT_COMP ? dict_of_pairs(in, out) : out;
}

/* ---- expressions ------------------------------------------------------------------------ */

static int binop_token(Interp *in, uint32_t node)
{
    const Node *n = syn_node(in->S, node);
    for (uint32_t k = 0; k < n->nkids; k++)
        if (elem_is_token(n->kids[k])) {
            int kind = in->S->toks.v[elem_index(n->kids[k])].kind;
            if (kind != T_LPAR && kind != T_RPAR)
                return kind;
        }
    return 0;
}

/* x ** y for y >= 0; false when it leaves int64 (then *f has its size). */
static bool int_pow(int64_t x, int64_t y, int64_t *out, double *f)
{
    *f = pow((double)x, (double)y);
    if (x == 0 || x == 1 || x == -1) {
        *out = x == 0 ? y == 0 : x == 1 || y % 2 == 0 ? 1 : -1;
        return true;
    }
    int64_t r = 1;
    for (int64_t i = 0; i < y; i++)   /* |x| >= 2 leaves int64 within 63 factors */
        if (!ck_imul(r, x, &r))
            return false;
    *out = r;
    return true;
}

/* Python's int operators. An exact result outside int64 (Python's ints are
 * unbounded) becomes a float of its size, which no shape takes as meant. */
static AVal *int_arith(Interp *in, int tok, int64_t x, int64_t y)
{
    int64_t r;
    double big;
    switch (tok) {
    case T_PLUS: case T_PLUSEQUAL:
        return ck_iadd(x, y, &r) ? av_int(in, r) : av_float(in, (double)x + (double)y);
    case T_MINUS: case T_MINEQUAL:
        return ck_isub(x, y, &r) ? av_int(in, r) : av_float(in, (double)x - (double)y);
    case T_STAR: case T_STAREQUAL:
        return ck_imul(x, y, &r) ? av_int(in, r) : av_float(in, (double)x * (double)y);
    case T_DOUBLESLASH: case T_DOUBLESLASHEQUAL:
        if (!y)
            return av_unknown(in);
        if (x == INT64_MIN && y == -1)
            return av_float(in, -(double)x);
        return av_int(in, x / y - ((x % y != 0) && ((x < 0) != (y < 0))));
    case T_PERCENT:
        if (!y)
            return av_unknown(in);
        if (y == -1)
            return av_int(in, 0);
        r = x % y;
        return av_int(in, r && (r < 0) != (y < 0) ? r + y : r);
    case T_SLASH: case T_SLASHEQUAL: return y ? av_float(in, (double)x / (double)y) : av_unknown(in);
    case T_DOUBLESTAR:
        if (y < 0)
            return av_float(in, pow((double)x, (double)y));
        return int_pow(x, y, &r, &big) ? av_int(in, r) : av_float(in, big);
    default: return av_unknown(in);
    }
}

static AVal *arith(Interp *in, int tok, AVal *a, AVal *b)
{
    if (a->k == AV_TENSOR || b->k == AV_TENSOR)
        return tensor_binop(in, tok, a, b);
    int64_t x, y;
    if (av_int_of(a, &x) && av_int_of(b, &y) && a->k != AV_FLOAT && b->k != AV_FLOAT)
        return int_arith(in, tok, x, y);
    double p, q;
    if (av_num(a, &p) && av_num(b, &q)) {
        switch (tok) {
        case T_PLUS: case T_PLUSEQUAL: return av_float(in, p + q);
        case T_MINUS: case T_MINEQUAL: return av_float(in, p - q);
        case T_STAR: case T_STAREQUAL: return av_float(in, p * q);
        case T_SLASH: case T_SLASHEQUAL: return q != 0 ? av_float(in, p / q) : av_unknown(in);
        default: return av_unknown(in);
        }
    }
    if (a->k == AV_SEQ && b->k == AV_SEQ && (tok == T_PLUS || tok == T_PLUSEQUAL)) {
        /* a list doubled in a loop grows past any memory: refused first */
        if (in->a->total + ((size_t)a->n + b->n) * sizeof(AVal *) > CK_ARENA_MAX) {
            tr_refuse(in->tr, "the script needs more memory to interpret than an estimate may use (1 GiB)");
            interp_fail(in, in->tr->error);
            return av_unknown(in);
        }
        AVal *s = av_seq(in, a->n + b->n);
        memcpy(s->items, a->items, a->n * sizeof *s->items);
        memcpy(s->items + a->n, b->items, b->n * sizeof *s->items);
        return s;
    }
    if (a->k == AV_STR && b->k == AV_STR && tok == T_PLUS)
        return av_str(in, arena_printf(in->a, "%s%s", a->s, b->s));
    return av_unknown(in);
}

/* `dtype == torch.float16`: two dtypes (torch.half and torch.float16 are
 * one), or two names of the same library object; -1 when pfc cannot tell. */
static int same_name(const AVal *a, const AVal *b)
{
    bool named_a = a->k == AV_QUAL || a->k == AV_DTYPE, named_b = b->k == AV_QUAL || b->k == AV_DTYPE;
    if (!named_a || !named_b)
        return -1;
    DType x, y;
    if (dtype_of(a, &x) && dtype_of(b, &y))
        return x == y;
    return a->k == AV_QUAL && b->k == AV_QUAL && strcmp(a->s, b->s) == 0 ? 1 : -1;
}

/* Whether container c holds x: a substring of a string, a key of a dict,
 * an item of a list or tuple (constants compared by value); -1 when pfc
 * cannot tell. */
static int contains(const AVal *c, const AVal *x)
{
    if (c->k == AV_STR && x->k == AV_STR && c->s && x->s)
        return strstr(c->s, x->s) != NULL;
    if (c->k == AV_DICT && x->k == AV_STR) {
        for (uint32_t i = 0; i < c->n; i++)
            if (strcmp(c->keys[i], x->s) == 0)
                return 1;
        return 0;
    }
    if (c->k != AV_SEQ || (x->k != AV_STR && x->k != AV_INT && x->k != AV_BOOL))
        return -1;
    for (uint32_t i = 0; i < c->n; i++) {
        if (c->items[i]->k == AV_UNKNOWN)
            return -1;
        if (same_key(c->items[i], x))
            return 1;
    }
    return 0;
}

static AVal *compare(Interp *in, Frame *fr, ValueId v)
{
    const IrFunction *f = &in->ir->funcs.v[fr->fi];
    const IrValue *x = &f->values.v[v];
    const Node *n = syn_node(in->S, x->node);
    if (n->kind == N_NOT) {
        bool known;
        bool t = av_truth(eval(in, fr, x->args[0]), &known);
        return known ? av_bool(in, !t) : av_unknown(in);
    }
    if (x->nargs != 2)
        return av_unknown(in);
    AVal *a = eval(in, fr, x->args[0]), *b = eval(in, fr, x->args[1]);
    int tok = binop_token(in, x->node);
    if (a->k == AV_TENSOR || b->k == AV_TENSOR)
        return tensor_binop(in, T_EQEQUAL, a, b);
    if (tok == T_KW_IN || tok == T_KW_NOT) {   /* `a in b`, `a not in b` */
        int has = contains(b, a);
        return has < 0 ? av_unknown(in) : av_bool(in, tok == T_KW_NOT ? !has : has);
    }
    if (tok == T_KW_IS || tok == T_EQEQUAL || tok == T_NOTEQUAL) {
        bool neg = tok == T_NOTEQUAL;
        if (tok == T_KW_IS)
            for (uint32_t k = 0; k < n->nkids; k++)
                if (elem_is_token(n->kids[k]) && in->S->toks.v[elem_index(n->kids[k])].kind == T_KW_NOT)
                    neg = true;
        int eq = -1;
        double p, q;
        if (a->k == AV_NONE || b->k == AV_NONE)
            eq = (a->k == AV_NONE) == (b->k == AV_NONE) ? 1 : (a->k == AV_UNKNOWN || b->k == AV_UNKNOWN) ? -1 : 0;
        else if (a->k == AV_STR && b->k == AV_STR && a->s && b->s)
            eq = strcmp(a->s, b->s) == 0;
        else if (av_num(a, &p) && av_num(b, &q))
            eq = p == q;
        else
            eq = same_name(a, b);
        return eq < 0 ? av_unknown(in) : av_bool(in, neg ? !eq : eq);
    }
    double p, q;
    if (av_num(a, &p) && av_num(b, &q)) {
        switch (tok) {
        case T_LESS: return av_bool(in, p < q);
        case T_GREATER: return av_bool(in, p > q);
        case T_LESSEQUAL: return av_bool(in, p <= q);
        case T_GREATEREQUAL: return av_bool(in, p >= q);
        default: break;
        }
    }
    return av_unknown(in);
}

static AVal *boolop(Interp *in, Frame *fr, ValueId v)
{
    const IrFunction *f = &in->ir->funcs.v[fr->fi];
    const IrValue *x = &f->values.v[v];
    const Node *n = syn_node(in->S, x->node);
    if (n->kind == N_IF_EXP) {
        ValueId test = x->index;
        bool known;
        bool t = test ? av_truth(eval(in, fr, test), &known) : (known = false);
        if (!known)
            interp_note(in, x->node, "`A if C else B` with C unknown: A was taken");
        /* unknown: the first alternative (`"cuda" if torch.cuda.is_available() else "cpu"`) */
        return eval(in, fr, known && !t ? x->args[1] : x->args[0]);
    }
    bool is_or = false;
    for (uint32_t k = 0; k < n->nkids; k++)
        if (elem_is_token(n->kids[k]) && in->S->toks.v[elem_index(n->kids[k])].kind == T_KW_OR)
            is_or = true;
    AVal *last = av_unknown(in);
    for (uint32_t i = 0; i < x->nargs; i++) {
        last = eval(in, fr, x->args[i]);
        bool known;
        bool t = av_truth(last, &known);
        if (!known)
            return av_unknown(in);
        if (is_or ? t : !t)
            return last;
    }
    return last;
}

/* {k: v, ...}: each item is built as a (key, value) pair; string keys only. */
static AVal *build_dict(Interp *in, Frame *fr, const IrValue *x)
{
    AVal *d = av_new(in, AV_DICT);
    d->items = arena_zalloc(in->a, (x->nargs * 8 + 1) * sizeof *d->items);
    d->keys = arena_zalloc(in->a, (x->nargs * 8 + 1) * sizeof *d->keys);
    for (uint32_t i = 0; i < x->nargs; i++) {
        AVal *it = eval(in, fr, x->args[i]);
        if (it->k == AV_SEQ && it->n == 2 && it->items[0]->k == AV_STR) {
            d->keys[d->n] = it->items[0]->s;
            d->items[d->n++] = it->items[1];
        }
    }
    return d;
}

/* lo:hi:step: the operands fill the slots after 0, 1 or 2 colons; bit k
 * of i says slot k was given. */
static AVal *build_slice(Interp *in, Frame *fr, const IrValue *x, const Node *n)
{
    AVal *s = av_new(in, AV_SLICE);
    s->n = 3;
    s->items = arena_zalloc(in->a, 3 * sizeof *s->items);
    uint32_t colons = 0, arg = 0;
    for (uint32_t k = 0; k < n->nkids; k++) {
        if (elem_is_token(n->kids[k])) {
            if (in->S->toks.v[elem_index(n->kids[k])].kind == T_COLON)
                colons++;
        } else if (arg < x->nargs && colons < 3) {
            s->items[colons] = eval(in, fr, x->args[arg++]);
            s->i |= 1 << colons;
        }
    }
    return s;
}

static AVal *build(Interp *in, Frame *fr, ValueId v)
{
    const IrFunction *f = &in->ir->funcs.v[fr->fi];
    const IrValue *x = &f->values.v[v];
    const Node *n = syn_node(in->S, x->node);
    switch ((NodeKind)n->kind) {
    case N_TUPLE: case N_LIST: case N_SET: {
        AVal *s = av_seq(in, x->nargs);
        for (uint32_t i = 0; i < x->nargs; i++)
            s->items[i] = eval(in, fr, x->args[i]);
        return s;
    }
    case N_DICT_ITEM: {
        AVal *s = av_seq(in, 2);
        s->items[0] = x->nargs > 0 ? eval(in, fr, x->args[0]) : av_unknown(in);
        s->items[1] = x->nargs > 1 ? eval(in, fr, x->args[1]) : av_unknown(in);
        return s;
    }
    case N_DICT: return build_dict(in, fr, x);
    case N_SLICE: return build_slice(in, fr, x, n);
    case N_LIST_COMP: case N_GENERATOR: case N_SET_COMP: case N_DICT_COMP:
        return comprehension(in, fr, v);
    default:
        return av_unknown(in);
    }
}

static AVal *imported(Interp *in, const char *q);

/* "torchvision.models.__dict__": a module's namespace read as a dict */
static bool is_module_dict(const char *q)
{
    size_t n = strlen(q);
    return n > 9 && strcmp(q + n - 9, ".__dict__") == 0;
}

/* The attribute `name` of the module the first `len` bytes of q name. */
static AVal *module_attr(Interp *in, const char *q, size_t len, const char *name)
{
    return imported(in, arena_printf(in->a, "%.*s.%s", (int)len, q, name));
}

/* A model picked from a module by a name pfc cannot read
 * (models.__dict__[args.arch], getattr(models, name)): if no model is found,
 * the refusal says which name and how to give it. */
void interp_factory_unread_at(Interp *in, uint32_t node, const char *module, const AVal *key)
{
    if (in->factory_unread)
        return;
    const char *what = arena_printf(in->a, "the name %s picks the model by", module);
    in->factory_unread = at_node(in, node, key->k == AV_UNKNOWN && key->origin
                                               ? missing_config(in, what, key)
                                               : arena_printf(in->a, "%s is not a value pfc can read", what));
}

AVal *interp_module_attr(Interp *in, const AVal *module, const char *name)
{
    return module->k == AV_QUAL ? module_attr(in, module->s, strlen(module->s), name) : NULL;
}

/* A model output's index-th field, as its to_tuple() orders them: loss
 * (when computed) and logits of a transformers output, the sample of a
 * diffusers UNet's. */
static const char *output_field(Obj *out, int64_t index)
{
    if (obj_get(out, "sample"))
        return "sample";
    return index == 0 && obj_get(out, "loss") ? "loss" : "logits";
}

static AVal *subscript(Interp *in, AVal *base, AVal *idx);

/* x[i] written in the script: a module's namespace indexed by a name pfc
 * cannot read is remembered with its line. */
static AVal *subscript_at(Interp *in, uint32_t node, AVal *base, AVal *idx)
{
    if (base->k == AV_QUAL && is_module_dict(base->s) && idx->k != AV_STR)
        interp_factory_unread_at(in, node, base->s, idx);
    return subscript(in, base, idx);
}

static AVal *subscript(Interp *in, AVal *base, AVal *idx)
{
    int64_t i;
    if (base->k == AV_SEQ && av_int_of(idx, &i)) {
        if (i < 0)
            i += base->n;
        return i >= 0 && i < (int64_t)base->n ? base->items[i] : av_unknown(in);
    }
    if (base->k == AV_SEQ && idx->k == AV_SLICE) {
        int64_t lo = 0, hi = base->n;
        if ((idx->i & 1) && !av_int_of(idx->items[0], &lo))
            return av_unknown(in);
        if ((idx->i & 2) && !av_int_of(idx->items[1], &hi))
            return av_unknown(in);
        if (lo < 0) lo += base->n;
        if (hi < 0) hi += base->n;
        if (hi > (int64_t)base->n) hi = base->n;
        if (lo < 0) lo = 0;
        AVal *s = av_seq(in, hi > lo ? (uint32_t)(hi - lo) : 0);
        for (int64_t k = lo; k < hi; k++)
            s->items[k - lo] = base->items[k];
        return s;
    }
    if (base->k == AV_QUAL && is_module_dict(base->s)) {   /* models.__dict__[args.arch] */
        if (idx->k == AV_STR)
            return module_attr(in, base->s, strlen(base->s) - 9, idx->s);
        return av_unknown(in);   /* subscript_at says why */
    }
    if (base->k == AV_DICT && idx->k == AV_STR) {
        for (uint32_t k = 0; k < base->n; k++)
            if (strcmp(base->keys[k], idx->s) == 0)
                return base->items[k];
        return av_unknown(in);
    }
    if (base->k == AV_OBJECT && (base->obj->nn == NN_MODULELIST || base->obj->nn == NN_SEQUENTIAL))
        return subscript(in, obj_get(base->obj, "__items__") ? obj_get(base->obj, "__items__") : av_unknown(in), idx);
    if (base->k == AV_OBJECT && base->obj->nn == NN_MODULEDICT)
        return subscript(in, obj_get(base->obj, "__dict__") ? obj_get(base->obj, "__dict__") : av_unknown(in), idx);
    if (base->k == AV_OBJECT && base->obj->cls >= 0) {
        Args a = {{idx}, {NULL}, 1};
        bool found;
        AVal *r = run_method(in, base, "__getitem__", &a, &found);
        if (found)
            return r;
        if (base->obj->nn == NN_NONE && obj_get(base->obj, LIBRARY_BASE))   /* its library container's */
            return subscript(in, obj_get(base->obj, LIBRARY_BASE), idx);
    }
    if (base->k == AV_OBJECT && base->obj->nn == NN_OUTPUT && idx->k == AV_INT)
        return attr_of_value(in, base, output_field(base->obj, idx->i));
    if (base->k == AV_TENSOR || base->k == AV_PARAM)
        return tensor_subscript(in, base, idx);
    return av_unknown(in);
}

static AVal *unpack(Interp *in, AVal *v, uint32_t index)
{
    if (v->k == AV_SEQ)
        return index < v->n ? v->items[index] : av_unknown(in);
    if (v->k == AV_OBJECT && v->obj->nn == NN_OUTPUT)
        return subscript(in, v, av_int(in, index));
    return av_unknown(in);
}

/* Arguments of a call value, with **dict splats expanded. */
static void call_args(Interp *in, Frame *fr, const IrValue *x, Args *a)
{
    const Node *call = syn_node(in->S, x->node);
    const Node *argn = call->kind == N_CALL ? node_kid(in->S, call, 1) : NULL;
    a->n = 0;
    for (uint32_t i = 1; i < x->nargs && a->n < ARGS_MAX; i++) {
        AVal *v = eval(in, fr, x->args[i]);
        const Node *an = argn && i - 1 < node_nkids(in->S, argn) ? node_kid(in->S, argn, i - 1) : NULL;
        if (an && an->kind == N_DOUBLE_STARRED && v->k == AV_DICT) {
            for (uint32_t k = 0; k < v->n && a->n < ARGS_MAX; k++) {
                a->kw[a->n] = v->keys[k];
                a->v[a->n++] = v->items[k];
            }
            continue;
        }
        if (an && an->kind == N_STARRED && v->k == AV_SEQ) {
            for (uint32_t k = 0; k < v->n && a->n < ARGS_MAX; k++) {
                a->kw[a->n] = NULL;
                a->v[a->n++] = v->items[k];
            }
            continue;
        }
        a->kw[a->n] = ir_kwname(x, i) ? in_name(in, ir_kwname(x, i)) : NULL;
        a->v[a->n++] = v;
    }
}

void for_each_call_on(Interp *in, const char *name, const Obj *obj,
                      void (*fn)(Interp *in, void *ctx, Args *a), void *ctx)
{
    for (uint32_t fi = 0; fi < in->ir->funcs.n && !in->error; fi++) {
        const IrFunction *f = &in->ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *c = &f->values.v[i];
            if (c->op != IR_CALL || !c->nargs || f->values.v[c->args[0]].op != IR_ATTR ||
                strcmp(in_name(in, f->values.v[c->args[0]].name), name) != 0)
                continue;
            Frame *fr = demand_frame(in, (int)fi);
            AVal *recv = eval(in, fr, f->values.v[c->args[0]].args[0]);
            if (recv->k != AV_OBJECT || recv->obj != obj)
                continue;
            Args a;
            call_args(in, fr, c, &a);
            uint32_t outer = in->cur_node;
            in->cur_node = c->node;   /* the call's line, for what fn records */
            fn(in, ctx, &a);
            in->cur_node = outer;
        }
    }
}

/* with-blocks around a top-level value: autocast and no_grad in force there. */
static void context_at(Interp *in, Frame *fr, uint32_t node, bool *autocast, DType *dt)
{
    for (uint32_t p = in->parent[node], guard = 0; p && guard < 4096; p = in->parent[p], guard++) {
        const Node *n = syn_node(in->S, p);
        if (n->kind != N_WITH)
            continue;
        FOR_EACH_KID(n, iid) {
            const Node *item = syn_node(in->S, iid);
            if (item->kind != N_WITH_ITEM)
                continue;
            ValueId ev = value_for_node(in, fr->fi, node_id(in->S, item));
            const IrValue *enter = ev ? &in->ir->funcs.v[fr->fi].values.v[ev] : NULL;
            AVal *c = enter && enter->op == IR_WITH_ENTER && enter->nargs ? eval(in, fr, enter->args[0]) : NULL;
            if (c && c->k == AV_OBJECT && c->obj->nn == NN_OPAQUE && c->obj->a == 2) {
                *autocast = c->obj->b != 0;
                *dt = (DType)c->obj->c;
            }
        }
    }
}

/* `out = model(x)` or `logits, loss = model(x, y)`: the script holds the
 * result until the next iteration assigns it again. */
static bool assigned_whole(Interp *in, uint32_t node)
{
    uint32_t p = in->parent[node];
    while (p && syn_node(in->S, p)->kind == N_PAREN) {
        node = p;
        p = in->parent[p];
    }
    const Node *n = syn_node(in->S, p);
    return n->kind == N_ASSIGN && node_kid_id(in->S, n, node_nkids(in->S, n) - 1) == node;
}

static void keep_outputs(Interp *in, AVal *r)
{
    if (r->k == AV_TENSOR && r->gpu)
        tr_keep(in->tr, r->t);
    for (uint32_t i = 0; r->k == AV_SEQ && i < r->n; i++)
        keep_outputs(in, r->items[i]);
}

/* The step's model call: the batch and sequence it sees, overridden when
 * the user asks (--batch, --seq, remedies). Token inputs are 2-D integers:
 * (batch, sequence); anything else only has its batch changed, in dimension
 * bdim (1 for a sequence-first library module). */
static AVal *resized(Interp *in, AVal *x, int bdim)
{
    if (x->k != AV_TENSOR || !x->nd)
        return x;
    int64_t dim[TR_MAXDIM];
    memcpy(dim, x->dim, sizeof dim);
    bool tokens = x->dtype == DT_I64 && x->nd == 2;
    int b = tokens || x->nd < 3 ? 0 : bdim;   /* an unbatched (sequence, features) input: no batch */
    if (!in->seen_batch) {
        in->seen_batch = in->batch_override ? in->batch_override : dim[b];
        in->seen_seq = !tokens ? 0 : in->seq_override ? in->seq_override : dim[1];
    }
    bool change = (in->batch_override && dim[b] != in->batch_override) ||
                  (tokens && in->seq_override && dim[1] != in->seq_override);
    if (!change)
        return x;
    if (in->batch_override)
        dim[b] = in->batch_override;
    if (tokens && in->seq_override)
        dim[1] = in->seq_override;
    if (x->gpu)
        in->tr->t.v[x->t].kept = false;   /* the script's own tensor is not used */
    return av_tensor_new(in, (DType)x->dtype, x->nd, dim, x->gpu);
}

void step_model(Interp *in, AVal *model)
{
    in->model_called = true;
    if (model->obj->cls >= 0) {
        InterpModule *back = enter_module(in, model->obj->mod);
        in->model_class = in_name(in, in->ir->classes.v[model->obj->cls].name);
        in->model_file = in->mod->label;
        enter_module(in, back);
    }
    else if (model->obj->nn == NN_SEQUENTIAL)
        in->model_class = "nn.Sequential";
    else if (model->obj->nn < NN_HF)
        in->model_class = "a torch.nn module";
}

static void prepare_model_call(Interp *in, AVal *model, Args *a)
{
    step_model(in, model);
    bool tensor = false;
    int bdim = model->obj->cls < 0 ? module_batch_dim(model->obj) : 0;
    for (uint32_t i = 0; i < a->n; i++) {
        a->v[i] = resized(in, a->v[i], bdim);
        tensor |= a->v[i]->k == AV_TENSOR || a->v[i]->k == AV_DICT;
    }
    if (!tensor && (model->obj->cls >= 0 || model->obj->nn < NN_HF))
        interp_lost_here(in, "the model's input is not a tensor pfc could follow (from a dataset or "
                             "loader it does not know?)");
}

static AVal *call_dispatch(Interp *in, Frame *fr, const IrValue *x, AVal *callee, Args *pa);

static bool is_attr_named(Interp *in, const IrFunction *f, ValueId v, const char *name)
{
    return f->values.v[v].op == IR_ATTR && strcmp(in_name(in, f->values.v[v].name), name) == 0;
}

static AVal *call(Interp *in, Frame *fr, ValueId v)
{
    const IrFunction *f = &in->ir->funcs.v[fr->fi];
    const IrValue *x = &f->values.v[v];
    AVal *callee = eval(in, fr, x->args[0]);
    Args a;
    call_args(in, fr, x, &a);
    if (callee->k != AV_BOUND && is_attr_named(in, f, x->args[0], "requires_grad_"))
        interp_note(in, x->node, "requires_grad_ is called on something pfc does not follow (a part of a library "
                                 "model, an unknown value): its parameters are counted as trainable");
    if (callee->k == AV_QUAL && strcmp(callee->s, "builtins.super") == 0)
        return super_of(in, fr, &a);   /* it needs the calling method's class and self */
    uint32_t outer = in->cur_node, outer_site = in->tr->site;
    in->cur_node = in->tr->site = x->node;
    AVal *r = call_dispatch(in, fr, x, callee, &a);
    in->cur_node = outer;
    in->tr->site = outer_site;
    if (in->tr->error)
        interp_fail(in, in->tr->error);   /* a refusal ends the interpretation */
    return r;
}

static AVal *call_dispatch(Interp *in, Frame *fr, const IrValue *x, AVal *callee, Args *pa)
{
    Args a = *pa;
    if (!fr->demand)
        return call_site_value(in, callee, &a);
    bool model_call = callee->k == AV_OBJECT && callee->obj->is_module && !in->model_called;
    if (model_call) {
        in->model_call_named = assigned_whole(in, x->node);
        uint32_t outer = in->cur_node;
        in->cur_node = x->node;
        prepare_model_call(in, callee, &a);
        in->cur_node = outer;
    }
    /* top level: the grad mode the IR computed and the autocast region */
    Trace *tr = in->tr;
    bool ng = tr->no_grad, ac = tr->autocast_on;
    DType adt = tr->autocast;
    tr->no_grad = x->grad == GRAD_DISABLED;
    bool on = false;
    DType dt = DT_BF16;
    context_at(in, fr, x->node, &on, &dt);
    if (model_call && in->force_autocast) {
        on = true;
        dt = in->force_autocast_dtype;
    }
    if (in->no_autocast)
        on = false;
    tr->autocast_on = on;
    if (on)
        tr->autocast = dt;
    AVal *r = call_site_value(in, callee, &a);
    if (model_call && in->model_call_named)
        keep_outputs(in, r);
    tr->no_grad = ng;
    tr->autocast_on = ac;
    tr->autocast = adt;
    return r;
}

/* ---- the project's other modules ------------------------------------------------------- */

/* The module `dotted` as the current module's file imports it, loaded once
 * per importer; NULL when it is not one of the project's. */
static InterpModule *project_module(Interp *in, const char *dotted)
{
    const char *importer = in->mod->path;
    for (uint32_t i = 0; i < in->loaded.n; i++)
        if (strcmp(in->loaded.v[i].dotted, dotted) == 0 && strcmp(in->loaded.v[i].importer, importer) == 0)
            return in->loaded.v[i].mod;
    Syntax *S;
    const Ir *ir;
    const char *path;
    InterpModule *m = NULL;
    if (in->hooks.modules.load(in->hooks.modules.ctx, importer, dotted, &S, &ir, &path)) {
        for (uint32_t i = 0; i < in->loaded.n && !m; i++)   /* the same file by another name */
            if (in->loaded.v[i].mod && strcmp(in->loaded.v[i].mod->path, path) == 0)
                m = in->loaded.v[i].mod;
        if (!m) {
            const char *slash = strrchr(path, '/');
            m = module_new(in, S, ir, path, slash ? slash + 1 : path);
        }
    }
    LoadedModule lm = {arena_strndup(in->a, dotted, strlen(dotted)), importer, m};
    VEC_PUSH(in->a, in->loaded, lm);
    return m;
}

static AVal *star_imported(Interp *in, const char *name);

/* A module-level name of module m, evaluated there (a package's
 * `from .net import *` followed, a bounded chain); NULL if m has none. */
static AVal *module_global(Interp *in, InterpModule *m, const char *name)
{
    uint32_t id = intern_lookup(&m->S->names, name, (uint32_t)strlen(name));
    bool defined = id && id < m->ir->nnames && m->ir->last_def[id];
    if (!defined && in->star_depth >= 8)
        return NULL;
    InterpModule *back = enter_module(in, m);
    AVal *v;
    if (defined) {
        const IrModuleDef *d = &in->ir->module_defs.v[in->ir->last_def[id] - 1];
        v = eval(in, demand_frame(in, 0), d->value);
    } else {
        in->star_depth++;
        v = star_imported(in, name);
        in->star_depth--;
    }
    enter_module(in, back);
    return v;
}

/* A name the current module imports ("model.GPT", ".layers.Block"): the
 * definition in the project's module when the import resolves to one (the
 * longest dotted prefix that is a module), else the library's name. */
static AVal *resolve_import(Interp *in, const char *q)
{
    for (size_t cut = strlen(q); cut > 0; cut--) {
        if (q[cut] != '.' || (cut && q[cut - 1] == '.'))
            continue;
        char *prefix = arena_strndup(in->a, q, cut);
        InterpModule *m = project_module(in, prefix);
        if (!m)
            continue;
        const char *rest = q + cut + 1, *dot = strchr(rest, '.');
        AVal *v = module_global(in, m, dot ? arena_strndup(in->a, rest, (size_t)(dot - rest)) : rest);
        if (!v)
            break;   /* a submodule, or a name the module takes from elsewhere */
        for (const char *p = dot; p && v->k != AV_UNKNOWN; p = strchr(p + 1, '.')) {
            const char *next = strchr(p + 1, '.');
            const char *attr = next ? arena_strndup(in->a, p + 1, (size_t)(next - p - 1)) : p + 1;
            v = v->k == AV_OBJECT && v->obj->nn == NN_NONE ? object_attr(in, v, attr)
                                                            : attr_of_value(in, v, attr);
        }
        return v;
    }
    return NULL;
}

/* imported() resolves each name once per module: a model's forward reads
 * `F.relu` or `torch.cat` once per layer. A library name is remembered as
 * such and made afresh (callers may bind it). */
static AVal *imported(Interp *in, const char *q)
{
    if (!in->hooks.modules.load || strncmp(q, "builtins.", 9) == 0)
        return av_qual(in, q);
    InterpModule *m = in->mod;
    uint32_t id = intern(&m->import_names, q, (uint32_t)strlen(q));
    while (m->import_vals.n <= id)
        VEC_PUSH(in->a, m->import_vals, NULL);
    if (!m->import_vals.v[id]) {
        AVal *v = resolve_import(in, q);
        m->import_vals.v[id] = v ? v : &in->none;   /* none: the library's name */
    }
    return m->import_vals.v[id] == &in->none ? av_qual(in, q) : m->import_vals.v[id];
}

/* A module-level name with no definition in the module: one a
 * `from M import *` of a project module brings in, or NULL. */
static AVal *star_imported(Interp *in, const char *name)
{
    if (!in->hooks.modules.load)
        return NULL;
    InterpModule *cur = in->mod;
    if (!cur->stars_read) {
        ImportRequestVec reqs;
        ir_project_imports(in->ir, &reqs);
        for (uint32_t i = 0; i < reqs.n; i++)
            if (reqs.v[i].star)
                VEC_PUSH(in->a, cur->star_modules, reqs.v[i].module);
        cur->stars_read = true;
    }
    for (uint32_t i = cur->star_modules.n; i-- > 0;) {
        InterpModule *m = project_module(in, cur->star_modules.v[i]);
        AVal *v = m ? module_global(in, m, name) : NULL;
        if (v)
            return v;
    }
    return NULL;
}

/* The library a call hands components to: fire.Fire, jsonargparse's CLI. */
static EntryKind entry_library(Interp *in, const IrFunction *g, const IrValue *c)
{
    const IrValue *callee = &g->values.v[c->args[0]];
    const char *q = callee->qual ? in_name(in, callee->qual) : "";
    if (strcmp(q, "fire.Fire") == 0)
        return ENTRY_FIRE;
    if (strcmp(q, "jsonargparse.CLI") == 0 || strcmp(q, "jsonargparse.auto_cli") == 0)
        return ENTRY_JSONARGPARSE;
    return ENTRY_PLAIN;
}

/* Whether the components value comp is function fi, or holds it (a list:
 * the command is its name; a dict: its key). */
static bool is_component(Interp *in, AVal *comp, int fi, const char **command)
{
    if (comp->k == AV_FUNC)
        return comp->fn == fi && comp->mod == in->mod;
    for (uint32_t i = 0; (comp->k == AV_SEQ || comp->k == AV_DICT) && i < comp->n; i++)
        if (comp->items[i]->k == AV_FUNC && comp->items[i]->fn == fi && comp->items[i]->mod == in->mod) {
            *command = comp->k == AV_DICT ? comp->keys[i] : in_name(in, in->ir->funcs.v[fi].name);
            return true;
        }
    return false;
}

/* Function fi as the command line reaches it: its parameters, and the
 * fire.Fire / CLI call that hands it over, if one does. */
static EntryPoint entry_point(Interp *in, int fi)
{
    const IrFunction *f = &in->ir->funcs.v[fi];
    EntryPoint e = {ENTRY_PLAIN, in_name(in, f->name), NULL, {0}, {0}, 0};
    for (uint32_t i = 0; i < f->params.n && e.n < ARGS_MAX; i++) {
        const IrValue *p = &f->values.v[f->params.v[i]];
        const Node *pn = syn_node(in->S, p->node);
        e.params[e.n] = in_name(in, p->name);
        e.has_default[e.n++] = node_token(in->S, pn, T_EQUAL) != NULL;
    }
    for (uint32_t gi = 0; gi < in->ir->funcs.n; gi++) {
        const IrFunction *g = &in->ir->funcs.v[gi];
        for (uint32_t i = 1; i < g->values.n; i++) {
            const IrValue *c = &g->values.v[i];
            EntryKind kind = c->op == IR_CALL && c->nargs > 1 ? entry_library(in, g, c) : ENTRY_PLAIN;
            if (kind == ENTRY_PLAIN)
                continue;
            AVal *comp = eval(in, demand_frame(in, (int)gi), c->args[1]);
            if (is_component(in, comp, fi, &e.command)) {
                e.kind = kind;
                return e;
            }
        }
    }
    return e;
}

/* The index of parameter p among e's (its position in f's params). */
static uint32_t param_slot(const IrFunction *f, const IrValue *p)
{
    for (uint32_t i = 0; i < f->params.n; i++)
        if (&f->values.v[f->params.v[i]] == p)
            return i;
    return 0;
}

/* A parameter no call passes gets its default (evaluated where the
 * function is defined). A function that nothing in the file calls is an
 * entry point (fire.Fire(main), jsonargparse's CLI(main)): the words
 * after `--` come first (entry_argument), and its defaults are the
 * configuration. */
static AVal *param_default(Interp *in, int fi, const IrValue *p, bool entry)
{
    const IrFunction *f = &in->ir->funcs.v[fi];
    const char *cli = NULL;
    AVal *given = NULL;
    if (entry) {
        EntryPoint e = entry_point(in, fi);
        given = entry_argument(in, &e, param_slot(f, p), &cli);
    }
    const Node *pn = syn_node(in->S, p->node);
    if (given || !node_token(in->S, pn, T_EQUAL) || f->parent < 0)
        return given ? given : av_unknown(in);
    uint32_t def = node_kid_id(in->S, pn, node_nkids(in->S, pn) - 1);
    ValueId dv = value_for_node(in, f->parent, def);
    AVal *v = dv ? eval(in, demand_frame(in, f->parent), dv) : NULL;
    if (entry && v && v->k == AV_STR) {
        uint32_t line, col;
        syntax_line_col(in->S, node_start(in->S, pn), &line, &col);
        v = config_value(in, v, arena_printf(in->a, "%s()'s default, line %u", in_name(in, f->name), line), cli);
    }
    return v ? v : av_unknown(in);
}

/* Whether value v of g names function `name` (a global or a def). */
static bool names_function(Interp *in, const IrFunction *g, ValueId v, uint32_t name)
{
    const IrValue *x = &g->values.v[ir_resolve(g, v)];
    return (x->op == IR_GLOBAL && x->name == name) ||
           (x->op == IR_FUNC && in->ir->funcs.v[x->index].name == name);
}

/* The keyword under which `p.set_defaults(func=name)` registers the
 * function, so that `args.func(args)` calls it (argparse's sub-command
 * dispatch); 0 if none does. */
static uint32_t registered_key(Interp *in, uint32_t name)
{
    for (uint32_t fi = 0; fi < in->ir->funcs.n; fi++) {
        const IrFunction *g = &in->ir->funcs.v[fi];
        for (uint32_t i = 1; i < g->values.n; i++) {
            const IrValue *c = &g->values.v[i];
            if (c->op != IR_CALL || g->values.v[c->args[0]].op != IR_ATTR ||
                strcmp(in_name(in, g->values.v[c->args[0]].name), "set_defaults") != 0)
                continue;
            for (uint32_t k = 1; k < c->nargs; k++)
                if (ir_kwname(c, k) && names_function(in, g, c->args[k], name))
                    return ir_kwname(c, k);
        }
    }
    return 0;
}

/* A call of function `name` in the module: by its name, else through the
 * attribute a set_defaults() registered it under. */
static bool find_call_site(Interp *in, uint32_t name, int *fn, const IrValue **call)
{
    uint32_t key = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1 && !(key = registered_key(in, name)))
            return false;
        for (uint32_t fi = 0; fi < in->ir->funcs.n; fi++) {
            const IrFunction *g = &in->ir->funcs.v[fi];
            for (uint32_t i = 1; i < g->values.n; i++) {
                const IrValue *c = &g->values.v[i];
                if (c->op != IR_CALL || !c->nargs)
                    continue;
                const IrValue *callee = &g->values.v[c->args[0]];
                if (pass == 0 ? callee->op == IR_GLOBAL && callee->name == name
                              : callee->op == IR_ATTR && callee->name == key) {
                    *fn = (int)fi;
                    *call = c;
                    return true;
                }
            }
        }
    }
    return false;
}

static AVal *param_from_call_site(Interp *in, Frame *fr, const IrValue *p)
{
    const IrFunction *f = &in->ir->funcs.v[fr->fi];
    if (!f->name)
        return av_unknown(in);
    const Node *pn = syn_node(in->S, p->node);
    if (node_token(in->S, pn, T_DOUBLESTAR) || node_token(in->S, pn, T_STAR) || f->class_index >= 0)
        return av_unknown(in);
    int fi;
    const IrValue *c;
    if (!find_call_site(in, f->name, &fi, &c))
        return param_default(in, fr->fi, p, true);
    Args a;
    call_args(in, demand_frame(in, fi), c, &a);
    AVal *arg = args_get(&a, (int)p->index, in_name(in, p->name));
    return arg ? arg : param_default(in, fr->fi, p, false);
}

static AVal *global(Interp *in, const IrValue *x)
{
    if (x->qual) {
        const char *q = in_name(in, x->qual);
        if (strcmp(q, "builtins.__name__") == 0)
            return av_str(in, "__main__");
        return imported(in, q);
    }
    const char *name = in_name(in, x->name);
    if (strcmp(name, "__name__") == 0)
        return av_str(in, in->mod == in->script ? "__main__" : in->mod->path);
    const Ir *ir = in->ir;
    if (x->name < ir->nnames && ir->last_def[x->name]) {
        const IrModuleDef *d = &ir->module_defs.v[ir->last_def[x->name] - 1];
        return eval(in, demand_frame(in, 0), d->value);
    }
    AVal *star = star_imported(in, name);
    return star ? star : av_unknown(in);
}

/* A module-level name read inside a loop before any assignment: a builtin
 * or a definition the lowering could not see yet. */
static AVal *undefined(Interp *in, Frame *fr, const IrValue *x)
{
    if (fr->fi == 0 && x->name && x->name < in->S->names.by_id.n) {
        const Ir *ir = in->ir;
        if (x->name < ir->nnames && ir->last_def[x->name])
            return global(in, x);
        return av_qual(in, arena_printf(in->a, "builtins.%s", in_name(in, x->name)));
    }
    return av_unknown(in);
}

/* An executed frame takes the operand of the edge it came in by; on demand
 * the first edge that runs (demand.c). */
static AVal *phi(Interp *in, Frame *fr, const IrValue *x)
{
    if (fr->demand)
        return x->nargs ? eval(in, fr, demand_phi_operand(in, fr, x)) : av_unknown(in);
    if (fr->prev != UINT32_MAX) {
        const IrBlock *b = &in->ir->funcs.v[fr->fi].blocks.v[x->block];
        for (uint32_t i = 0; i < b->preds.n && i < x->nargs; i++)
            if (b->preds.v[i] == fr->prev)
                return eval(in, fr, x->args[i]);
    }
    return x->nargs ? eval(in, fr, x->args[0]) : av_unknown(in);
}

/* On demand, a read after a store of the frame gets the stored value, and
 * one before them the value they replaced (demand.c); NULL: the object's. */
static AVal *stored_for_read(Interp *in, Frame *fr, const IrValue *x)
{
    if (!fr->demand)
        return NULL;
    const IrFunction *f = &in->ir->funcs.v[fr->fi];
    ValueId read = (ValueId)(x - f->values.v);
    ValueId s = demand_store_before(in, fr, read);
    if (s)
        return eval(in, fr, f->values.v[s].args[f->values.v[s].op == IR_STORE_ATTR ? 1 : 2]);
    return demand_value_before_stores(in, fr, read);
}

static AVal *subscript_value(Interp *in, Frame *fr, const IrValue *x)
{
    AVal *base = eval(in, fr, x->args[0]), *idx = eval(in, fr, x->args[1]);
    AVal *stored = stored_for_read(in, fr, x);
    return stored ? stored : subscript_at(in, x->node, base, idx);
}

static AVal *attribute(Interp *in, Frame *fr, const IrValue *x)
{
    AVal *base = eval(in, fr, x->args[0]);
    const char *name = in_name(in, x->name);
    AVal *stored = stored_for_read(in, fr, x);
    if (stored)
        return stored;
    if (base->k == AV_OBJECT && base->obj->nn == NN_NONE)
        return object_attr(in, base, name);
    if (base->k == AV_SUPER)
        return super_attr(in, base, name);
    if (base->k == AV_QUAL && !x->qual)
        return imported(in, arena_printf(in->a, "%s.%s", base->s, name));
    if (x->qual && base->k == AV_QUAL)
        return imported(in, in_name(in, x->qual));
    return attr_of_value(in, base, name);
}

static AVal *binop(Interp *in, Frame *fr, const IrValue *x)
{
    if (x->nargs != 2)
        return av_unknown(in);
    return arith(in, binop_token(in, x->node), eval(in, fr, x->args[0]), eval(in, fr, x->args[1]));
}

static AVal *unary(Interp *in, Frame *fr, const IrValue *x)
{
    AVal *a = x->nargs ? eval(in, fr, x->args[0]) : av_unknown(in);
    int tok = binop_token(in, x->node);
    if (tok == T_MINUS && a->k == AV_INT)
        return a->i != INT64_MIN ? av_int(in, -a->i) : av_float(in, -(double)a->i);
    if (tok == T_MINUS && a->k == AV_FLOAT)
        return av_float(in, -a->f);
    return tok == T_PLUS || a->k == AV_TENSOR ? a : av_unknown(in);
}

/* A module's parameters, dropped from the trace when it is no longer
 * part of the model. Library models (NN_HF, NN_VISION) record theirs when
 * they run, so there is nothing to drop yet. */
static void drop_module_params(Interp *in, AVal *m, int depth)
{
    if (m->k == AV_SEQ || m->k == AV_DICT) {
        for (uint32_t i = 0; i < m->n && depth < 8; i++)
            drop_module_params(in, m->items[i], depth + 1);
        return;
    }
    if (m->k != AV_OBJECT || !m->obj->is_module || depth >= 8)
        return;
    Obj *o = m->obj;
    tr_param_drop(in->tr, o->w);
    tr_param_drop(in->tr, o->bias);
    for (uint32_t i = 0; i < o->nwall; i++)
        tr_param_drop(in->tr, o->wall[i]);
    for (uint32_t i = 0; i < o->nattr; i++)
        drop_module_params(in, o->vals[i], depth + 1);
}

/* `model.head = nn.Linear(...)`: the module it replaces leaves the model
 * (and its parameters the GPU, once the old one is collected). */
static void replace_submodule(Interp *in, AVal *old, AVal *val)
{
    if (old && old != val && old->k == AV_OBJECT && old->obj->is_module && val->k == AV_OBJECT &&
        val->obj->is_module && old->obj != val->obj)
        drop_module_params(in, old, 0);
}

void apply_store_attr(Interp *in, AVal *base, const char *name, AVal *val, AVal **prior)
{
    AVal *old = base->k == AV_OBJECT ? obj_get(base->obj, name) : NULL;
    if (prior)
        *prior = old;
    if (base->k == AV_PARAM && strcmp(name, "requires_grad") == 0) {
        bool known;
        bool trains = av_truth(val, &known);
        if (known)
            set_requires_grad(in, base, trains);
        else
            interp_note(in, in->cur_node, "requires_grad is set to a value pfc cannot read: the parameter "
                                          "keeps the requires_grad it had");
        return;
    }
    if (base->k == AV_OBJECT && base->obj->is_module)
        replace_submodule(in, old, val);
    if (base->k == AV_OBJECT && base->obj->nn != NN_NONE && base->obj->nn < NN_OPTIMIZER)
        tie_weight(in, base->obj, name, val);
    else if (base->k == AV_OBJECT)
        obj_set(in, base->obj, name, val);
}

void dict_set(Interp *in, AVal *d, const char *key, AVal *val, AVal **prior)
{
    for (uint32_t k = 0; k < d->n; k++)
        if (strcmp(d->keys[k], key) == 0) {
            if (prior)
                *prior = d->items[k];
            d->items[k] = val;
            return;
        }
    AVal **items = arena_alloc(in->a, (d->n + 1) * sizeof *items);
    const char **keys = arena_alloc(in->a, (d->n + 1) * sizeof *keys);
    if (d->n) {
        memcpy(items, d->items, d->n * sizeof *items);
        memcpy(keys, d->keys, d->n * sizeof *keys);
    }
    items[d->n] = val;
    keys[d->n] = key;
    d->items = items;
    d->keys = keys;
    d->n++;
}

void apply_store_subscr(Interp *in, AVal *base, AVal *key, AVal *val, AVal **prior)
{
    AVal *none = NULL;
    prior = prior ? prior : &none;
    *prior = NULL;
    int64_t i;
    if (base->k == AV_OBJECT && base->obj->nn == NN_NONE && obj_get(base->obj, LIBRARY_BASE))
        base = obj_get(base->obj, LIBRARY_BASE);
    if (base->k == AV_OBJECT && (base->obj->nn == NN_MODULELIST || base->obj->nn == NN_SEQUENTIAL))
        base = obj_get(base->obj, "__items__") ? obj_get(base->obj, "__items__") : av_unknown(in);
    else if (base->k == AV_OBJECT && base->obj->nn == NN_MODULEDICT)
        base = obj_get(base->obj, "__dict__") ? obj_get(base->obj, "__dict__") : av_unknown(in);
    if (base->k == AV_SEQ && av_int_of(key, &i)) {
        if (i < 0)
            i += base->n;
        if (i >= 0 && i < (int64_t)base->n) {
            *prior = base->items[i];
            base->items[i] = val;
        }
    } else if (base->k == AV_DICT && key->k == AV_STR) {
        dict_set(in, base, key->s, val, prior);
    }
}

static AVal *store_attr(Interp *in, Frame *fr, const IrValue *x)
{
    if (fr->demand || x->nargs < 2)
        return av_none(in);   /* on demand: demand_apply_stores */
    AVal *base = eval(in, fr, x->args[0]), *val = eval(in, fr, x->args[1]);
    apply_store_attr(in, base, in_name(in, x->name), val, NULL);
    return av_none(in);
}

static AVal *store_subscr(Interp *in, Frame *fr, const IrValue *x)
{
    if (fr->demand || x->nargs < 3)
        return av_none(in);
    AVal *base = eval(in, fr, x->args[0]), *key = eval(in, fr, x->args[1]);
    apply_store_subscr(in, base, key, eval(in, fr, x->args[2]), NULL);
    return av_none(in);
}

/* An executed frame switches the trace's grad mode and autocast here; on
 * demand, call_dispatch applies the IR's grad mode and the autocast region
 * to each call instead. */
static AVal *with_enter(Interp *in, Frame *fr, const IrValue *x)
{
    AVal *c = x->nargs ? eval(in, fr, x->args[0]) : av_unknown(in);
    if (!fr->demand && c->k == AV_OBJECT && c->obj->nn == NN_OPAQUE) {
        if (c->obj->a == OPAQUE_NO_GRAD)
            in->tr->no_grad = true;
        if (c->obj->a == OPAQUE_AUTOCAST && c->obj->b && !in->no_autocast) {
            in->tr->autocast_on = true;
            in->tr->autocast = (DType)c->obj->c;
        }
    }
    return c;
}

static AVal *with_exit(Interp *in, Frame *fr, const IrValue *x)
{
    AVal *c = x->nargs ? eval(in, fr, x->args[0]) : av_unknown(in);
    if (!fr->demand && c->k == AV_OBJECT && c->obj->nn == NN_OPAQUE) {
        if (c->obj->a == OPAQUE_NO_GRAD)
            in->tr->no_grad = false;
        if (c->obj->a == OPAQUE_AUTOCAST)
            in->tr->autocast_on = false;
    }
    return av_none(in);
}

static AVal *compute(Interp *in, Frame *fr, ValueId v)
{
    const IrValue *x = &in->ir->funcs.v[fr->fi].values.v[v];
    switch ((IrOp)x->op) {
    case IR_CONST: return constant(in, x->node);
    case IR_PARAM: return fr->demand ? param_from_call_site(in, fr, x) : av_unknown(in);
    case IR_GLOBAL: return global(in, x);
    case IR_UNDEF: return undefined(in, fr, x);
    case IR_PHI: return phi(in, fr, x);
    case IR_CALL: return call(in, fr, v);
    case IR_ATTR: return attribute(in, fr, x);
    case IR_SUBSCR: return subscript_value(in, fr, x);
    case IR_BINOP: return binop(in, fr, x);
    case IR_UNARY: return unary(in, fr, x);
    case IR_COMPARE: return compare(in, fr, v);
    case IR_BOOLOP: return boolop(in, fr, v);
    case IR_BUILD: return build(in, fr, v);
    case IR_UNPACK: return unpack(in, eval(in, fr, x->args[0]), x->index);
    case IR_ITER_NEXT: return iter_next(in, fr, v, x->args[0]);
    case IR_FUNC: return definition(in, AV_FUNC, x->index);
    case IR_CLASS: return definition(in, AV_CLASS, x->index);
    case IR_STORE_ATTR: return store_attr(in, fr, x);
    case IR_STORE_SUBSCR: return store_subscr(in, fr, x);
    case IR_WITH_ENTER: return with_enter(in, fr, x);
    case IR_WITH_EXIT: return with_exit(in, fr, x);
    case IR_RETURN:
        fr->ret = x->nargs ? eval(in, fr, x->args[0]) : av_none(in);
        return fr->ret;
    default: return av_unknown(in);
    }
}

static AVal *eval(Interp *in, Frame *fr, ValueId v)
{
    if (!v || in->error)
        return av_unknown(in);
    if (fr->vals[v])
        return fr->vals[v];
    if (!fr->demand) {
        /* an executed frame computes values in order; an operand from a
         * branch not taken (or a loop-header phi's back edge) is unknown */
        const IrValue *x = &in->ir->funcs.v[fr->fi].values.v[v];
        if (x->op != IR_FUNC && x->op != IR_CLASS && x->op != IR_GLOBAL && x->op != IR_CONST)
            return av_unknown(in);
    }
    if (++in->steps > MAX_STEPS) {
        interp_fail(in, "the script is too large to interpret");
        return av_unknown(in);
    }
    if (too_deep(in)) {
        interp_fail(in, "values depend on each other too deeply");
        return av_unknown(in);
    }
    fr->vals[v] = av_unknown(in);   /* cycles (loop phis on demand) resolve to unknown */
    in->depth++;
    AVal *r = compute(in, fr, v);
    in->depth--;
    if (fr->demand || !fr->vals[v] || fr->vals[v]->k == AV_UNKNOWN)
        fr->vals[v] = r;
    if (fr->demand)
        demand_apply_stores(in, fr, v);
    return r;
}

AVal *frame_eval(Interp *in, Frame *fr, ValueId v) { return eval(in, fr, v); }

/* Executes value v now (an executed frame, in order): loops run the same
 * values again, so a previous iteration's result is replaced. */
static AVal *exec_value(Interp *in, Frame *fr, ValueId v)
{
    if (in->error)
        return fr->vals[v] = av_unknown(in);
    if (++in->steps > MAX_STEPS) {
        interp_fail(in, "the script is too large to interpret");
        return fr->vals[v] = av_unknown(in);
    }
    in->depth++;
    AVal *r = !too_deep(in) ? compute(in, fr, v) : av_unknown(in);
    in->depth--;
    return fr->vals[v] = r;
}

AVal *interp_eval(Interp *in, int fi, ValueId v) { return eval(in, demand_frame(in, fi), v); }
