/* TG004 starved-dataloader: a DataLoader feeding a GPU training loop loads and
 * collates every batch on the main thread (num_workers=0). */
#include "analysis.h"
#include "fixes.h"
#include "../ir/project.h"
#include <string.h>

/* The keyword argument `name` of a call, or 0. */
static ValueId kwarg(const IrValue *v, uint32_t name)
{
    for (uint32_t i = 1; v->op == IR_CALL && i < v->nargs; i++)
        if (ir_kwname(v, i) == name)
            return v->args[i];
    return 0;
}

/* Is the constant a string literal with exactly this text? */
static bool string_is(const Syntax *S, const IrFunction *f, ValueId v, const char *text)
{
    const IrValue *x = &f->values.v[v];
    if (x->op != IR_CONST || !x->node)
        return false;
    const Token *t = &S->toks.v[S->nodes[x->node].first_tok];
    size_t n = strlen(text);
    const char *p = S->src + t->start;
    return t->kind == T_STRING && t->len == n + 2 && (p[0] == '"' || p[0] == '\'') &&
           memcmp(p + 1, text, n) == 0;
}

enum { SPLAT_SILENT = -1 };

/* The num_workers a `{...}` literal or `dict(...)` call sets (0 if it sets
 * none), or SPLAT_SILENT when pfc cannot read the whole mapping. */
static int64_t workers_in_mapping(RuleCtx *c, const IrFunction *f, ValueId m)
{
    const IrValue *x = &f->values.v[m];
    const Syntax *S = c->S;
    if (x->op == IR_BUILD && x->node && S->nodes[x->node].kind == N_DICT) {
        for (uint32_t i = 0; i < x->nargs; i++) {
            const IrValue *item = &f->values.v[x->args[i]];
            if (item->op != IR_BUILD || item->nargs != 2 || !item->node ||
                S->nodes[item->node].kind != N_DICT_ITEM)
                return SPLAT_SILENT;   /* {**other}: not readable */
            if (string_is(S, f, item->args[0], "num_workers"))
                return item->args[1];
            if (f->values.v[item->args[0]].op != IR_CONST)
                return SPLAT_SILENT;   /* a computed key may be num_workers */
        }
        return 0;
    }
    if (x->op == IR_CALL && x->nargs &&
        an_qual_is(c->an, f->values.v[x->args[0]].qual, "builtins.dict")) {
        for (uint32_t i = 1; i < x->nargs; i++)
            if (!ir_kwname(x, i))
                return SPLAT_SILENT;   /* dict(other) or dict(**other) */
        ValueId w = kwarg(x, c->an->n_num_workers);
        return w;
    }
    return SPLAT_SILENT;
}

/* num_workers as the call sets it: the keyword, the sixth positional
 * argument, or an entry of a `**mapping` that pfc can read. 0 when the call
 * leaves the default; SPLAT_SILENT when `*args` or an unreadable `**kwargs`
 * may set it. */
static int64_t workers_argument(RuleCtx *c, const IrFunction *f, const IrValue *v)
{
    ValueId w = kwarg(v, c->an->n_num_workers);
    if (w)
        return w;
    const Node *args = node_kid(c->S, &c->S->nodes[v->node], 1);
    if (!args || args->kind != N_ARGUMENTS)
        return 0;
    uint32_t i = 1, positional = 0;
    int64_t found = 0;
    FOR_EACH_KID(args, a) {
        NodeKind k = c->S->nodes[a].kind;
        if (i >= v->nargs)
            break;
        if (k == N_STARRED)
            return SPLAT_SILENT;
        if (k == N_DOUBLE_STARRED) {
            int64_t m = workers_in_mapping(c, f, v->args[i]);
            if (m == SPLAT_SILENT)
                return SPLAT_SILENT;
            found = found ? found : m;
        } else if (k != N_KEYWORD && ++positional == 6) {
            found = v->args[i];   /* DataLoader(ds, bs, shuffle, sampler, batch_sampler, workers) */
        }
        i++;
    }
    return found;
}

/* Where a loop takes its next batch: `for batch in <it>` or
 * `batch = next(<it>)`; 0 if v is neither. */
static ValueId drawn_iterable(const Analysis *an, const IrFunction *f, const IrValue *v)
{
    if (v->op == IR_ITER_NEXT && v->nargs)
        return v->args[0];
    if (v->op == IR_CALL && v->nargs >= 2 &&
        an_qual_is(an, f->values.v[v->args[0]].qual, "builtins.next"))
        return v->args[1];
    return 0;
}

/* Is the loader with this origin iterated by a loop that reaches backward()? */
static bool feeds_training(const Analysis *an, uint32_t origin)
{
    const Ir *ir = an->ir;
    for (uint32_t fi = 0; fi < ir->funcs.n; fi++) {
        const IrFunction *f = &ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = &f->values.v[i];
            ValueId it = drawn_iterable(an, f, v);
            if (!it || !an_draws_from(an, f, it, origin))
                continue;
            /* the loop that draws from the loader (not an enclosing epoch loop,
             * which also runs the validation loader) */
            BlockId h = f->blocks.v[v->block].loop_header;
            if (h && (an_loop_effects(an, f, h) & EFF_BACKWARD))
                return true;
        }
    }
    return false;
}

/* DataLoader(TensorDataset(...), ...): the dataset is tensors in memory, so a
 * batch costs indexing and stacking only (RULES: a note at most). */
static bool in_memory_tensors(const Analysis *an, const IrFunction *f, const IrValue *loader)
{
    if (loader->nargs < 2 || (ir_kwname(loader, 1)))
        return false;
    const IrValue *ds = &f->values.v[ir_resolve(f, loader->args[1])];
    return ds->op == IR_CALL && ds->nargs &&
           (an_qual_is(an, f->values.v[ds->args[0]].qual, "torch.utils.data.TensorDataset") ||
            an_qual_is(an, f->values.v[ds->args[0]].qual, "torch.utils.data.dataset.TensorDataset"));
}

/* A dataset of tensors already on the GPU: DataLoader(TensorDataset(x.cuda(), ...)). */
static bool dataset_on_device(const IrFunction *f, const IrValue *loader)
{
    if (loader->nargs < 2 || (ir_kwname(loader, 1)))
        return false;
    const IrValue *ds = &f->values.v[ir_resolve(f, loader->args[1])];
    if (ds->op != IR_CALL)
        return (ds->roles & ROLE_CUDA) != 0;
    for (uint32_t i = 1; i < ds->nargs; i++)
        if (f->values.v[ds->args[i]].roles & ROLE_CUDA)
            return true;
    return false;
}

static bool is_false(const Syntax *S, const IrFunction *f, ValueId v)
{
    const IrValue *x = &f->values.v[v];
    return x->op == IR_CONST && x->node && S->toks.v[S->nodes[x->node].first_tok].kind == T_KW_FALSE;
}

/* The first top-level import statement (not `from __future__`), where an
 * `import os` can go. */
static uint32_t first_import_line(RuleCtx *c)
{
    const Node *root = &c->S->nodes[c->S->root];
    FOR_EACH_KID(root, stmt) {
        const Node *n = &c->S->nodes[stmt];
        if (n->kind != N_SIMPLE_LINE)
            continue;
        const Node *k = node_kid(c->S, n, 0);
        if (!k || (k->kind != N_IMPORT && k->kind != N_IMPORT_FROM))
            continue;
        const Node *mod = node_kid(c->S, k, 0);
        if (k->kind == N_IMPORT_FROM && mod && mod->kind == N_DOTTED_NAME &&
            node_end(c->S, mod) - node_start(c->S, mod) == 10 &&
            memcmp(c->S->src + node_start(c->S, mod), "__future__", 10) == 0)
            continue;
        return stmt;
    }
    return UINT32_MAX;
}

static bool imports_os(RuleCtx *c)
{
    const IrFunction *m = &c->ir->funcs.v[0];
    for (uint32_t i = 1; i < m->values.n; i++)
        if (m->values.v[i].op == IR_GLOBAL && an_qual_is(c->an, m->values.v[i].qual, "os") &&
            an_qual_is(c->an, m->values.v[i].name, "os"))
            return true;
    return false;
}

/* The expression the call passes for its argument value `arg` (a keyword's
 * value, or the positional argument itself), or UINT32_MAX. */
static uint32_t argument_node(RuleCtx *c, const IrValue *v, ValueId arg)
{
    const Node *args = node_kid(c->S, &c->S->nodes[v->node], 1);
    uint32_t i = 1;
    if (!args || args->kind != N_ARGUMENTS)
        return UINT32_MAX;
    FOR_EACH_KID(args, a) {
        if (i >= v->nargs)
            break;
        if (v->args[i++] != arg)
            continue;
        const Node *n = &c->S->nodes[a];
        return n->kind != N_KEYWORD ? a : node_nkids(c->S, n) == 2 ? node_kid_id(c->S, n, 1)
                                                                   : UINT32_MAX;
    }
    return UINT32_MAX;
}

/* num_workers=min(8, os.cpu_count()), pin_memory=True, persistent_workers=True
 * (unsafe: worker processes change how the dataset is used) */
static void workers_fix(RuleCtx *c, Finding *fd, const IrFunction *f, const IrValue *v,
                        ValueId workers, ValueId pin)
{
    const Node *call = &c->S->nodes[v->node];
    const Node *args = node_kid(c->S, call, 1);
    if (!args || args->kind != N_ARGUMENTS || !fix_allowed_in(c, f))
        return;
    FOR_EACH_KID(args, a)
        if (c->S->nodes[a].kind == N_DOUBLE_STARRED)
            return;   /* **kwargs may already set them */
    /* `num_workers=0`, or `num_workers=n` with n = 0 elsewhere: the value
     * written in the call is replaced, not the definition another loader
     * may share */
    uint32_t workers_at = workers ? argument_node(c, v, workers) : UINT32_MAX;
    if (workers && workers_at == UINT32_MAX)
        return;
    uint32_t import_at = UINT32_MAX;
    if (!imports_os(c) && (import_at = first_import_line(c)) == UINT32_MAX)
        return;
    Fix *fx = fix_new(c, FIX_UNSAFE, "load batches in worker processes");
    if (import_at != UINT32_MAX) {
        uint32_t at = fix_line_start(c->S, node_start(c->S, &c->S->nodes[import_at]));
        fix_edit(c, fx, at, at, arena_printf(c->A, "import os%s", fix_newline(c->S)));
    }
    if (workers) {
        const Node *wn = &c->S->nodes[workers_at];
        fix_edit(c, fx, node_start(c->S, wn), node_end(c->S, wn), "min(8, os.cpu_count())");
    }
    /* the keyword arguments still missing, before ')' */
    const char *parts[3];
    int n = 0;
    if (!workers)
        parts[n++] = "num_workers=min(8, os.cpu_count())";
    if (!pin)
        parts[n++] = "pin_memory=True";
    if (!kwarg(v, intern(&c->S->names, "persistent_workers", 18)))
        parts[n++] = "persistent_workers=True";
    const Token *close = &c->S->toks.v[args->end_tok - 1];
    const Token *before = &c->S->toks.v[args->end_tok - 2];
    const char *text = "";
    for (int i = 0; i < n; i++)
        text = arena_printf(c->A, "%s%s%s", text, i ? ", " : "", parts[i]);
    if (n && before->kind == T_COMMA) {   /* keep the trailing-comma layout */
        uint32_t at = before->start + before->len;
        fix_edit(c, fx, at, at, arena_printf(c->A, " %s,", text));
    } else if (n) {
        fix_edit(c, fx, close->start, close->start,
                 arena_printf(c->A, "%s%s", before->kind == T_LPAR ? "" : ", ", text));
    }
    fd->fix = fx;
}

/* `loader = build_loader(...)` where build_loader, in another module of the
 * project, returns a DataLoader left at num_workers=0: reported at the call,
 * with no fix (the DataLoader is written in the other file). */
static void report_helper_loader(RuleCtx *c, const IrFunction *f, const IrValue *v)
{
    uint32_t q = f->values.v[v->args[0]].qual;
    const ProjectExport *e = ir_project_export(c->ir, q);
    if (!e || e->kind != EXPORT_FUNCTION || !(e->flags & EXPORT_STARVED_LOADER) ||
        dataset_on_device(f, v) || !feeds_training(c->an, v->origin))
        return;
    uint32_t len;
    const char *name = intern_str(&c->S->names, q, &len);
    rule_report(c, v->node, SEV_WARNING,
                arena_printf(c->A,
                             "this DataLoader, made by `%.*s` with num_workers=0, feeds a GPU "
                             "training loop: one CPU thread loads and collates every batch "
                             "while the GPU waits",
                             (int)len, name),
                "pass `num_workers=min(8, os.cpu_count())`, `pin_memory=True` and "
                "`persistent_workers=True` to the DataLoader in that helper");
}

/* `train_loader, test_loader = get_data(...)` where get_data, in another
 * module, returns a DataLoader left at num_workers=0 as that element:
 * reported at the name it is bound to, with no fix. */
static void report_helper_element(RuleCtx *c, const IrFunction *f, const IrValue *v)
{
    const IrValue *call = &f->values.v[ir_resolve(f, v->args[0])];
    uint32_t q = call->op == IR_CALL && call->nargs ? f->values.v[call->args[0]].qual : 0;
    const ProjectExport *e = q ? ir_project_export(c->ir, q) : NULL;
    if (!e || e->kind != EXPORT_FUNCTION || v->index >= e->nelems ||
        !(e->elem_starved >> v->index & 1) || !feeds_training(c->an, v->origin))
        return;
    static const char *const nth[] = {"first", "second", "third", "fourth"};
    uint32_t len, node = v->node, k = 0;
    const char *name = intern_str(&c->S->names, q, &len);
    if (node && (c->S->nodes[node].kind == N_TUPLE || c->S->nodes[node].kind == N_LIST))
        FOR_EACH_KID(&c->S->nodes[node], kid) {
            if (k++ == v->index) {
                node = kid;   /* the name the loader is bound to */
                break;
            }
        }
    rule_report(c, node, SEV_WARNING,
                arena_printf(c->A,
                             "this DataLoader, the %s value `%.*s` returns, is made with "
                             "num_workers=0 and feeds a GPU training loop: one CPU thread loads "
                             "and collates every batch while the GPU waits",
                             nth[v->index], (int)len, name),
                "pass `num_workers=min(8, os.cpu_count())`, `pin_memory=True` and "
                "`persistent_workers=True` to the DataLoader in that helper");
}

void rule_tg004(RuleCtx *c)
{
    const Analysis *an = c->an;
    if (!an->uses_cuda)
        return;
    for (uint32_t fi = 0; fi < c->ir->funcs.n; fi++) {
        const IrFunction *f = &c->ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = &f->values.v[i];
            if (v->op == IR_UNPACK && (v->roles & ROLE_LOADER) && v->origin == ir_site(fi, i)) {
                report_helper_element(c, f, v);
                continue;
            }
            if (v->op != IR_CALL || !(v->roles & ROLE_LOADER) || !v->origin)
                continue;
            if (!an_qual_is(an, f->values.v[v->args[0]].qual, "torch.utils.data.DataLoader")) {
                report_helper_loader(c, f, v);
                continue;
            }
            int64_t w = workers_argument(c, f, v);
            if (w == SPLAT_SILENT)
                continue;   /* `**loader_kw` pfc cannot read may set num_workers */
            ValueId workers = (ValueId)w;
            if (workers && !an_is_const_zero(an, f, workers))
                continue;
            if (dataset_on_device(f, v) || !feeds_training(an, v->origin))
                continue;
            ValueId pin_arg = kwarg(v, an->n_pin_memory);
            bool pin = pin_arg && !is_false(c->S, f, pin_arg);
            const char *remark = an->non_blocking && !pin
                                     ? "; batches move with non_blocking=True but pin_memory is "
                                       "not set, so those copies are synchronous anyway"
                                     : "";
            bool light = in_memory_tensors(an, f, v);
            Finding *fd = rule_report(c, v->node, light ? SEV_NOTE : SEV_WARNING,
                        arena_printf(c->A,
                                     light ? "this DataLoader over an in-memory TensorDataset feeds "
                                             "a GPU training loop with %s: each batch is only "
                                             "indexed and stacked on the main thread%s"
                                           : "this DataLoader feeds a GPU training loop with %s: one "
                                             "CPU thread loads and collates every batch while the "
                                             "GPU waits%s",
                                     workers ? "num_workers=0" : "the default num_workers=0",
                                     remark),
                        "pass `num_workers=min(8, os.cpu_count())`, `pin_memory=True` and "
                        "`persistent_workers=True`");
            if (fd)
                workers_fix(c, fd, f, v, workers, pin_arg);
        }
    }
}
