/* Python itself: builtins (range, len, min/max, list, dict, iter/next,
 * getattr), math, list and dict methods, and argparse (its defaults are
 * the script's configuration). */
#include "torchlib.h"
#include <math.h>
#include <stdlib.h>

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
        return found ? r : av_unknown(in);
    }
    return av_unknown(in);
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
        interp_factory_unread_at(in, x->s, n);
    AVal *d = arg(a, 2, NULL);
    return d ? d : av_unknown(in);
}

static AVal *b_none(Interp *in, const char *name, Args *a)
{
    (void)name;
    (void)a;
    return av_none(in);
}

typedef AVal *Builtin(Interp *in, const char *name, Args *a);

AVal *builtin(Interp *in, const char *name, Args *a)
{
    static const struct { const char *name; Builtin *fn; } fns[] = {
        {"range", b_range}, {"len", b_len}, {"int", b_number}, {"float", b_number},
        {"abs", b_number}, {"round", b_number}, {"min", b_minmax}, {"max", b_minmax},
        {"list", b_list}, {"tuple", b_list}, {"dict", b_dict}, {"enumerate", b_iterate},
        {"iter", b_iterate}, {"zip", b_iterate}, {"next", b_next}, {"getattr", b_getattr},
        {"print", b_none}, {"setattr", b_none},
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

/* ---- the script's own command line ------------------------------------------------------ */

/* Whether arg is `--key` or `--key=...` with - and _ alike; *value gets
 * what follows '=' (NULL without one). */
static bool names_option(const char *arg, const char *key, const char **value)
{
    if (strncmp(arg, "--", 2) != 0)
        return false;
    const char *p = arg + 2;
    for (; *key && *p && *p != '='; p++, key++)
        if (*p != *key && !((*p == '-' || *p == '_') && (*key == '-' || *key == '_')))
            return false;
    if (*key || (*p && *p != '='))
        return false;
    *value = *p == '=' ? p + 1 : NULL;
    return true;
}

const char *script_arg(const Interp *in, const char *key)
{
    const char *found = NULL;   /* the last one wins, as in argparse */
    for (uint32_t i = 0; i < in->nscript_args; i++) {
        const char *v;
        if (!names_option(in->script_args[i], key, &v))
            continue;
        const char *next = i + 1 < in->nscript_args ? in->script_args[i + 1] : NULL;
        found = v ? v : next && strncmp(next, "--", 2) != 0 ? next : "";
    }
    return found;
}

AVal *literal_value(Interp *in, const char *text)
{
    if (!*text || eq(text, "true") || eq(text, "True"))
        return av_bool(in, true);
    if (eq(text, "false") || eq(text, "False"))
        return av_bool(in, false);
    if (eq(text, "None") || eq(text, "null"))
        return av_none(in);
    char *end;
    long long i = strtoll(text, &end, 10);
    if (!*end)
        return av_int(in, i);
    double d = strtod(text, &end);
    return !*end ? av_float(in, d) : av_str(in, text);
}

const char *current_line(Interp *in)
{
    uint32_t line = 0, col = 0;
    if (in->cur_node)
        syntax_line_col(in->S, node_start(in->S, syn_node(in->S, in->cur_node)), &line, &col);
    return line ? arena_printf(in->a, "line %u", line) : "the script";
}

static void note_value(Interp *in, const char *key, const char *text, const char *origin)
{
    interp_note(in, 0, arena_printf(in->a, "%s = '%s' (%s)", key, text, origin));
}

AVal *script_value(Interp *in, const char *key)
{
    const char *text = script_arg(in, key);
    if (!text)
        return NULL;
    AVal *v = literal_value(in, text);
    if (v == av_none(in))
        return v;
    v->origin = "the command line";
    note_value(in, key, *text ? text : "True", v->origin);
    return v;
}

/* ---- argparse: the defaults are the configuration ----------------------------------------- */

/* What the command line gives one of the option's spellings (or its dest),
 * converted as argparse would: type=, store_true / store_false. */
static AVal *option_given(Interp *in, Args *a, const char *key, AVal *action, AVal *type)
{
    const char *text = script_arg(in, key);
    for (int i = 0; !text && i < 4 && arg(a, i, NULL) && arg(a, i, NULL)->k == AV_STR; i++)
        if (strncmp(arg(a, i, NULL)->s, "--", 2) == 0)
            text = script_arg(in, arg(a, i, NULL)->s + 2);
    if (!text)
        return NULL;
    note_value(in, key, *text ? text : "True", "the command line");
    if (action && action->k == AV_STR && strncmp(action->s, "store_", 6) == 0)
        return av_bool(in, strcmp(action->s, "store_false") != 0);
    if (type && type->k == AV_QUAL && !ends(type->s, "str")) {
        Args one = {{av_str(in, text)}, {NULL}, 1};
        return builtin(in, strchr(type->s, '.') ? strchr(type->s, '.') + 1 : type->s, &one);
    }
    return type ? av_str(in, text) : literal_value(in, text);
}

/* add_argument("--batch-size", "-b", type=int, default="64", dest=...,
 * action="store_true", required=True): records dest -> the value the
 * command line gives, else the default (string defaults go through type,
 * as argparse does); a required option not given is an unknown that names
 * itself, so that a refusal can say how to give it. */
static void add_argument(Interp *in, void *ctx, Args *a)
{
    Obj *parser = ctx;
    const char *dest = NULL, *spelling = NULL;
    AVal *d = arg(a, -1, "dest");
    if (d && d->k == AV_STR)
        dest = d->s;
    for (int i = 0; i < 4; i++) {
        AVal *n = arg(a, i, NULL);
        if (!n || n->k != AV_STR)
            break;
        if (!spelling && (strncmp(n->s, "--", 2) == 0 || n->s[0] != '-'))
            spelling = n->s;
        if (!dest && (strncmp(n->s, "--", 2) == 0 || n->s[0] != '-' || !arg(a, i + 1, NULL)))
            dest = n->s + (strncmp(n->s, "--", 2) == 0 ? 2 : n->s[0] == '-' ? 1 : 0);
    }
    if (!dest)
        return;
    char *key = arena_strndup(in->a, dest, strlen(dest));
    for (char *c = key; *c; c++)
        if (*c == '-')
            *c = '_';
    AVal *def = arg(a, -1, "default");
    AVal *action = arg(a, -1, "action");
    if (!def && action && action->k == AV_STR)
        def = av_bool(in, strcmp(action->s, "store_false") == 0);
    AVal *type = arg(a, -1, "type");
    if (def && def->k == AV_STR && type && type->k == AV_QUAL) {
        Args one = {{def}, {NULL}, 1};
        def = builtin(in, strchr(type->s, '.') ? strchr(type->s, '.') + 1 : type->s, &one);
    }
    AVal *given = option_given(in, a, key, action, type);
    if (given) {
        def = given;
    } else if (!def && bool_or(a, -1, "required", false)) {
        def = av_new(in, AV_UNKNOWN);
        def->origin = spelling ? spelling : arena_printf(in->a, "--%s", key);
    } else if (def && def->k == AV_STR) {
        def = av_str(in, def->s);
        def->origin = arena_printf(in->a, "argparse default, %s", current_line(in));
    }
    obj_set(in, parser, key, def ? def : av_none(in));
}

static AVal *parse_args(Interp *in, Obj *parser)
{
    interp_note(in, 0, in->nscript_args ? "command-line arguments: argparse's defaults and the "
                                          "arguments after --"
                                        : "command-line arguments: argparse's defaults");
    if (!obj_get(parser, "__scanned__")) {
        obj_set(in, parser, "__scanned__", av_bool(in, true));
        for_each_call_on(in, "add_argument", parser, add_argument, parser);
    }
    AVal *ns = av_obj(in, NN_OPAQUE);
    for (uint32_t i = 0; i < parser->nattr; i++)
        if (strcmp(parser->names[i], "__scanned__") != 0)
            obj_set(in, ns->obj, parser->names[i], parser->vals[i]);
    return ns;
}

AVal *argparse_method(Interp *in, Obj *parser, const char *name, Args *a)
{
    if (eq(name, "add_argument")) {
        add_argument(in, parser, a);
        return av_none(in);
    }
    if (eq(name, "parse_args"))
        return parse_args(in, parser);
    if (eq(name, "parse_known_args")) {
        AVal *pair = av_seq(in, 2);
        pair->items[0] = parse_args(in, parser);
        pair->items[1] = av_seq(in, 0);
        return pair;
    }
    return av_unknown(in);
}

AVal *seq_method(Interp *in, AVal *recv, const char *name, Args *a)
{
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

AVal *dict_method(Interp *in, AVal *recv, const char *name, Args *a)
{
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
