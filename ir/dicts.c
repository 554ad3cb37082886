/* ir/dicts: what a dict pfc can read whole holds. A dict is readable when
 * it is a literal with no `**` (or a dict comprehension) and nothing adds
 * to it but `d[k] = v` stores pfc sees (no `update`, no `setdefault`).
 * Reading it is flow-insensitive: `d["train"]` may be every value stored
 * under "train" anywhere, `d[phase]` every value of the dict. Removing an
 * entry only narrows that set, so `del` and `pop` are ignored. */
#include "internal.h"
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

/* The dict a value denotes, as (function, value): a literal in f, or the one
 * module-level definition of a global that is a dict literal. */
static bool dict_at(const Ir *ir, const IrFunction *f, ValueId x, uint32_t *fn, ValueId *id)
{
    const Syntax *S = ir->syn;
    x = ir_resolve(f, x);
    const IrValue *b = val(f, x);
    if (is_dict_build(S, b)) {
        *fn = (uint32_t)(f - ir->funcs.v), *id = x;
        return true;
    }
    if (b->op != IR_GLOBAL || b->qual || b->name >= ir->nnames || !ir->last_def[b->name])
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

static int param_order(const void *a, const void *b)
{
    const IrDictParam *x = a, *y = b;
    if (x->fn != y->fn)
        return x->fn < y->fn ? -1 : 1;
    return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/* The dicts x may be: dict_at's, or for a parameter the dicts every in-file
 * call passes for it (`train(model, loaders)`). 0 when pfc cannot tell. */
static uint32_t dicts_of(const Ir *ir, const IrFunction *f, ValueId x, uint32_t *fn, ValueId *id)
{
    if (dict_at(ir, f, x, fn, id))
        return 1;
    const IrValue *p = val(f, ir_resolve(f, x));
    if (p->op != IR_PARAM || !ir->ndict_params)
        return 0;
    IrDictParam probe = {(uint32_t)(f - ir->funcs.v), p->index, 0, 0};
    uint32_t lo = 0, hi = ir->ndict_params, n = 0;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (param_order(&ir->dict_params[mid], &probe) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (uint32_t i = lo; i < ir->ndict_params && !param_order(&ir->dict_params[i], &probe); i++) {
        if (n == DICTS_PER_VALUE)
            return 0;
        fn[n] = ir->dict_params[i].dfn, id[n] = ir->dict_params[i].dict, n++;
    }
    return n;
}

static int write_order(const void *a, const void *b)
{
    const IrDictWrite *x = a, *y = b;
    if (x->fn != y->fn)
        return x->fn < y->fn ? -1 : 1;
    return x->dict < y->dict ? -1 : x->dict > y->dict;
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
            int g = -2;
            for (uint32_t a = 1; v->op == IR_CALL && a < v->nargs; a++) {
                uint32_t dfn;
                ValueId dict;
                if (!dict_at(ir, f, v->args[a], &dfn, &dict))
                    continue;
                if (g == -2)
                    g = ir_callee_function(ir, f, v->args[0]);
                if (g < 0 || ir->funcs.v[g].class_index >= 0)
                    break;
                const IrFunction *G = &ir->funcs.v[g];
                for (uint32_t slot = 0; slot < G->params.n; slot++)
                    if (ir_call_argument(v, G, 0, slot) == v->args[a]) {
                        b = grow(b, n, &cap, sizeof *b);
                        b[n++] = (IrDictParam){(uint32_t)g, slot, dfn, dict};
                        break;
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
    qsort(b, n, sizeof *b, param_order);
    uint32_t kept = 0;
    for (uint32_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && !param_order(&b[j], &b[i]); j++)
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
void ir_index_dict_writes(Ir *ir)
{
    const Syntax *S = ir->syn;
    uint32_t update = intern_lookup(&S->names, "update", 6);
    uint32_t setdefault = intern_lookup(&S->names, "setdefault", 10);
    IrDictWrite *w = NULL;
    uint32_t n = 0, cap = 0;
    for (uint32_t fi = 0; fi < ir->funcs.n; fi++) {
        const IrFunction *f = &ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = val(f, i);
            ValueId base;
            bool adds;
            if (v->op == IR_STORE_SUBSCR && v->nargs == 3) {
                base = v->args[0], adds = false;
            } else if (v->op == IR_CALL && v->nargs && val(f, v->args[0])->op == IR_ATTR &&
                       val(f, v->args[0])->nargs &&
                       ((update && val(f, v->args[0])->name == update) ||
                        (setdefault && val(f, v->args[0])->name == setdefault))) {
                base = val(f, v->args[0])->args[0], adds = true;
            } else {
                continue;
            }
            uint32_t dfn;
            ValueId dict;
            if (!dict_at(ir, f, base, &dfn, &dict))
                continue;
            w = grow(w, n, &cap, sizeof *w);
            w[n++] = (IrDictWrite){dfn, dict, fi, adds ? 0 : (ValueId)i};
        }
    }
    if (n)
        qsort(w, n, sizeof *w, write_order);
    ir->ndict_writes = n;
    ir->dict_writes = settle(S->arena, w, n, sizeof *w);
    index_dict_params(ir);
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
    uint32_t lo = 0, hi = ir->ndict_writes;
    IrDictWrite probe = {fn, dict, 0, 0};
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (write_order(&ir->dict_writes[mid], &probe) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (uint32_t i = lo; i < ir->ndict_writes && !write_order(&ir->dict_writes[i], &probe); i++) {
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
    for (uint32_t i = 0; i < nd && !q->unknown; i++) {
        literal_entries(q, fn[i], dict[i]);
        if (!q->unknown)
            stored_entries(q, fn[i], dict[i]);
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
