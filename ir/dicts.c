/* ir/dicts: what a dict pfc can read whole holds. A dict is readable when
 * it is a literal with no `**` (or a dict comprehension) and nothing adds
 * to it but `d[k] = v` stores pfc sees (no `update`, no `setdefault`).
 * Reading it is flow-insensitive: `d["train"]` may be every value stored
 * under "train" anywhere, `d[phase]` every value of the dict. Removing an
 * entry only narrows that set, so `del` and `pop` are ignored. */
#include "internal.h"
#include "project.h"
#include <stdlib.h>
#include <string.h>

static const IrValue *val(const IrFunction *f, ValueId id) { return &f->values.v[id]; }

static uint16_t node_kind(const Syntax *S, uint32_t node) { return node ? S->nodes[node].kind : 0; }

static bool is_dict_build(const Syntax *S, const IrValue *x)
{
    uint16_t k = node_kind(S, x->node);
    return x->op == IR_BUILD && (k == N_DICT || k == N_DICT_COMP);
}

enum { DICTS_PER_VALUE = 4 };

/* Is the name declared `global` in some function (which may rebind it)? */
static bool declared_global(const Ir *ir, uint32_t name)
{
    uint32_t lo = 0, hi = ir->nglobal_names;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ir->global_names[mid] < name)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ir->nglobal_names && ir->global_names[lo] == name;
}

static int id_order(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The dict a value denotes, as (function, value): a literal in f, or the one
 * module-level definition of a global that is a dict literal (and that no
 * function declares `global`). */
static bool dict_at(const Ir *ir, const IrFunction *f, ValueId x, uint32_t *fn, ValueId *id)
{
    const Syntax *S = ir->syn;
    x = ir_resolve(f, x);
    const IrValue *b = val(f, x);
    if (is_dict_build(S, b)) {
        *fn = (uint32_t)(f - ir->funcs.v), *id = x;
        return true;
    }
    if (b->op != IR_GLOBAL || b->qual || b->name >= ir->nnames || !ir->last_def[b->name] ||
        declared_global(ir, b->name))
        return false;
    uint32_t d = ir->last_def[b->name];
    if (ir->prev_def[d - 1])
        return false;   /* defined twice: which one is read depends on the path */
    const IrFunction *m = &ir->funcs.v[0];
    ValueId def = ir_resolve(m, ir->module_defs.v[d - 1].value);
    if (!is_dict_build(S, val(m, def)))
        return false;
    *fn = 0, *id = def;
    return true;
}

/* IrDictWrite and IrDictParam are sorted by their first two fields, two
 * uint32_t: (fn, dict) and (fn, slot). */
uint32_t ir_param_slot(const IrFunction *g, ValueId param)
{
    for (uint32_t i = 0; i < g->params.n; i++)
        if (ir_resolve(g, g->params.v[i]) == param)
            return i;
    return UINT32_MAX;
}

static int pair_order(const void *a, const void *b)
{
    const uint32_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* The first of n sorted records not before probe. */
static uint32_t lower_bound(const void *base, uint32_t n, size_t size, const void *probe)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (pair_order((const char *)base + mid * size, probe) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The dicts x may be: dict_at's, or for a parameter the dicts every in-file
 * call passes for it (`train(model, loaders)`). 0 when pfc cannot tell. */
static uint32_t dicts_of(const Ir *ir, const IrFunction *f, ValueId x, uint32_t *fn, ValueId *id)
{
    if (dict_at(ir, f, x, fn, id))
        return 1;
    ValueId pid = ir_resolve(f, x);
    uint32_t slot = val(f, pid)->op == IR_PARAM && ir->ndict_params ? ir_param_slot(f, pid) : UINT32_MAX;
    if (slot == UINT32_MAX)
        return 0;
    IrDictParam probe = {(uint32_t)(f - ir->funcs.v), slot, 0, 0};
    uint32_t n = 0;
    for (uint32_t i = lower_bound(ir->dict_params, ir->ndict_params, sizeof probe, &probe); i < ir->ndict_params && !pair_order(&ir->dict_params[i], &probe); i++) {
        if (n == DICTS_PER_VALUE)
            return 0;
        fn[n] = ir->dict_params[i].dfn, id[n] = ir->dict_params[i].dict, n++;
    }
    return n;
}

static void *grow(void *p, uint32_t n, uint32_t *cap, size_t size)
{
    if (n < *cap)
        return p;
    *cap = *cap ? 2 * *cap : 16;
    p = realloc(p, *cap * size);
    if (!p)
        abort();
    return p;
}

static void *settle(Arena *a, void *p, uint32_t n, size_t size)
{
    void *q = n ? arena_alloc(a, n * size) : NULL;
    if (n)
        memcpy(q, p, n * size);
    free(p);
    return q;
}

/* Parameters every in-file call of their (plain) function fills with a
 * readable dict. A function also called with something else, or not
 * called in the file, keeps its parameter unknown. */
static void index_dict_params(Ir *ir)
{
    IrDictParam *b = NULL;
    uint32_t n = 0, cap = 0;
    for (uint32_t fi = 0; fi < ir->funcs.n; fi++) {
        const IrFunction *f = &ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = val(f, i);
            bool passes_dict = false;
            uint32_t dfn;
            ValueId dict;
            for (uint32_t a = 1; v->op == IR_CALL && a < v->nargs && !passes_dict; a++)
                passes_dict = dict_at(ir, f, v->args[a], &dfn, &dict);
            int g = passes_dict ? ir_callee_function(ir, f, v->args[0]) : -1;
            if (g < 0 || ir->funcs.v[g].class_index >= 0)
                continue;
            const IrFunction *G = &ir->funcs.v[g];
            for (uint32_t slot = 0; slot < G->params.n; slot++) {   /* one binding per call and slot */
                ValueId arg = ir_call_argument(v, G, 0, slot);
                if (arg && dict_at(ir, f, arg, &dfn, &dict)) {
                    b = grow(b, n, &cap, sizeof *b);
                    b[n++] = (IrDictParam){(uint32_t)g, slot, dfn, dict};
                }
            }
        }
    }
    if (!n)
        return free(b);
    uint32_t *calls = calloc(ir->funcs.n, sizeof *calls);
    if (!calls)
        abort();
    for (uint32_t fi = 0; fi < ir->funcs.n; fi++) {
        const IrFunction *f = &ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = val(f, i);
            uint8_t op = v->nargs ? val(f, v->args[0])->op : 0;
            int g = v->op == IR_CALL && (op == IR_FUNC || op == IR_GLOBAL) ? ir_callee_function(ir, f, v->args[0]) : -1;
            if (g >= 0)
                calls[g]++;
        }
    }
    qsort(b, n, sizeof *b, pair_order);
    uint32_t kept = 0;
    for (uint32_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && !pair_order(&b[j], &b[i]); j++)
            ;
        if (j - i == calls[b[i].fn])   /* every call passes a dict for it */
            for (uint32_t k = i; k < j; k++)
                b[kept++] = b[k];
    }
    free(calls);
    ir->ndict_params = kept;
    ir->dict_params = settle(ir->syn->arena, b, kept, sizeof *b);
}

/* Every store into, and every call that adds to, a readable dict, sorted
 * by the dict, so that a lookup costs a binary search, not a scan. */
/* The names some function declares `global`: such a function may rebind
 * a module-level dict pfc would otherwise take as the only definition. */
static void index_global_names(Ir *ir)
{
    const Syntax *S = ir->syn;
    uint32_t *v = NULL, n = 0, cap = 0;
    for (uint32_t k = 0; k < S->nnodes; k++) {
        const Node *g = &S->nodes[k];
        if (g->kind != N_GLOBAL)
            continue;
        for (uint32_t t = g->first_tok; t < g->end_tok; t++) {
            const Token *tok = &S->toks.v[t];
            uint32_t id = tok->kind == T_NAME ? intern_lookup(&S->names, S->src + tok->start, tok->len) : 0;
            if (id) {
                v = grow(v, n, &cap, sizeof *v);
                v[n++] = id;
            }
        }
    }
    if (n)
        qsort(v, n, sizeof *v, id_order);
    ir->nglobal_names = n;
    ir->global_names = settle(S->arena, v, n, sizeof *v);
}

/* Does this use of a readable dict (operand a of v) let code pfc does not
 * see change it: stored in an attribute, a container or another dict,
 * returned, merged by a phi, or passed to a call that is neither a library
 * function nor an in-file function whose parameter the dict is bound to? */
static bool escapes(const Ir *ir, const IrFunction *f, const IrValue *v, uint32_t a)
{
    switch ((IrOp)v->op) {
    case IR_STORE_ATTR: return a == 1;
    case IR_STORE_SUBSCR: return a == 2;
    case IR_BUILD: case IR_RETURN: case IR_YIELD: return true;
    case IR_PHI: return ir_resolve(f, (ValueId)(v - f->values.v)) == (ValueId)(v - f->values.v);
    case IR_CALL: {
        if (a == 0)
            return false;
        const IrValue *callee = val(f, v->args[0]);
        int g = ir_callee_function(ir, f, v->args[0]);
        if (g >= 0) {
            const IrFunction *G = &ir->funcs.v[g];
            for (uint32_t slot = 0; slot < G->params.n; slot++)
                if (ir_call_argument(v, G, 0, slot) == v->args[a]) {
                    uint32_t fn[DICTS_PER_VALUE];
                    ValueId d[DICTS_PER_VALUE];
                    return G->class_index >= 0 ||
                           !dicts_of(ir, G, ir_resolve(G, G->params.v[slot]), fn, d);
                }
            return true;
        }
        /* a library callable (print, len, torch.save) reads it; a project
         * function or an unknown callable may change it */
        return !callee->qual || ir_project_export(ir, callee->qual) != NULL;
    }
    default: return false;
    }
}

static IrDictWrite *add_write(IrDictWrite *w, uint32_t *n, uint32_t *cap, const Ir *ir,
                              const IrFunction *f, ValueId base, uint32_t fi, ValueId store)
{
    uint32_t dfn[DICTS_PER_VALUE];
    ValueId dict[DICTS_PER_VALUE];
    uint32_t nd = dicts_of(ir, f, base, dfn, dict);
    for (uint32_t k = 0; k < nd; k++) {
        w = grow(w, *n, cap, sizeof *w);
        w[(*n)++] = (IrDictWrite){dfn[k], dict[k], fi, store};
    }
    return w;
}

/* Every store into, and every call that adds to, a readable dict (through
 * a parameter it is bound to too), and every use that lets unseen code
 * change it (an entry with no store: the dict cannot be listed), sorted by
 * the dict, so that a lookup costs a binary search, not a scan. */
void ir_index_dict_writes(Ir *ir)
{
    const Syntax *S = ir->syn;
    index_global_names(ir);
    index_dict_params(ir);
    uint32_t update = intern_lookup(&S->names, "update", 6);
    uint32_t setdefault = intern_lookup(&S->names, "setdefault", 10);
    IrDictWrite *w = NULL;
    uint32_t n = 0, cap = 0;
    for (uint32_t fi = 0; fi < ir->funcs.n; fi++) {
        const IrFunction *f = &ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = val(f, i);
            if (v->op == IR_STORE_SUBSCR && v->nargs == 3) {
                w = add_write(w, &n, &cap, ir, f, v->args[0], fi, (ValueId)i);
            } else if (v->op == IR_CALL && v->nargs && val(f, v->args[0])->op == IR_ATTR &&
                       val(f, v->args[0])->nargs &&
                       ((update && val(f, v->args[0])->name == update) ||
                        (setdefault && val(f, v->args[0])->name == setdefault))) {
                w = add_write(w, &n, &cap, ir, f, val(f, v->args[0])->args[0], fi, 0);
            }
            for (uint32_t a = 0; a < v->nargs; a++) {
                uint32_t dfn[DICTS_PER_VALUE];
                ValueId dict[DICTS_PER_VALUE];
                if (dicts_of(ir, f, v->args[a], dfn, dict) && escapes(ir, f, v, a))
                    w = add_write(w, &n, &cap, ir, f, v->args[a], fi, 0);
            }
        }
    }
    if (n)
        qsort(w, n, sizeof *w, pair_order);
    ir->ndict_writes = n;
    ir->dict_writes = settle(S->arena, w, n, sizeof *w);
}

bool ir_const_key(const Syntax *S, const IrValue *k, const char **p, uint32_t *len)
{
    uint16_t kind = node_kind(S, k->node);
    if (k->op != IR_CONST || (kind != N_STRING && kind != N_NUMBER))
        return false;
    const Token *t = &S->toks.v[S->nodes[k->node].first_tok];
    const char *s = S->src + t->start, *end = s + t->len;
    if (kind == N_STRING) {
        while (s < end && *s != '"' && *s != '\'')
            s++;
        uint32_t q = end - s >= 6 && s[1] == s[0] && s[2] == s[0] ? 3 : 1;
        if ((uint32_t)(end - s) < 2 * q)
            return false;
        s += q, end -= q;
    }
    *p = s, *len = (uint32_t)(end - s);
    return true;
}

typedef struct Lookup {
    const Ir *ir;
    const IrFunction *kf;   /* where the looked-up key lives */
    const IrValue *key;     /* NULL: any key (`d[phase]`, `d.values()`) */
    IrDictHits *out;
    bool unknown;
} Lookup;

/* Does an entry with this key (in function ef) answer the lookup? An entry
 * with a computed key (a comprehension's, `d[name] = v`) may be any key. */
static bool key_matches(const Lookup *q, const IrFunction *ef, ValueId ekey)
{
    const char *a, *b;
    uint32_t al, bl;
    if (!q->key || !ir_const_key(q->ir->syn, val(ef, ekey), &b, &bl))
        return true;
    if (!ir_const_key(q->ir->syn, q->key, &a, &al))
        return true;
    return al == bl && node_kind(q->ir->syn, q->key->node) == node_kind(q->ir->syn, val(ef, ekey)->node) &&
           memcmp(a, b, al) == 0;
}

static void hit(Lookup *q, uint32_t fn, ValueId v)
{
    if (q->out->n == IR_DICT_MAX) {
        q->unknown = true;
        return;
    }
    q->out->fn[q->out->n] = fn;
    q->out->v[q->out->n++] = v;
}

/* The literal's own entries: `{k: v, ...}`, or a comprehension's one. */
static void literal_entries(Lookup *q, uint32_t fn, ValueId dict)
{
    const Syntax *S = q->ir->syn;
    const IrFunction *f = &q->ir->funcs.v[fn];
    const IrValue *d = val(f, dict);
    for (uint32_t a = 0; a < d->nargs; a++) {
        const IrValue *item = val(f, d->args[a]);
        if (item->op != IR_BUILD || item->nargs != 2 || node_kind(S, item->node) != N_DICT_ITEM) {
            q->unknown = true;   /* `**other`: entries pfc cannot list */
            return;
        }
        if (key_matches(q, f, item->args[0]))
            hit(q, fn, item->args[1]);
    }
}

static void stored_entries(Lookup *q, uint32_t fn, ValueId dict)
{
    const Ir *ir = q->ir;
    IrDictWrite probe = {fn, dict, 0, 0};
    for (uint32_t i = lower_bound(ir->dict_writes, ir->ndict_writes, sizeof probe, &probe); i < ir->ndict_writes && !pair_order(&ir->dict_writes[i], &probe); i++) {
        const IrDictWrite *w = &ir->dict_writes[i];
        if (!w->store) {
            q->unknown = true;   /* d.update(...): entries pfc cannot list */
            return;
        }
        const IrFunction *sf = &ir->funcs.v[w->in];
        const IrValue *st = val(sf, w->store);
        if (key_matches(q, sf, st->args[1]))
            hit(q, w->in, st->args[2]);
    }
}

static bool lookup(Lookup *q, const IrFunction *f, ValueId dict_value)
{
    uint32_t fn[DICTS_PER_VALUE];
    ValueId dict[DICTS_PER_VALUE];
    uint32_t nd = dicts_of(q->ir, f, dict_value, fn, dict);
    q->out->n = 0;
    const char *t;
    uint32_t len;
    bool constant = q->key && ir_const_key(q->ir->syn, q->key, &t, &len);
    for (uint32_t i = 0; i < nd && !q->unknown; i++) {
        uint32_t before = q->out->n;
        literal_entries(q, fn[i], dict[i]);
        if (!q->unknown)
            stored_entries(q, fn[i], dict[i]);
        /* two values under one key of one dict: which one a read sees
         * depends on the order pfc does not follow (a store may replace
         * the literal's) */
        if (constant && q->out->n - before > 1)
            q->unknown = true;
    }
    return nd && !q->unknown && q->out->n > 0;
}

/* `d.values()` / `d.items()` called on a readable dict: the dict, or 0. */
static ValueId view_of(const Ir *ir, const IrFunction *f, ValueId it, const char *method)
{
    const IrValue *c = val(f, ir_resolve(f, it));
    if (c->op != IR_CALL || c->nargs != 1)
        return 0;
    const IrValue *a = val(f, c->args[0]);
    uint32_t fn[DICTS_PER_VALUE];
    ValueId d[DICTS_PER_VALUE];
    if (a->op != IR_ATTR || !a->nargs || !dicts_of(ir, f, a->args[0], fn, d) ||
        !intern_is(&ir->syn->names, a->name, method))
        return 0;
    return a->args[0];
}

bool ir_dict_element(const Ir *ir, const IrFunction *f, ValueId id, IrDictHits *out)
{
    const IrValue *v = val(f, id);
    Lookup q = {ir, f, NULL, out, false};
    out->n = 0;
    if (v->op == IR_SUBSCR && v->nargs == 2) {   /* d[k] */
        q.key = val(f, v->args[1]);
        return lookup(&q, f, v->args[0]);
    }
    const IrValue *callee = v->op == IR_CALL && v->nargs >= 2 ? val(f, v->args[0]) : NULL;
    uint32_t fn[DICTS_PER_VALUE];
    ValueId dd[DICTS_PER_VALUE], d;
    if (callee && callee->op == IR_ATTR && callee->nargs && !ir_kwname(v, 1) &&
        dicts_of(ir, f, callee->args[0], fn, dd) &&
        intern_is(&ir->syn->names, callee->name, "get")) {   /* d.get(k[, default]) */
        q.key = val(f, v->args[1]);
        if (!lookup(&q, f, callee->args[0]))
            return false;
        for (uint32_t i = 2; i < v->nargs; i++)
            hit(&q, (uint32_t)(f - ir->funcs.v), v->args[i]);
        return !q.unknown;
    }
    if (v->op == IR_ITER_NEXT && v->nargs) {   /* for x in d.values() */
        d = view_of(ir, f, v->args[0], "values");
        return d && lookup(&q, f, d);
    }
    if (v->op == IR_UNPACK && v->nargs && v->index == 1) {   /* for k, x in d.items() */
        const IrValue *item = val(f, ir_resolve(f, v->args[0]));
        d = item->op == IR_ITER_NEXT && item->nargs ? view_of(ir, f, item->args[0], "items") : 0;
        return d && lookup(&q, f, d);
    }
    return false;
}
