/* The script's command line as the libraries that read it do: the words
 * after `pfc estimate SCRIPT --`, and argparse (options with their
 * spellings, dest=, type=, actions and nargs, positionals, sub-commands,
 * parents=, set_defaults). Every value keeps where it came from and the
 * words that would give it, so that a refusal can say how to pass it.
 * fire's and jsonargparse's entry points read the same words (interp.c's
 * param_default), HfArgumentParser its dataclasses (torchlib_frameworks.c). */
#include "torchlib.h"
#include <stdlib.h>

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

/* A setting read from a config file, noted as one from the words is:
 * each leaf of a nested one ("model.hidden = '64' (config file c.yaml)"). */
static void note_setting(Interp *in, const char *key, AVal *v, const char *origin, int depth)
{
    if (v->k == AV_DICT && depth < 8) {
        for (uint32_t i = 0; i < v->n; i++)
            note_setting(in, arena_printf(in->a, "%s.%s", key, v->keys[i]), v->items[i], origin, depth + 1);
        return;
    }
    Args one = {{v}, {NULL}, 1};
    AVal *text = builtin(in, "str", &one);
    if (text->k == AV_STR)
        note_value(in, key, text->s, origin);
}

static void note_file(Interp *in, AVal *file, const char *path)
{
    const char *origin = arena_printf(in->a, "config file %s", path);
    for (uint32_t i = 0; file->k == AV_DICT && i < file->n; i++)
        note_setting(in, file->keys[i], file->items[i], origin, 0);
}

AVal *config_value(Interp *in, AVal *v, const char *origin, const char *cli)
{
    if (!v || (v->k != AV_STR && v->k != AV_UNKNOWN))
        return v;
    AVal *c = av_new(in, (AKind)v->k);
    c->s = v->s;
    c->origin = origin ? origin : v->origin;
    c->cli = cli;
    return c;
}

const char *missing_config(Interp *in, const char *what, const AVal *v)
{
    const char *script = in->script_path ? in->script_path : "SCRIPT";
    return v->cli ? arena_printf(in->a, "%s is %s: give it as `pfc estimate %s -- %s`", what, v->origin, script, v->cli)
                  : arena_printf(in->a, "%s is %s", what, v->origin);
}

AVal *script_value(Interp *in, const char *key)
{
    const char *text = script_arg(in, key);
    if (!text)
        return NULL;
    AVal *v = literal_value(in, text);
    if (v == av_none(in))
        return v;
    v = config_value(in, v, "the command line", arena_printf(in->a, "--%s NAME", key));
    v->origin = "the command line";
    note_value(in, key, *text ? text : "True", v->origin);
    return v;
}

/* ---- argparse: what add_argument() declares ---------------------------------------------- */

/* One add_argument(), as argparse's Action holds it. */
typedef struct ArgSpec {
    const char *dest;
    const char *names[4];   /* option strings, or the positional's name */
    uint32_t nnames;
    bool positional, required, negatable;   /* negatable: BooleanOptionalAction's --no-X */
    bool config_file;                       /* jsonargparse's ActionConfigFile */
    const char *action;     /* NULL: store */
    const char *line;       /* of the add_argument() call */
    AVal *dflt, *type, *cnst;
    int min, max;           /* how many words it takes (nargs); max -1: any number */
} ArgSpec;

static AVal *parser_part(Interp *in, Obj *p, const char *name)
{
    AVal *v = obj_get(p, name);
    if (!v) {
        v = av_obj(in, NN_OPAQUE);
        obj_set(in, p, name, v);
    }
    return v;
}

/* argparse's dest: dest=, else the first long option (or the first short
 * one) without its dashes and with - as _, or the positional's name. */
static const char *dest_of(Interp *in, const ArgSpec *s, Args *a)
{
    AVal *d = arg(a, -1, "dest");
    if (d && d->k == AV_STR)
        return d->s;
    if (s->positional)
        return s->names[0];
    const char *name = s->names[0];
    for (uint32_t i = 0; i < s->nnames; i++)
        if (strncmp(s->names[i], "--", 2) == 0) {
            name = s->names[i];
            break;
        }
    char *key = arena_printf(in->a, "%s", name + (name[1] == '-' ? 2 : 1));
    for (char *c = key; *c; c++)
        if (*c == '-')
            *c = '_';
    return key;
}

/* nargs as a range of words: None 1, '?' 0-1, '*' any, '+' 1 or more, N,
 * argparse.REMAINDER all that follow; actions that take none. */
static void arity(ArgSpec *s, AVal *nargs)
{
    s->min = s->max = 1;
    if (s->action && (strncmp(s->action, "store_", 6) == 0 || eq(s->action, "count") ||
                      eq(s->action, "append_const") || eq(s->action, "help") || eq(s->action, "version"))) {
        s->min = s->max = 0;
        return;
    }
    if (s->negatable) {
        s->min = s->max = 0;
        return;
    }
    if (!nargs)
        return;
    if (nargs->k == AV_INT && nargs->i >= 0 && nargs->i < 1000) {
        s->min = s->max = (int)nargs->i;
    } else if (nargs->k == AV_STR) {
        s->min = eq(nargs->s, "+") ? 1 : eq(nargs->s, "?") || eq(nargs->s, "*") || eq(nargs->s, "...") ? 0 : 1;
        s->max = eq(nargs->s, "?") ? 1 : eq(nargs->s, "*") || eq(nargs->s, "+") || eq(nargs->s, "...") ? -1 : 1;
    } else if (nargs->k == AV_QUAL && ends(nargs->s, "REMAINDER")) {
        s->min = 0;   /* read as '*': what follows up to the next option */
        s->max = -1;
    }
}

static bool read_spec(Interp *in, Args *a, ArgSpec *s)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; i < 4 && arg(a, i, NULL) && arg(a, i, NULL)->k == AV_STR; i++)
        s->names[s->nnames++] = arg(a, i, NULL)->s;
    if (!s->nnames || !*s->names[0])
        return false;
    s->positional = s->names[0][0] != '-';
    AVal *action = arg(a, -1, "action");
    s->action = action && action->k == AV_STR ? action->s : NULL;
    s->negatable = action && action->k == AV_QUAL && ends(action->s, "BooleanOptionalAction");
    s->config_file = action && action->k == AV_QUAL && ends(action->s, "ActionConfigFile");
    s->dflt = arg(a, -1, "default");
    s->type = arg(a, -1, "type");
    s->cnst = arg(a, -1, "const");
    arity(s, arg(a, -1, "nargs"));
    s->required = s->positional ? s->min > 0 : bool_or(a, -1, "required", false);
    if (!s->dflt && s->action && (eq(s->action, "store_true") || eq(s->action, "store_false")))
        s->dflt = av_bool(in, eq(s->action, "store_false"));
    s->dest = dest_of(in, s, a);
    return true;
}

/* A call's arguments as a dict, "" for a positional one's key; the last
 * item, "__line__", is where the call is. */
static AVal *args_value(Interp *in, const Args *a)
{
    AVal *d = av_new(in, AV_DICT);
    d->items = arena_alloc(in->a, (a->n + 1) * sizeof *d->items);
    d->keys = arena_alloc(in->a, (a->n + 1) * sizeof *d->keys);
    for (uint32_t i = 0; i < a->n; i++) {
        d->keys[i] = a->kw[i] ? a->kw[i] : "";
        d->items[i] = a->v[i];
    }
    d->keys[a->n] = "__line__";
    d->items[a->n] = av_str(in, current_line(in));
    d->n = a->n + 1;
    return d;
}

static const char *args_of(const AVal *d, Args *a)
{
    a->n = d->n - 1 < ARGS_MAX ? d->n - 1 : ARGS_MAX;
    for (uint32_t i = 0; i < a->n; i++) {
        a->kw[i] = *d->keys[i] ? d->keys[i] : NULL;
        a->v[i] = d->items[i];
    }
    return d->items[d->n - 1]->s;
}

/* add_argument(...): its arguments are kept, keyed by its first option
 * string (a second reading of the same call replaces the first; --x and
 * --no-x may share a dest), and read when the parser parses. */
static void add_argument(Interp *in, void *ctx, Args *a)
{
    ArgSpec s;
    if (read_spec(in, a, &s))
        obj_set(in, parser_part(in, ctx, "__specs__")->obj, s.names[0], args_value(in, a));
}

static void set_defaults(Interp *in, void *ctx, Args *a)
{
    Obj *d = parser_part(in, ctx, "__defaults__")->obj;
    for (uint32_t i = 0; i < a->n; i++)
        if (a->kw[i])
            obj_set(in, d, a->kw[i], a->v[i]);
}

/* parser.add_subparsers(dest=, required=): one per parser, made once. */
static AVal *subparsers(Interp *in, Obj *parser, Args *a)
{
    AVal *sub = obj_get(parser, "__sub__");
    if (!sub) {
        sub = av_obj(in, NN_OPAQUE);
        sub->obj->a = OPAQUE_SUBPARSERS;
        obj_set(in, parser, "__sub__", sub);
    }
    AVal *dest = a ? arg(a, -1, "dest") : NULL;
    if (dest && dest->k == AV_STR)
        obj_set(in, sub->obj, "__dest__", dest);
    return sub;
}

static void scan_subparsers(Interp *in, void *ctx, Args *a) { subparsers(in, ctx, a); }

AVal *new_argparser(Interp *in, Args *a)
{
    AVal *p = av_obj(in, NN_OPAQUE);
    p->obj->a = OPAQUE_ARGPARSER;
    AVal *parents = a ? arg(a, -1, "parents") : NULL;
    if (parents && parents->k == AV_SEQ)
        obj_set(in, p->obj, "__parents__", parents);
    return p;
}

/* sub.add_parser("train", aliases=[...]): one parser per name, so that
 * every reading of the call finds the same one. */
static AVal *add_parser(Interp *in, Obj *sub, Args *a)
{
    AVal *name = arg(a, 0, "name");
    if (!name || name->k != AV_STR || strncmp(name->s, "__", 2) == 0)
        return av_unknown(in);
    AVal *p = obj_get(sub, name->s);
    if (p)
        return p;
    p = new_argparser(in, a);
    obj_set(in, sub, name->s, p);
    AVal *aliases = arg(a, -1, "aliases");
    for (uint32_t i = 0; aliases && aliases->k == AV_SEQ && i < aliases->n; i++)
        if (aliases->items[i]->k == AV_STR)
            obj_set(in, sub, aliases->items[i]->s, p);
    return p;
}

static void scan_add_parser(Interp *in, void *ctx, Args *a) { add_parser(in, ctx, a); }

/* The calls on a parser anywhere in the module, read once: the parser is
 * usually built at the top level, which runs only on demand. */
static void scan_parser(Interp *in, Obj *parser)
{
    if (obj_get(parser, "__scanned__"))
        return;
    obj_set(in, parser, "__scanned__", av_bool(in, true));
    for_each_call_on(in, "add_argument", parser, add_argument, parser);
    for_each_call_on(in, "add", parser, add_argument, parser);   /* configargparse's alias */
    for_each_call_on(in, "set_defaults", parser, set_defaults, parser);
    for_each_call_on(in, "add_subparsers", parser, scan_subparsers, parser);
    AVal *sub = obj_get(parser, "__sub__");
    if (sub)
        for_each_call_on(in, "add_parser", sub->obj, scan_add_parser, sub->obj);
}

/* The parser's arguments, its parents' first (argparse copies them when
 * the parser is made); *n gets the count. */
static ArgSpec *collect_specs(Interp *in, Obj *parser, uint32_t *n, int depth)
{
    ARENA_VEC(ArgSpec) out = {0};
    AVal *parents = obj_get(parser, "__parents__");
    for (uint32_t i = 0; parents && depth < 4 && i < parents->n; i++) {
        AVal *p = parents->items[i];
        if (p->k != AV_OBJECT || p->obj->a != OPAQUE_ARGPARSER)
            continue;
        scan_parser(in, p->obj);
        uint32_t k;
        ArgSpec *ps = collect_specs(in, p->obj, &k, depth + 1);
        for (uint32_t j = 0; j < k; j++)
            VEC_PUSH(in->a, out, ps[j]);
    }
    AVal *specs = obj_get(parser, "__specs__");
    for (uint32_t i = 0; specs && i < specs->obj->nattr; i++) {
        ArgSpec s;
        Args a;
        const char *line = args_of(specs->obj->vals[i], &a);
        if (read_spec(in, &a, &s)) {
            s.line = line;
            VEC_PUSH(in->a, out, s);
        }
    }
    *n = out.n;
    return out.v;
}

/* ---- argparse: reading the words ---------------------------------------------------------- */

typedef struct Parse {
    Interp *in;
    ArgSpec *specs;
    uint32_t n;
    AVal **given;            /* per spec: what the words give, NULL if nothing */
    const char *given_text;  /* scratch: the words read for the last one */
    const char *prefix;      /* the sub-command words that lead to this parser */
    const char *source;      /* where the words come from: "the command line", the script's list */
    AVal *extras;            /* words no argument takes */
} Parse;

static bool is_number(const char *w)
{
    char *end;
    strtod(w, &end);
    return *w && !*end;
}

static bool is_option(const char *w) { return w[0] == '-' && w[1] && !is_number(w); }

/* Whether w[0..len) begins spelling, - and _ alike. */
static bool starts_option(const char *spelling, const char *w, size_t len)
{
    if (strlen(spelling) < len)
        return false;
    for (size_t i = 0; i < len; i++)
        if (spelling[i] != w[i] && !((spelling[i] == '-' || spelling[i] == '_') && (w[i] == '-' || w[i] == '_')))
            return false;
    return true;
}

static bool same_option(const char *spelling, const char *w, size_t len)
{
    return strlen(spelling) == len && starts_option(spelling, w, len);
}

/* The argument word w (up to len) spells: exactly (- and _ alike after the
 * leading dashes, as pfc has always read them), --no-X for a negatable one,
 * else a unique prefix of a long option (argparse's allow_abbrev); -1 if
 * none. *negated: it was the --no- form. */
static int find_option(const Parse *P, const char *w, size_t len, bool *negated)
{
    int prefix = -1, nprefix = 0;
    *negated = false;
    for (uint32_t i = 0; i < P->n; i++) {
        const ArgSpec *s = &P->specs[i];
        for (uint32_t k = 0; !s->positional && k < s->nnames; k++) {
            const char *o = s->names[k];
            if (same_option(o, w, len))
                return (int)i;
            if (s->negatable && strncmp(o, "--", 2) == 0 && len > 5 && strncmp(w, "--no-", 5) == 0 &&
                same_option(o + 2, w + 5, len - 5)) {
                *negated = true;
                return (int)i;
            }
            if (strncmp(w, "--", 2) == 0 && len > 2 && strncmp(o, "--", 2) == 0 && starts_option(o, w, len) &&
                prefix != (int)i) {
                prefix = (int)i;
                nprefix++;
            }
        }
    }
    return nprefix == 1 ? prefix : -1;
}

/* Text as the argument's type= makes it: int, float, str, a function of the
 * script; a type pfc cannot apply reads the text as a literal, said so. */
static AVal *convert(Interp *in, const ArgSpec *s, const char *text)
{
    if (!s->type)
        return *text ? literal_value(in, text) : av_str(in, text);
    Args one = {{av_str(in, text)}, {NULL}, 1};
    AVal *v = call_value(in, s->type, &one);
    if (v->k != AV_UNKNOWN)
        return v;
    interp_note(in, 0, arena_printf(in->a, "the type= of %s could not be applied: '%s' read as a literal",
                                    s->names[0], text));
    return literal_value(in, text);
}

static AVal *append(Interp *in, AVal *list, AVal *v)
{
    uint32_t n = list && list->k == AV_SEQ ? list->n : 0;
    AVal *s = av_seq(in, n + 1);
    for (uint32_t i = 0; i < n; i++)
        s->items[i] = list->items[i];
    s->items[n] = v;
    return s;
}

/* What the words words[0..n) give argument s (an option's values or a
 * positional's), as its action and nargs make them; joined text in
 * P->given_text for the note. */
static AVal *take(Parse *P, uint32_t spec, const char *const *words, uint32_t n, bool negated)
{
    Interp *in = P->in;
    const ArgSpec *s = &P->specs[spec];
    AVal *prev = P->given[spec];
    const char *text = n ? words[0] : "";
    for (uint32_t i = 1; i < n; i++)
        text = arena_printf(in->a, "%s %s", text, words[i]);
    P->given_text = *text ? text : negated ? "False" : "True";
    if (s->negatable)
        return av_bool(in, !negated);
    if (s->action && strncmp(s->action, "store_", 6) == 0)
        return eq(s->action, "store_const") ? (s->cnst ? s->cnst : av_none(in))
                                            : av_bool(in, eq(s->action, "store_true"));
    if (eq(s->action, "count"))
        return av_int(in, prev && prev->k == AV_INT ? prev->i + 1 : 1);
    if (eq(s->action, "append_const"))
        return append(in, prev, s->cnst ? s->cnst : av_none(in));
    AVal *v;
    if (s->max == 1 && s->min == 1) {
        v = n ? convert(in, s, words[0]) : NULL;   /* `--lr` without its value: argparse stops */
    } else if (s->max == 1) {   /* '?': the word, or const for the bare option */
        v = n ? convert(in, s, words[0]) : s->positional ? NULL : s->cnst ? s->cnst : av_none(in);
    } else {
        v = av_seq(in, n);
        for (uint32_t i = 0; i < n; i++)
            v->items[i] = convert(in, s, words[i]);
    }
    if (eq(s->action, "append") && v)
        return append(in, prev, v);
    return v;
}

static const char *usage_of(Parse *P, const ArgSpec *s);



/* jsonargparse's ActionConfigFile: the file's values for the parser's
 * dests, given where the option stands (later words win over them). */
static void give_config_file(Parse *P, const char *path)
{
    AVal *file = config_file(P->in, av_str(P->in, path));
    for (uint32_t i = 0; i < P->n; i++) {
        AVal *v = dict_value(file, P->specs[i].dest);
        if (v && !P->specs[i].config_file) {
            P->given[i] = config_value(P->in, v, NULL, usage_of(P, &P->specs[i]));
            note_setting(P->in, P->specs[i].dest, v, arena_printf(P->in->a, "config file %s", path), 0);
        }
    }
}

static void give(Parse *P, uint32_t spec, const char *const *words, uint32_t n, bool negated)
{
    if (P->specs[spec].config_file) {
        if (n)
            give_config_file(P, words[0]);
        return;
    }
    AVal *v = take(P, spec, words, n, negated);
    if (!v)
        return;
    P->given[spec] = config_value(P->in, v, P->source, usage_of(P, &P->specs[spec]));
    note_value(P->in, P->specs[spec].dest, P->given_text, P->source);
}

/* An option at words[i] ("--lr 3", "--lr=3", "-b8", "--no-x"): gives its
 * argument the words it takes; returns the next word's index. */
static uint32_t option(Parse *P, const char *const *words, uint32_t n, uint32_t i)
{
    const char *w = words[i], *eqs = strchr(w, '=');
    size_t len = eqs ? (size_t)(eqs - w) : strlen(w);
    bool negated;
    int s = find_option(P, w, len, &negated);
    const char *attached = eqs ? eqs + 1 : NULL;
    if (s < 0 && w[1] != '-' && strlen(w) > 2) {   /* -b8: a short option and its value */
        s = find_option(P, w, 2, &negated);
        attached = w + 2;
    }
    if (s < 0) {
        P->extras = append(P->in, P->extras, av_str(P->in, w));
        return i + 1;
    }
    const ArgSpec *spec = &P->specs[s];
    if (attached && spec->max != 0) {
        give(P, (uint32_t)s, &attached, 1, negated);
        return i + 1;
    }
    if (attached && !eqs) {   /* -vv, -xq: flags run together */
        give(P, (uint32_t)s, NULL, 0, false);
        char flag[3] = {'-', 0, 0};
        for (const char *c = attached; *c; c++) {
            flag[1] = *c;
            int k = find_option(P, flag, 2, &negated);
            if (k >= 0 && P->specs[k].max == 0)
                give(P, (uint32_t)k, NULL, 0, false);
        }
        return i + 1;
    }
    uint32_t k = i + 1;
    while (k < n && (spec->max < 0 || (int)(k - i - 1) < spec->max) && !is_option(words[k]))
        k++;
    give(P, (uint32_t)s, words + i + 1, k - i - 1, negated);
    return k;
}

/* The positional words, to the positional arguments in order: each takes
 * as many as it can while leaving the later ones their minimum, which is
 * what argparse's pattern match gives for these nargs. */
static void positionals(Parse *P, const char *const *words, uint32_t n)
{
    uint32_t at = 0;
    for (uint32_t i = 0; i < P->n; i++) {
        const ArgSpec *s = &P->specs[i];
        if (!s->positional)
            continue;
        uint32_t later = 0;
        for (uint32_t k = i + 1; k < P->n; k++)
            later += P->specs[k].positional ? (uint32_t)P->specs[k].min : 0;
        uint32_t left = n - at, room = left > later ? left - later : 0;
        uint32_t want = s->max < 0 ? room : (uint32_t)s->max < room ? (uint32_t)s->max : room;
        if (want < (uint32_t)s->min)
            break;   /* too few words: this one and the rest are missing */
        if (want)
            give(P, i, words + at, want, false);
        at += want;
    }
    for (; at < n; at++)
        P->extras = append(P->in, P->extras, av_str(P->in, words[at]));
}

/* The sub-command among the words: the first positional word after the
 * parser's own positionals that names one of its sub-parsers; n if none. */
static uint32_t find_command(Parse *P, Obj *sub, const char *const *words, uint32_t n)
{
    uint32_t own = 0, seen = 0;
    for (uint32_t i = 0; i < P->n; i++)
        own += P->specs[i].positional ? (uint32_t)P->specs[i].min : 0;
    for (uint32_t i = 0; sub && i < n; i++) {
        if (eq(words[i], "--"))
            return n;
        if (is_option(words[i])) {
            bool negated;
            const char *eqs = strchr(words[i], '=');
            int s = find_option(P, words[i], eqs ? (size_t)(eqs - words[i]) : strlen(words[i]), &negated);
            if (s >= 0 && !eqs && P->specs[s].max > 0)
                i += (uint32_t)P->specs[s].max;   /* its value is not the command */
            continue;
        }
        AVal *p = obj_get(sub, words[i]);
        if (seen++ >= own && p && strncmp(words[i], "__", 2) != 0)
            return i;
    }
    return n;
}

static void read_words(Parse *P, const char *const *words, uint32_t n)
{
    const char **pos = arena_alloc(P->in->a, (n + 1) * sizeof *pos);
    uint32_t npos = 0;
    bool only_positional = false;
    for (uint32_t i = 0; i < n;) {
        if (!only_positional && eq(words[i], "--")) {
            only_positional = true;
            i++;
        } else if (!only_positional && is_option(words[i])) {
            i = option(P, words, n, i);
        } else {
            pos[npos++] = words[i++];
        }
    }
    positionals(P, pos, npos);
}

/* ---- argparse: the namespace ---------------------------------------------------------------- */

/* How a refusal tells the user to give argument s: the words after `--`. */
static const char *usage_of(Parse *P, const ArgSpec *s)
{
    Interp *in = P->in;
    if (!s->positional)
        return arena_printf(in->a, "%s%s NAME", P->prefix, s->names[0]);
    const char *words = P->prefix;
    for (uint32_t i = 0; i < P->n; i++) {
        if (!P->specs[i].positional)
            continue;
        char *upper = arena_printf(in->a, "%s", P->specs[i].dest);
        for (char *c = upper; *c; c++)
            *c = *c == '-' ? '_' : (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
        bool spaced = !*words || words[strlen(words) - 1] == ' ';
        words = arena_printf(in->a, "%s%s%s", words, spaced ? "" : " ", upper);
        if (&P->specs[i] == s)
            break;
    }
    return words;
}

/* An argument the words do not give: set_defaults() first, then default=
 * (a string one through type=, as argparse converts it); a required one
 * is an unknown that names itself. */
static AVal *default_of(Parse *P, Obj *parser, const ArgSpec *s)
{
    Interp *in = P->in;
    AVal *defaults = obj_get(parser, "__defaults__");
    AVal *d = defaults ? obj_get(defaults->obj, s->dest) : NULL;
    if (!d)
        d = s->dflt;
    if (d && d->k == AV_STR && s->type) {
        AVal *c = convert(in, s, d->s);
        if (c->k != AV_STR)
            return c;
    }
    if (d && d->k == AV_STR)
        return config_value(in, d, arena_printf(in->a, "argparse default, %s", s->line),
                            usage_of(P, s));
    if (d)
        return d;
    if (!s->required)
        return av_none(in);
    const char *whose = *P->prefix ? arena_printf(in->a, "the sub-command %.*s's", (int)strlen(P->prefix) - 1,
                                                  P->prefix)
                                   : "the";
    return config_value(in, av_unknown(in),
                        s->positional ? arena_printf(in->a, "%s positional argument %s, which %s does not give",
                                                     whose, s->dest, P->source)
                                      : arena_printf(in->a, "%s required option %s, which has no default", whose,
                                                     s->names[0]),
                        usage_of(P, s));
}

/* The sub-command the words name, else the one assumed (said so): one
 * whose name says it trains, else the first. */
static const char *choose_command(Interp *in, Obj *sub, const char *named)
{
    if (named)
        return named;
    const char *first = NULL, *train = NULL, *all = "";
    for (uint32_t i = 0; i < sub->nattr; i++) {
        const char *c = sub->names[i];
        bool alias = false;
        for (uint32_t k = 0; k < i; k++)
            alias |= sub->vals[k]->k == AV_OBJECT && sub->vals[k]->obj == sub->vals[i]->obj;
        if (strncmp(c, "__", 2) == 0 || sub->vals[i]->k != AV_OBJECT || alias)
            continue;
        first = first ? first : c;
        if (!train && (eq(c, "train") || eq(c, "fit") || eq(c, "finetune") || eq(c, "pretrain")))
            train = c;
        all = arena_printf(in->a, "%s%s%s", all, *all ? ", " : "", c);
    }
    const char *c = train ? train : first;
    if (c)
        interp_note(in, 0, arena_printf(in->a, "no sub-command after --: assumed '%s' (of %s; `pfc estimate "
                                               "%s -- NAME ...` chooses one)", c, all,
                                        in->script_path ? in->script_path : "SCRIPT"));
    return c;
}

static void parse_into(Interp *in, Obj *parser, Words w, const char *prefix, Obj *ns, AVal **extras, int depth);

/* Whether argument i's dest is already set: the words gave it (to i or to
 * another argument of the same dest), or an earlier argument's default
 * did (argparse keeps the first default of a shared dest). */
static bool dest_taken(const Parse *P, uint32_t i)
{
    for (uint32_t k = 0; k < P->n; k++)
        if (eq(P->specs[k].dest, P->specs[i].dest) && (P->given[k] || (k < i)))
            return true;
    return false;
}

/* The chosen sub-command's parser reads the words after its name. */
static void parse_command(Interp *in, Parse *P, Obj *sub, Words w, uint32_t at, Obj *ns, int depth)
{
    const char *name = choose_command(in, sub, at < w.n ? w.v[at] : NULL);
    if (!name || depth >= 4)
        return;
    AVal *dest = obj_get(sub, "__dest__");
    if (dest && dest->k == AV_STR)
        obj_set(in, ns, dest->s, av_str(in, name));
    uint32_t from = at < w.n ? at + 1 : w.n;
    Words rest = {w.v + from, w.n - from, w.source};
    parse_into(in, obj_get(sub, name)->obj, rest, arena_printf(in->a, "%s%s ", P->prefix, name), ns, &P->extras,
               depth + 1);
}

static void parse_into(Interp *in, Obj *parser, Words w, const char *prefix, Obj *ns, AVal **extras, int depth)
{
    scan_parser(in, parser);
    Parse P = {in, NULL, 0, NULL, NULL, prefix, w.source, *extras};
    const char *const *words = w.v;
    uint32_t n = w.n;
    P.specs = collect_specs(in, parser, &P.n, 0);
    P.given = arena_zalloc(in->a, (P.n + 1) * sizeof *P.given);
    AVal *sub = obj_get(parser, "__sub__");
    uint32_t at = find_command(&P, sub ? sub->obj : NULL, words, n);
    read_words(&P, words, at);
    for (uint32_t i = 0; i < P.n; i++)
        if (P.given[i])
            obj_set(in, ns, P.specs[i].dest, P.given[i]);
    for (uint32_t i = 0; i < P.n; i++)
        if (!dest_taken(&P, i))
            obj_set(in, ns, P.specs[i].dest, default_of(&P, parser, &P.specs[i]));
    AVal *defaults = obj_get(parser, "__defaults__");   /* set_defaults(func=train) */
    for (uint32_t i = 0; defaults && i < defaults->obj->nattr; i++)
        if (!obj_get(ns, defaults->obj->names[i]))
            obj_set(in, ns, defaults->obj->names[i], defaults->obj->vals[i]);
    if (sub)
        parse_command(in, &P, sub->obj, w, at, ns, depth);
    *extras = P.extras;
}

/* parse_args(args=None): the words after `--`, or the list the script
 * passes (parse_args([]) in a notebook). */
static AVal *parse_args(Interp *in, Obj *parser, Args *a, AVal **extras)
{
    AVal *list = arg(a, 0, "args");
    Words w = {in->script_args, in->nscript_args, "the command line"};
    bool own = list && list->k == AV_SEQ;
    for (uint32_t i = 0; own && i < list->n; i++)
        own = list->items[i]->k == AV_STR;
    if (own) {
        const char **v = arena_alloc(in->a, (list->n + 1) * sizeof *v);
        for (uint32_t i = 0; i < list->n; i++)
            v[i] = list->items[i]->s;
        w = (Words){v, list->n, arena_printf(in->a, "the list the script parses, %s", current_line(in))};
        interp_note(in, 0, arena_printf(in->a, "command-line arguments: %s", w.source));
    } else {
        interp_note(in, 0, in->nscript_args ? "command-line arguments: argparse's defaults and the "
                                              "arguments after --"
                                            : "command-line arguments: argparse's defaults");
    }
    AVal *ns = av_obj(in, NN_OPAQUE);
    *extras = av_seq(in, 0);
    parse_into(in, parser, w, "", ns->obj, extras, 0);
    return ns;
}

AVal *argparse_method(Interp *in, Obj *parser, const char *name, Args *a)
{
    if (parser->a == OPAQUE_SUBPARSERS)
        return eq(name, "add_parser") ? add_parser(in, parser, a) : av_unknown(in);
    if (eq(name, "add_argument") || eq(name, "add")) {
        add_argument(in, parser, a);
        return av_none(in);
    }
    if (eq(name, "set_defaults")) {
        set_defaults(in, parser, a);
        return av_none(in);
    }
    if (eq(name, "add_subparsers"))
        return subparsers(in, parser, a);
    if (eq(name, "add_argument_group") || eq(name, "add_mutually_exclusive_group")) {
        AVal *group = av_new(in, AV_OBJECT);   /* a group's arguments are the parser's */
        group->obj = parser;
        return group;
    }
    AVal *extras;
    if (eq(name, "parse_args"))
        return parse_args(in, parser, a, &extras);
    if (eq(name, "parse_known_args")) {
        AVal *pair = av_seq(in, 2);
        pair->items[0] = parse_args(in, parser, a, &extras);
        pair->items[1] = extras;
        return pair;
    }
    return av_unknown(in);
}

/* ---- jsonargparse: settings from the words and config files ------------------------------- */


AVal *dict_value(AVal *d, const char *key)
{
    for (uint32_t i = 0; d && d->k == AV_DICT && i < d->n; i++)
        if (eq(d->keys[i], key))
            return d->items[i];
    return NULL;
}

static AVal *new_dict(Interp *in) { return av_new(in, AV_DICT); }

/* dst gets src's settings, nested dicts merged key by key (a copy, so
 * that the file's own dicts stay as read). */
static void merge(Interp *in, AVal *dst, AVal *src, int depth)
{
    for (uint32_t i = 0; src && src->k == AV_DICT && i < src->n; i++) {
        AVal *here = dict_value(dst, src->keys[i]), *v = src->items[i];
        if (v->k == AV_DICT && depth < 8) {
            AVal *sub = here && here->k == AV_DICT ? here : new_dict(in);
            merge(in, sub, v, depth + 1);
            v = sub;
        }
        dict_set(in, dst, src->keys[i], v, NULL);
    }
}

/* `--model.init_args.hidden 64`: the dots are nesting. */
static void put_path(Interp *in, AVal *root, const char *path, AVal *v)
{
    const char *dot;
    while ((dot = strchr(path, '.')) && dot > path) {
        const char *key = arena_strndup(in->a, path, (size_t)(dot - path));
        AVal *sub = dict_value(root, key);
        if (!sub || sub->k != AV_DICT) {
            sub = new_dict(in);
            dict_set(in, root, key, sub, NULL);
        }
        root = sub;
        path = dot + 1;
    }
    dict_set(in, root, path, v, NULL);
}

static bool is_config_option(const char *w) { return eq(w, "--config") || eq(w, "-c"); }

/* jsonargparse reads the words in order: `--config FILE` (or -c) merges
 * the file's settings where it stands, `--a.b value` / `--a.b=value` sets
 * one (a bare flag is True), later ones winning; the other words are the
 * positional ones, in *pos. */
static AVal *read_settings(Interp *in, Words w, Words *pos)
{
    AVal *root = new_dict(in);
    const char **rest = arena_alloc(in->a, (w.n + 1) * sizeof *rest);
    pos->n = 0;
    for (uint32_t i = 0; i < w.n && !interp_error(in); i++) {
        const char *word = w.v[i], *eqs = strchr(word, '=');
        if (!is_option(word)) {
            rest[pos->n++] = word;
            continue;
        }
        const char *key = eqs ? arena_strndup(in->a, word, (size_t)(eqs - word)) : word;
        const char *text = eqs ? eqs + 1 : i + 1 < w.n && !is_option(w.v[i + 1]) ? w.v[++i] : "";
        if (is_config_option(key)) {
            AVal *file = config_file(in, av_str(in, text));
            note_file(in, file, text);
            merge(in, root, file, 0);
            continue;
        }
        char *name = arena_printf(in->a, "%s", key + (key[1] == '-' ? 2 : 1));
        for (char *c = name; *c; c++)   /* fire reads --batch-size as batch_size */
            *c = *c == '-' ? '_' : *c;
        key = name;
        AVal *v = *text ? literal_value(in, text) : eqs ? av_str(in, "") : av_bool(in, true);
        note_value(in, key, *text ? text : eqs ? "" : "True", w.source);
        put_path(in, root, key, config_value(in, v, w.source, arena_printf(in->a, "--%s NAME", key)));
    }
    pos->v = rest;
    pos->source = w.source;
    return root;
}

/* The words for one of several commands: those after its name (the first
 * positional word); with none named, all of them, and this one assumed. */
static Words command_words(Interp *in, const EntryPoint *e)
{
    Words w = {in->script_args, in->nscript_args, "the command line"};
    if (!e->command)
        return w;
    for (uint32_t i = 0; i < w.n; i++) {
        if (is_config_option(w.v[i]))
            i++;
        else if (!is_option(w.v[i]))
            return eq(w.v[i], e->command) ? (Words){w.v + i + 1, w.n - i - 1, w.source} : (Words){NULL, 0, w.source};
    }
    interp_note(in, 0, arena_printf(in->a, "no command after --: assumed '%s' (`pfc estimate %s -- %s ...`)",
                                    e->command, in->script_path ? in->script_path : "SCRIPT", e->command));
    return w;
}

/* The positional word for parameter k: jsonargparse fills its required
 * parameters in order, fire every parameter the words do not name. */
static AVal *positional_word(Interp *in, const EntryPoint *e, uint32_t k, AVal *settings, Words pos)
{
    if (e->kind == ENTRY_JSONARGPARSE && e->has_default[k])
        return NULL;
    uint32_t at = 0;
    for (uint32_t i = 0; i < k; i++)
        at += e->kind == ENTRY_JSONARGPARSE ? !e->has_default[i] : !dict_value(settings, e->params[i]);
    if (at >= pos.n)
        return NULL;
    note_value(in, e->params[k], pos.v[at], pos.source);
    return literal_value(in, pos.v[at]);
}

static const char *entry_usage(Interp *in, const EntryPoint *e, uint32_t k)
{
    const char *cmd = e->command ? arena_printf(in->a, "%s ", e->command) : "";
    if (e->has_default[k] || e->kind == ENTRY_PLAIN)
        return arena_printf(in->a, "%s--%s NAME", cmd, e->params[k]);
    const char *words = cmd;
    for (uint32_t i = 0; i <= k; i++)
        if (!e->has_default[i] || e->kind == ENTRY_FIRE) {
            char *upper = arena_printf(in->a, "%s", e->params[i]);
            for (char *c = upper; *c; c++)
                *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
            words = arena_printf(in->a, "%s%s%s", words, *words && words[strlen(words) - 1] != ' ' ? " " : "", upper);
        }
    return words;
}

AVal *entry_argument(Interp *in, const EntryPoint *e, uint32_t k, const char **cli)
{
    *cli = entry_usage(in, e, k);
    if (e->kind == ENTRY_PLAIN)
        return script_value(in, e->params[k]);
    Words pos;
    AVal *settings = read_settings(in, command_words(in, e), &pos);
    AVal *v = dict_value(settings, e->params[k]);
    if (!v)
        v = positional_word(in, e, k, settings, pos);
    if (v)
        return config_value(in, v, NULL, *cli);
    if (e->has_default[k])
        return NULL;
    return config_value(in, av_unknown(in),
                        arena_printf(in->a, "%s()'s parameter %s, which has no default and the command line "
                                            "does not give", e->function, e->params[k]),
                        *cli);
}

/* ---- LightningCLI's words ------------------------------------------------------------------ */

static bool is_lightning_command(const char *w)
{
    return eq(w, "fit") || eq(w, "validate") || eq(w, "test") || eq(w, "predict");
}

AVal *lightning_settings(Interp *in, Words w, bool run, const char **command)
{
    Words pos;
    *command = NULL;
    if (!run)
        return read_settings(in, w, &pos);
    uint32_t at = 0;   /* the command: the first word that is no option's value */
    while (at < w.n && is_option(w.v[at]))
        at += !strchr(w.v[at], '=') && at + 1 < w.n && !is_option(w.v[at + 1]) ? 2 : 1;
    if (at > w.n)
        at = w.n;
    AVal *global = read_settings(in, (Words){w.v, at, w.source}, &pos);
    *command = at < w.n ? w.v[at] : "fit";
    if (at == w.n)
        interp_note(in, 0, arena_printf(in->a, "no sub-command after --: assumed LightningCLI's 'fit' "
                                               "(`pfc estimate %s -- fit ...`)",
                                        in->script_path ? in->script_path : "SCRIPT"));
    else if (!is_lightning_command(*command))
        return global;   /* not one of LightningCLI's: the caller refuses it */
    AVal *settings = new_dict(in);
    for (uint32_t i = 0; i < global->n; i++)   /* options before the command, read as if after it */
        if (!is_lightning_command(global->keys[i]))
            dict_set(in, settings, global->keys[i], global->items[i], NULL);
    merge(in, settings, dict_value(global, *command), 0);   /* `--config all.yaml fit`: its fit: section */
    uint32_t from = at < w.n ? at + 1 : w.n;
    merge(in, settings, read_settings(in, (Words){w.v + from, w.n - from, w.source}, &pos), 0);
    return settings;
}

AVal *init_args_of(Interp *in, AVal *section)
{
    AVal *init = dict_value(section, "init_args");
    if (!init)
        return section;
    AVal *d = new_dict(in);
    for (uint32_t i = 0; section && section->k == AV_DICT && i < section->n; i++)
        if (!eq(section->keys[i], "init_args") && !eq(section->keys[i], "class_path"))
            dict_set(in, d, section->keys[i], section->items[i], NULL);
    merge(in, d, init, 0);
    return d;
}

AVal *settings_merged(Interp *in, AVal *a, AVal *b)
{
    AVal *d = new_dict(in);
    merge(in, d, a, 0);
    merge(in, d, b, 0);
    return d;
}
