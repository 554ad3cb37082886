/* Python itself: builtins (range, len, min/max, list, dict, iter/next,
 * getattr, str, bool, vars), math, list and dict methods. argparse is in
 * torchlib_cli.c, with the rest of the script's command line. */
#include "torchlib.h"
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- library calls ---------------------------------------------------------------------- */

/* range() up to 100000 items; a longer or unknown one is not unrolled. */
static AVal *b_range(Interp *in, const char *name, Args *a)
{
    int64_t lo = 0, hi, step = 1;
    (void)name;
    if (arg(a, 1, NULL)) {
        if (!int_arg(a, 0, NULL, &lo) || !int_arg(a, 1, NULL, &hi))
            return av_unknown(in);
        int_arg(a, 2, NULL, &step);
    } else if (!int_arg(a, 0, NULL, &hi)) {
        return av_unknown(in);
    }
    int64_t span;
    if (step <= 0 || !ck_isub(hi, lo, &span) || span > 100000)
        return av_unknown(in);
    AVal *s = av_seq(in, span > 0 ? (uint32_t)((span + step - 1) / step) : 0);
    for (uint32_t i = 0; i < s->n; i++)
        s->items[i] = av_int(in, lo + (int64_t)i * step);
    return s;
}

static AVal *b_len(Interp *in, const char *name, Args *a)
{
    AVal *x = arg(a, 0, NULL);
    (void)name;
    if (x && (x->k == AV_SEQ || x->k == AV_DICT))
        return av_int(in, x->n);
    if (x && x->k == AV_TENSOR && x->nd)
        return av_int(in, x->dim[0]);
    if (x && x->k == AV_OBJECT && x->obj->cls >= 0) {
        Args none = {{0}, {0}, 0};
        bool found;
        AVal *r = run_method(in, x, "__len__", &none, &found);
        if (found)
            return r;
    }
    /* a ModuleList, Sequential or ModuleDict (or a class of the script derived from one) */
    AVal *items = x && x->k == AV_OBJECT ? iter_items(in, x) : NULL;
    return items ? av_int(in, items->n) : av_unknown(in);
}

/* int(), float() (of a number or a numeric string), abs(), round(). */
static AVal *b_number(Interp *in, const char *name, Args *a)
{
    AVal *x = arg(a, 0, NULL);
    if ((eq(name, "int") || eq(name, "float")) && x && x->k == AV_STR) {
        char *end;
        double v = strtod(x->s, &end);
        if (!*x->s || *end)
            return av_unknown(in);
        return eq(name, "int") ? av_int(in, (int64_t)v) : av_float(in, v);
    }
    double v;
    if (!x || !av_num(x, &v))
        return av_unknown(in);
    if (eq(name, "abs"))
        v = fabs(v);
    return eq(name, "float") ? av_float(in, v) : av_int(in, (int64_t)(eq(name, "round") ? llround(v) : v));
}

/* min() and max() of the arguments, or of the one iterable given. */
static AVal *b_minmax(Interp *in, const char *name, Args *a)
{
    AVal *x = arg(a, 0, NULL);
    AVal *items = a->n == 1 && x ? iter_items(in, x) : NULL;
    double best = 0;
    bool any = false, all_int = true;
    for (uint32_t i = 0; i < (items ? items->n : a->n); i++) {
        AVal *v = items ? items->items[i] : a->v[i];
        double d;
        if (!av_num(v, &d))
            return av_unknown(in);
        all_int &= v->k == AV_INT;
        if (!any || (eq(name, "min") ? d < best : d > best))
            best = d;
        any = true;
    }
    return !any ? av_unknown(in) : all_int ? av_int(in, (int64_t)best) : av_float(in, best);
}

static AVal *b_list(Interp *in, const char *name, Args *a)
{
    AVal *x = arg(a, 0, NULL);
    (void)name;
    AVal *items = x ? iter_items(in, x) : av_seq(in, 0);
    return items ? items : av_unknown(in);
}

/* dict(k=v, ...): the keyword arguments. */
static AVal *b_dict(Interp *in, const char *name, Args *a)
{
    AVal *d = av_new(in, AV_DICT);
    (void)name;
    d->items = arena_zalloc(in->a, (a->n + 1) * sizeof *d->items);
    d->keys = arena_zalloc(in->a, (a->n + 1) * sizeof *d->keys);
    for (uint32_t i = 0; i < a->n; i++)
        if (a->kw[i]) {
            d->keys[d->n] = a->kw[i];
            d->items[d->n++] = a->v[i];
        }
    return d;
}

/* filter(f, items) over a sequence pfc knows (f None: the true items). */
static AVal *b_filter(Interp *in, const char *name, Args *a)
{
    AVal *f = arg(a, 0, NULL), *x = arg(a, 1, NULL);
    AVal *items = x ? iter_items(in, x) : NULL;
    (void)name;
    return f && items ? filter_items(in, f, items) : av_unknown(in);
}

/* enumerate(), iter(), zip(): a DataLoader iterates as its one batch. */
static AVal *b_iterate(Interp *in, const char *name, Args *a)
{
    AVal *x = arg(a, 0, NULL);
    if (x && x->k == AV_OBJECT && x->obj->nn == NN_LOADER && eq(name, "iter"))
        return x;
    AVal *items = x ? iter_items(in, x) : NULL;
    if (!items && x && x->k == AV_OBJECT && x->obj->nn == NN_LOADER) {
        items = av_seq(in, 1);
        items->items[0] = loader_batch(in, x);
    }
    if (!items)
        return av_unknown(in);
    if (eq(name, "iter"))
        return items;
    AVal *s = av_seq(in, items->n);
    AVal *other = eq(name, "zip") && arg(a, 1, NULL) ? iter_items(in, arg(a, 1, NULL)) : NULL;
    for (uint32_t i = 0; i < items->n; i++) {
        AVal *pair = av_seq(in, 2);
        pair->items[0] = eq(name, "zip") ? items->items[i] : av_int(in, i);
        pair->items[1] = eq(name, "zip") ? (other && i < other->n ? other->items[i] : av_unknown(in))
                                         : items->items[i];
        s->items[i] = pair;
    }
    return s;
}

static AVal *b_next(Interp *in, const char *name, Args *a)
{
    AVal *x = arg(a, 0, NULL);
    (void)name;
    if (x && x->k == AV_OBJECT && x->obj->nn == NN_LOADER)
        return loader_batch(in, x);
    AVal *items = x ? iter_items(in, x) : NULL;
    return items && items->n ? items->items[0] : av_unknown(in);
}

static AVal *b_getattr(Interp *in, const char *name, Args *a)
{
    AVal *x = arg(a, 0, NULL), *n = arg(a, 1, NULL);
    (void)name;
    if (x && n && n->k == AV_STR) {
        AVal *r = x->k == AV_OBJECT ? obj_get(x->obj, n->s) : interp_module_attr(in, x, n->s);
        if (r)
            return r;
    }
    if (x && x->k == AV_QUAL && n && n->k != AV_STR)
        interp_factory_unread_at(in, in->cur_node, x->s, n);
    AVal *d = arg(a, 2, NULL);
    return d ? d : av_unknown(in);
}

/* str() of a constant, as Python spells it. */
static AVal *b_str(Interp *in, const char *name, Args *a)
{
    AVal *x = arg(a, 0, NULL);
    (void)name;
    if (!x)
        return av_str(in, "");
    switch (x->k) {
    case AV_STR: return x;
    case AV_INT: return av_str(in, arena_printf(in->a, "%lld", (long long)x->i));
    case AV_BOOL: return av_str(in, x->i ? "True" : "False");
    case AV_NONE: return av_str(in, "None");
    case AV_FLOAT: {
        char *t = arena_printf(in->a, "%.17g", x->f);
        for (int digits = 1; digits < 17; digits++) {   /* the shortest text that reads back */
            char *shorter = arena_printf(in->a, "%.*g", digits, x->f);
            if (strtod(shorter, NULL) == x->f) {
                t = shorter;
                break;
            }
        }
        return av_str(in, strpbrk(t, ".eni") ? t : arena_printf(in->a, "%s.0", t));
    }
    default: return av_unknown(in);
    }
}

static AVal *b_bool(Interp *in, const char *name, Args *a)
{
    AVal *x = arg(a, 0, NULL);
    bool known;
    (void)name;
    bool t = x ? av_truth(x, &known) : (known = true, false);
    return known ? av_bool(in, t) : av_unknown(in);
}

/* vars(obj): an object's attributes as a dict (argparse's Namespace). */
static AVal *b_vars(Interp *in, const char *name, Args *a)
{
    AVal *x = arg(a, 0, NULL);
    (void)name;
    if (!x || x->k != AV_OBJECT)
        return av_unknown(in);
    AVal *d = av_new(in, AV_DICT);
    d->items = arena_zalloc(in->a, (x->obj->nattr + 1) * sizeof *d->items);
    d->keys = arena_zalloc(in->a, (x->obj->nattr + 1) * sizeof *d->keys);
    for (uint32_t i = 0; i < x->obj->nattr; i++)
        if (strncmp(x->obj->names[i], "__", 2) != 0) {
            d->keys[d->n] = x->obj->names[i];
            d->items[d->n++] = x->obj->vals[i];
        }
    return d;
}

static AVal *b_none(Interp *in, const char *name, Args *a)
{
    (void)name;
    (void)a;
    return av_none(in);
}

/* eval("torch.bfloat16"): a command-line choice naming a torch
 * attribute (dtypes, mostly) is that name; any other text stays unknown. */
static AVal *b_eval(Interp *in, const char *name, Args *a)
{
    (void)name;
    AVal *x = arg(a, 0, NULL);
    if (!x || x->k != AV_STR || strncmp(x->s, "torch.", 6) != 0)
        return av_unknown(in);
    for (const char *c = x->s; *c; c++)
        if (!(isalnum((unsigned char)*c) || *c == '_' || *c == '.'))
            return av_unknown(in);
    return av_qual(in, x->s);
}

typedef AVal *Builtin(Interp *in, const char *name, Args *a);

AVal *builtin(Interp *in, const char *name, Args *a)
{
    static const struct { const char *name; Builtin *fn; } fns[] = {
        {"range", b_range}, {"len", b_len}, {"int", b_number}, {"float", b_number},
        {"abs", b_number}, {"round", b_number}, {"min", b_minmax}, {"max", b_minmax},
        {"list", b_list}, {"tuple", b_list}, {"dict", b_dict}, {"enumerate", b_iterate},
        {"iter", b_iterate}, {"zip", b_iterate}, {"next", b_next}, {"getattr", b_getattr},
        {"print", b_none}, {"setattr", b_none}, {"str", b_str}, {"bool", b_bool}, {"vars", b_vars},
        {"eval", b_eval}, {"filter", b_filter},
    };
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
        if (eq(name, fns[i].name))
            return fns[i].fn(in, name, a);
    return av_unknown(in);
}

AVal *math_call(Interp *in, const char *f, Args *a)
{
    double v;
    if (!arg(a, 0, NULL) || !av_num(arg(a, 0, NULL), &v))
        return av_unknown(in);
    return eq(f, "sqrt") ? av_float(in, sqrt(v)) : eq(f, "log") ? av_float(in, log(v))
         : eq(f, "ceil") ? av_int(in, (int64_t)ceil(v)) : eq(f, "floor") ? av_int(in, (int64_t)floor(v))
         : av_unknown(in);
}

AVal *seq_method(Interp *in, AVal *recv, const char *name, Args *a)
{
    if (eq(name, "extend") && arg(a, 0, NULL) && arg(a, 0, NULL)->k == AV_SEQ && arg(a, 0, NULL) != recv) {
        AVal *more = arg(a, 0, NULL);
        AVal **items = arena_alloc(in->a, (recv->n + more->n + 1) * sizeof *items);
        if (recv->n)
            memcpy(items, recv->items, recv->n * sizeof *items);
        if (more->n)
            memcpy(items + recv->n, more->items, more->n * sizeof *items);
        recv->items = items;
        recv->n += more->n;
        return av_none(in);
    }
    if (eq(name, "append") && recv->n < 100000) {
        AVal **items = arena_alloc(in->a, (recv->n + 1) * sizeof *items);
        if (recv->n)
            memcpy(items, recv->items, recv->n * sizeof *items);
        items[recv->n++] = arg(a, 0, NULL) ? arg(a, 0, NULL) : av_unknown(in);
        recv->items = items;
        return av_none(in);
    }
    return av_unknown(in);
}

/* d.update(other, key=value): other's pairs, then the keywords */
static AVal *dict_update(Interp *in, AVal *d, Args *a)
{
    for (uint32_t i = 0; i < a->n; i++) {
        AVal *v = a->v[i];
        if (a->kw[i])
            apply_store_subscr(in, d, av_str(in, a->kw[i]), v, NULL);
        else if (v->k == AV_DICT && v != d)
            for (uint32_t k = 0; k < v->n; k++)
                apply_store_subscr(in, d, av_str(in, v->keys[k]), v->items[k], NULL);
    }
    return av_none(in);
}

AVal *dict_method(Interp *in, AVal *recv, const char *name, Args *a)
{
    if (eq(name, "update"))
        return dict_update(in, recv, a);
    if (eq(name, "setdefault") && arg(a, 0, NULL) && arg(a, 0, NULL)->k == AV_STR) {
        AVal *k = arg(a, 0, NULL), *now = NULL;
        for (uint32_t i = 0; i < recv->n && !now; i++)
            if (eq(recv->keys[i], k->s))
                now = recv->items[i];
        if (now)
            return now;
        AVal *v = arg(a, 1, NULL) ? arg(a, 1, NULL) : av_none(in);
        apply_store_subscr(in, recv, k, v, NULL);
        return v;
    }
    if (eq(name, "get") || eq(name, "pop")) {
        AVal *k = arg(a, 0, NULL);
        for (uint32_t i = 0; k && k->k == AV_STR && i < recv->n; i++)
            if (eq(recv->keys[i], k->s))
                return recv->items[i];
        return arg(a, 1, NULL) ? arg(a, 1, NULL) : av_none(in);
    }
    if (eq(name, "items") || eq(name, "values") || eq(name, "keys")) {
        AVal *s = av_seq(in, recv->n);
        for (uint32_t i = 0; i < recv->n; i++) {
            if (eq(name, "items")) {
                AVal *p = av_seq(in, 2);
                p->items[0] = av_str(in, recv->keys[i]);
                p->items[1] = recv->items[i];
                s->items[i] = p;
            } else {
                s->items[i] = eq(name, "values") ? recv->items[i] : av_str(in, recv->keys[i]);
            }
        }
        return s;
    }
    return av_unknown(in);
}

/* s.startswith(x) / s.endswith(x), x a string or a tuple of them: -1 when
 * x is not one pfc knows. */
static int affix_match(const char *s, const AVal *x, bool start)
{
    if (x->k == AV_SEQ) {
        int r = 0;
        for (uint32_t i = 0; i < x->n && r == 0; i++)
            r = affix_match(s, x->items[i], start);
        return r;
    }
    if (x->k != AV_STR || !x->s)
        return -1;
    size_t n = strlen(s), k = strlen(x->s);
    return k <= n && memcmp(start ? s : s + n - k, x->s, k) == 0;
}

/* The string methods a condition on a parameter's name uses. */
AVal *str_method(Interp *in, AVal *recv, const char *name, Args *a)
{
    AVal *x = arg(a, 0, NULL);
    if ((eq(name, "startswith") || eq(name, "endswith")) && x && recv->s && a->n == 1) {
        int r = affix_match(recv->s, x, eq(name, "startswith"));
        return r < 0 ? av_unknown(in) : av_bool(in, r);
    }
    return av_unknown(in);
}
