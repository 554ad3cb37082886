/* The project, the IR's half: which imports a file makes, what a module
 * exports, and the exports bound to the importing file's qualified names so
 * that facts.c can ask with one table lookup (see project.h). */
#include "internal.h"
#include "project.h"
#include <stdlib.h>
#include <string.h>

typedef struct Binding { uint32_t qual; const ProjectExport *e; } Binding;

struct ProjectBindings {
    Binding *slots;      /* open addressing by qual id; qual 0 = empty */
    uint32_t mask;
    const ProjectView *view;
};

static const char *name_text(const Ir *ir, uint32_t id, uint32_t *len)
{
    return intern_str(&ir->syn->names, id, len);
}

static bool text_is(const char *s, uint32_t len, const char *lit)
{
    return strlen(lit) == len && memcmp(s, lit, len) == 0;
}

/* ---- the imports of a file ----------------------------------------------------------- */

/* The NAME tokens of a node joined by dots, after `prefix`. */
static char *dotted_text(const Syntax *S, const Node *n, const char *prefix)
{
    size_t len = strlen(prefix), cap = len + 1;
    for (uint32_t i = 0; i < n->nkids; i++)
        if (elem_is_token(n->kids[i]))
            cap += S->toks.v[elem_index(n->kids[i])].len + 1;
    char *out = arena_alloc(S->arena, cap);
    memcpy(out, prefix, len);
    bool first = true;
    for (uint32_t i = 0; i < n->nkids; i++) {
        Elem e = n->kids[i];
        if (!elem_is_token(e) || S->toks.v[elem_index(e)].kind != T_NAME)
            continue;
        const Token *t = &S->toks.v[elem_index(e)];
        if (!first)
            out[len++] = '.';
        memcpy(out + len, S->src + t->start, t->len);
        len += t->len;
        first = false;
    }
    out[len] = 0;
    return out;
}

static void push_request(const Syntax *S, ImportRequestVec *out, const char *module,
                         const char *name, bool star)
{
    ImportRequest r = {module, name, star};
    VEC_PUSH(S->arena, *out, r);
}

/* import a.b.c [as d], ... */
static void requests_of_import(const Syntax *S, const Node *n, ImportRequestVec *out)
{
    FOR_EACH_KID(n, aid) {
        const Node *dotted = node_kid(S, syn_node(S, aid), 0);
        if (dotted && dotted->kind == N_DOTTED_NAME)
            push_request(S, out, dotted_text(S, dotted, ""), NULL, false);
    }
}

/* from [.]*[a.b] import (c [as d], ... | *) */
static void requests_of_import_from(const Syntax *S, const Node *n, ImportRequestVec *out)
{
    char dots[70];
    uint32_t nd = 0;
    const char *module = NULL;
    for (uint32_t i = 0; i < n->nkids && nd < 64; i++) {
        Elem e = n->kids[i];
        if (!elem_is_token(e)) {
            const Node *k = syn_node(S, elem_index(e));
            if (k->kind == N_DOTTED_NAME && !module) {
                dots[nd] = 0;
                module = dotted_text(S, k, dots);
            }
            continue;
        }
        TokKind k = (TokKind)S->toks.v[elem_index(e)].kind;
        if (k == T_DOT || k == T_ELLIPSIS)
            for (int d = k == T_DOT ? 1 : 3; d > 0; d--)
                dots[nd++] = '.';
        if (k == T_KW_IMPORT)
            break;
    }
    dots[nd] = 0;
    if (!module)
        module = arena_strndup(S->arena, dots, nd);
    if (!*module)
        return;
    if (node_token(S, n, T_STAR))
        push_request(S, out, module, NULL, true);
    FOR_EACH_KID(n, aid) {
        const Node *alias = syn_node(S, aid);
        if (alias->kind != N_IMPORT_ALIAS)
            continue;
        const Token *t = node_token(S, alias, T_NAME);
        if (t)
            push_request(S, out, module, arena_strndup(S->arena, S->src + t->start, t->len), false);
    }
}

void ir_project_imports(const Ir *ir, ImportRequestVec *out)
{
    const Syntax *S = ir->syn;
    memset(out, 0, sizeof *out);
    for (uint32_t i = 0; i < ir->import_nodes.n; i++) {
        const Node *n = syn_node(S, ir->import_nodes.v[i]);
        if (n->kind == N_IMPORT)
            requests_of_import(S, n, out);
        else
            requests_of_import_from(S, n, out);
    }
}

/* ---- looking names up in the view ---------------------------------------------------- */

static const ProjectExport *summary_export(const ProjectSummary *s, const char *name, uint32_t len)
{
    for (uint32_t i = 0; s && i < s->n; i++)
        if (text_is(name, len, s->v[i].name))
            return &s->v[i];
    return NULL;
}

/* `from M import *` binds the names __all__ lists, else the public ones. */
static bool star_visible(const ProjectSummary *s, const char *name, uint32_t len)
{
    if (s->nall < 0)
        return len && name[0] != '_';
    for (int32_t i = 0; i < s->nall; i++)
        if (text_is(name, len, s->all[i]))
            return true;
    return false;
}

/* The name after the module in a qualified name: "model.GPT" after
 * "model", ".GPT" after ".", or NULL when the module does not start it. */
static const char *after_module(const char *q, uint32_t len, const char *module, uint32_t *rest)
{
    size_t ml = strlen(module);
    if (!ml || ml >= len || memcmp(q, module, ml) != 0)
        return NULL;
    size_t skip = module[ml - 1] == '.' ? ml : ml + 1;
    if (skip == ml + 1 && q[ml] != '.')
        return NULL;
    if (skip >= len || memchr(q + skip, '.', len - skip))
        return NULL;
    *rest = (uint32_t)(len - skip);
    return q + skip;
}

static const ProjectExport *view_lookup(const ProjectView *view, const char *q, uint32_t len)
{
    const ProjectExport *best = NULL;
    size_t best_len = 0;
    for (uint32_t i = 0; i < view->n; i++) {
        uint32_t rl;
        const char *rest = after_module(q, len, view->v[i].module, &rl);
        const ProjectExport *e = rest ? summary_export(view->v[i].summary, rest, rl) : NULL;
        if (e && strlen(view->v[i].module) > best_len) {
            best = e;
            best_len = strlen(view->v[i].module);
        }
    }
    return best;
}

/* A name no statement of the file binds, from the last star import that has it. */
static const ProjectImport *star_source(const ProjectView *view, const char *name, uint32_t len,
                                        const ProjectExport **e)
{
    for (uint32_t i = view->n; i-- > 0;) {
        const ProjectImport *p = &view->v[i];
        if (p->star && p->summary && star_visible(p->summary, name, len) &&
            (*e = summary_export(p->summary, name, len)))
            return p;
    }
    return NULL;
}

/* ---- bindings ------------------------------------------------------------------------- */

static Binding *slot_of(struct ProjectBindings *b, uint32_t qual)
{
    for (uint32_t i = (qual * 0x9E3779B1u) & b->mask;; i = (i + 1) & b->mask)
        if (b->slots[i].qual == qual || !b->slots[i].qual)
            return &b->slots[i];
}

static void bind(const Ir *ir, struct ProjectBindings *b, uint32_t qual)
{
    Binding *s = slot_of(b, qual);
    if (s->qual)
        return;
    uint32_t len;
    const char *q = name_text(ir, qual, &len);
    s->qual = qual;
    s->e = view_lookup(b->view, q, len);
}

const ProjectExport *ir_project_export(const Ir *ir, uint32_t qual)
{
    if (!ir->project || !qual)
        return NULL;
    Binding *s = slot_of(ir->project, qual);
    return s->qual ? s->e : NULL;
}

static bool defined_in_file(const Ir *ir, uint32_t name)
{
    return name < ir->nnames && ir->last_def[name];
}

/* `from models import *` then `Net()`: the read of Net gets the qualified
 * name "models.Net", as if the file had imported it by name. */
static void qualify_star_name(Ir *ir, IrValue *v)
{
    uint32_t len;
    const char *name = name_text(ir, v->name, &len);
    const ProjectExport *e;
    const ProjectImport *p = star_source(ir->project->view, name, len, &e);
    if (!p)
        return;
    const char *m = p->module;
    char *q = arena_printf(ir->syn->arena, "%s%s%.*s", m, m[strlen(m) - 1] == '.' ? "" : ".",
                           (int)len, name);
    v->qual = intern(&ir->syn->names, q, (uint32_t)strlen(q));
}

static bool has_star_import(const ProjectView *view)
{
    for (uint32_t i = 0; i < view->n; i++)
        if (view->v[i].star)
            return true;
    return false;
}

static void bind_values(Ir *ir)
{
    bool star = has_star_import(ir->project->view);
    for (uint32_t fi = 0; fi < ir->funcs.n; fi++) {
        IrFunction *f = &ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            IrValue *v = &f->values.v[i];
            if (v->op != IR_GLOBAL && v->op != IR_ATTR)
                continue;
            if (star && v->op == IR_GLOBAL && !v->qual && v->name && !defined_in_file(ir, v->name))
                qualify_star_name(ir, v);
            if (v->qual)
                bind(ir, ir->project, v->qual);
        }
    }
}

static bool export_is_nn_module(const ProjectExport *e)
{
    return e && e->kind == EXPORT_CLASS && (e->flags & EXPORT_NN_MODULE);
}

/* A class base as the class records it: a qualified name, or a bare name
 * (an in-file class, or one a star import brings). */
static bool base_is_project_module(Ir *ir, uint32_t base)
{
    bind(ir, ir->project, base);
    if (export_is_nn_module(ir_project_export(ir, base)))
        return true;
    uint32_t len;
    const char *name = name_text(ir, base, &len);
    const ProjectExport *e = NULL;
    return !memchr(name, '.', len) && !defined_in_file(ir, base) &&
           star_source(ir->project->view, name, len, &e) && export_is_nn_module(e);
}

static bool base_is_in_file_module(const Ir *ir, uint32_t base)
{
    for (uint32_t c = 0; c < ir->classes.n; c++)
        if (ir->classes.v[c].name == base && ir->classes.v[c].is_module)
            return true;
    return false;
}

/* Classes derived from a project nn.Module, then their in-file subclasses
 * (each round marks at least one class, or stops). */
static void mark_module_classes(Ir *ir)
{
    for (uint32_t c = 0; c < ir->classes.n; c++)
        for (uint32_t b = 0; b < ir->classes.v[c].bases.n; b++)
            ir->classes.v[c].is_module |= base_is_project_module(ir, ir->classes.v[c].bases.v[b]);
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t c = 0; c < ir->classes.n; c++) {
            IrClass *k = &ir->classes.v[c];
            for (uint32_t b = 0; !k->is_module && b < k->bases.n; b++)
                if (base_is_in_file_module(ir, k->bases.v[b]))
                    k->is_module = changed = true;
        }
    }
}

void ir_project_bind(Ir *ir, const ProjectView *view)
{
    struct ProjectBindings *b = arena_zalloc(ir->syn->arena, sizeof *b);
    /* every qualified name the file holds could need a slot: values and bases */
    size_t names = 1;
    for (uint32_t fi = 0; fi < ir->funcs.n; fi++)
        names += ir->funcs.v[fi].values.n;
    for (uint32_t c = 0; c < ir->classes.n; c++)
        names += ir->classes.v[c].bases.n;
    uint32_t size = 64;
    while (size < names * 2 && size < (1u << 31))
        size *= 2;
    b->slots = arena_zalloc(ir->syn->arena, size * sizeof *b->slots);
    b->mask = size - 1;
    b->view = view;
    ir->project = b;
    bind_values(ir);
    mark_module_classes(ir);
}

/* ---- the facts hooks ------------------------------------------------------------------- */

static Attach known(uint8_t a) { return a == ATT_BOTTOM ? ATT_MAYBE : (Attach)a; }

bool ir_project_call_facts(const Ir *ir, uint32_t callee_qual, uint32_t fn, IrValue *v,
                           uint32_t value_index)
{
    const ProjectExport *e = ir_project_export(ir, callee_qual);
    if (!e || (e->kind == EXPORT_VALUE && !(e->roles & ROLE_MODEL)))
        return false;
    v->ctor = callee_qual;
    if (e->kind == EXPORT_CLASS) {
        v->attach = ATT_DETACHED;
        v->roles = !(e->flags & EXPORT_NN_MODULE) ? 0
                   : ROLE_MODEL | ((e->flags & EXPORT_MODE_DEP) ? ROLE_MODE_DEP : 0);
    } else if (e->kind == EXPORT_FUNCTION) {
        v->attach = (uint8_t)known(e->attach);
        v->roles = e->roles;
        /* a loader made by the helper: this call is where it comes from */
        if (e->roles & ROLE_LOADER)
            v->origin = ir_site(fn, value_index);
    } else {
        v->attach = ATT_ATTACHED;   /* a model instance the module made, called */
        v->roles = 0;
    }
    return true;
}

bool ir_project_element_facts(const Ir *ir, uint32_t callee_qual, uint32_t k, uint32_t fn,
                              IrValue *v, uint32_t value_index)
{
    const ProjectExport *e = ir_project_export(ir, callee_qual);
    if (!e || e->kind != EXPORT_FUNCTION || k >= e->nelems)
        return false;
    v->attach = (uint8_t)known(e->attach);
    v->roles = e->elem_roles[k];
    v->cls = 0;
    v->ctor = 0;
    v->origin = (e->elem_roles[k] & ROLE_LOADER) ? ir_site(fn, value_index) : 0;
    return true;
}

bool ir_project_global_facts(const Ir *ir, IrValue *v)
{
    const ProjectExport *e = ir_project_export(ir, v->qual);
    if (!e)
        return false;
    v->attach = e->kind == EXPORT_VALUE ? (uint8_t)known(e->attach) : ATT_DETACHED;
    v->roles = e->kind == EXPORT_VALUE ? e->roles : 0;
    return true;
}

/* ---- summaries --------------------------------------------------------------------------- */

static char *dup_text(const char *s, uint32_t len)
{
    char *d = malloc(len + 1);
    if (!d)
        abort();
    memcpy(d, s, len);
    d[len] = 0;
    return d;
}

void project_summary_free(ProjectSummary *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; i < s->n; i++)
        free(s->v[i].name);
    for (int32_t i = 0; i < s->nall; i++)
        free(s->all[i]);
    free(s->v);
    free(s->all);
    free(s);
}

static bool qual_text_is(const Ir *ir, uint32_t q, const char *lit)
{
    uint32_t len;
    const char *s = name_text(ir, q, &len);
    return q && text_is(s, len, lit);
}

/* A torch.nn layer class (nn.Linear, nn.Module, nn.TransformerEncoderLayer). */
static bool nn_layer_base(const Ir *ir, uint32_t base)
{
    uint32_t len;
    const char *s = name_text(ir, base, &len);
    return len > 9 && memcmp(s, "torch.nn.", 9) == 0 && s[9] >= 'A' && s[9] <= 'Z' &&
           !memchr(s + 9, '.', len - 9);
}

static bool class_is_nn_module(const Ir *ir, const IrClass *c)
{
    if (c->is_module)
        return true;
    for (uint32_t b = 0; b < c->bases.n; b++)
        if (nn_layer_base(ir, c->bases.v[b]))
            return true;
    return false;
}

static bool mentions_mode_layer(const char *q, uint32_t len)
{
    for (uint32_t p = 0; p + 7 <= len; p++)
        if (memcmp(q + p, "Dropout", 7) == 0 || memcmp(q + p, "dropout", 7) == 0 ||
            (p + 9 <= len && memcmp(q + p, "BatchNorm", 9) == 0))
            return true;
    return false;
}

/* Per class while a summary is made: 0 not known yet, 1 being decided (a
 * class that builds itself), 2 mode-dependent, 3 not. */
typedef struct ModeMemo { const Ir *ir; uint8_t *state; } ModeMemo;

static bool class_mode_dependent(ModeMemo *mm, uint32_t c);

/* A qualified name that behaves differently in eval mode: a Dropout or
 * BatchNorm layer, a mode-dependent class of another project module. */
static bool qual_mode_dependent(const Ir *ir, uint32_t q)
{
    uint32_t len;
    const char *s = name_text(ir, q, &len);
    if (mentions_mode_layer(s, len))
        return true;
    const ProjectExport *e = ir_project_export(ir, q);
    return e && e->kind == EXPORT_CLASS && (e->flags & EXPORT_MODE_DEP);
}

static bool base_mode_dependent(ModeMemo *mm, uint32_t base)
{
    if (qual_mode_dependent(mm->ir, base))
        return true;
    for (uint32_t c = 0; c < mm->ir->classes.n; c++)
        if (mm->ir->classes.v[c].name == base && class_mode_dependent(mm, c))
            return true;
    return false;
}

static bool methods_mode_dependent(ModeMemo *mm, uint32_t c)
{
    const IrClass *k = &mm->ir->classes.v[c];
    for (uint32_t m = 0; m < k->methods.n; m++) {
        const IrFunction *g = &mm->ir->funcs.v[k->methods.v[m]];
        for (uint32_t i = 1; i < g->values.n; i++) {
            const IrValue *v = &g->values.v[i];
            if (v->qual && qual_mode_dependent(mm->ir, v->qual))
                return true;
            if (v->op == IR_CALL && v->cls && class_mode_dependent(mm, v->cls - 1))
                return true;
        }
    }
    return false;
}

/* As TG006 judges an in-file class: Dropout or BatchNorm layers in its
 * methods, in a class it builds or in a base. */
static bool class_mode_dependent(ModeMemo *mm, uint32_t c)
{
    if (mm->state[c])
        return mm->state[c] == 2;
    mm->state[c] = 1;
    const IrClass *k = &mm->ir->classes.v[c];
    bool dep = false;
    for (uint32_t b = 0; !dep && b < k->bases.n; b++)
        dep = base_mode_dependent(mm, k->bases.v[b]);
    dep = dep || methods_mode_dependent(mm, c);
    mm->state[c] = dep ? 2 : 3;
    return dep;
}

/* DataLoader(...) left at num_workers=0: no num_workers keyword (or a literal
 * 0), fewer than six positional arguments, no *args or **kwargs. */
static bool starved_loader_call(const Ir *ir, const IrFunction *g, const IrValue *x)
{
    if (x->op != IR_CALL || !x->nargs)
        return false;
    uint32_t q = g->values.v[x->args[0]].qual;
    if (!qual_text_is(ir, q, "torch.utils.data.DataLoader") &&
        !qual_text_is(ir, q, "torch.utils.data.dataloader.DataLoader"))
        return false;
    const Syntax *S = ir->syn;
    const Node *args = node_kid(S, syn_node(S, x->node), 1);
    uint32_t positional = 0, i = 1;
    if (args && args->kind == N_ARGUMENTS) FOR_EACH_KID(args, a) {
        NodeKind k = (NodeKind)S->nodes[a].kind;
        if (k == N_STARRED || k == N_DOUBLE_STARRED)
            return false;
        if (k != N_KEYWORD)
            positional++;
        uint32_t kw = i < x->nargs ? ir_kwname(x, i) : 0;
        uint32_t len;
        const char *kn = kw ? name_text(ir, kw, &len) : NULL;
        if (kn && text_is(kn, len, "num_workers")) {
            const IrValue *w = &g->values.v[x->args[i]];
            const Token *t = w->op == IR_CONST ? &S->toks.v[S->nodes[w->node].first_tok] : NULL;
            if (!t || t->kind != T_NUMBER || t->len != 1 || S->src[t->start] != '0')
                return false;
        }
        i++;
    }
    return positional < 6;
}

/* A starved DataLoader(...), also through the phi of `if name == "cifar10":
 * loader = DataLoader(...)` (a path that never assigns it does not count). */
static bool starved_value(const Ir *ir, const IrFunction *g, ValueId id, int depth)
{
    const IrValue *x = &g->values.v[ir_resolve(g, id)];
    if (x->op != IR_PHI)
        return starved_loader_call(ir, g, x);
    bool any = false;
    for (uint32_t i = 0; depth < 4 && i < x->nargs; i++) {
        const IrValue *a = &g->values.v[ir_resolve(g, x->args[i])];
        if (a->op == IR_UNDEF)
            continue;
        if (!starved_value(ir, g, x->args[i], depth + 1))
            return false;
        any = true;
    }
    return any;
}

/* Every return a literal tuple `return a, b` of one length: per element,
 * the roles every return agrees on and whether it is always a starved
 * DataLoader(...). */
static void tuple_elements(const Ir *ir, const IrFunction *g, ProjectExport *e)
{
    const Syntax *S = ir->syn;
    uint32_t n = 0, roles[EXPORT_ELEMENTS];
    uint8_t starved = 0xff;
    for (uint32_t i = 1; i < g->values.n; i++)
        if (g->values.v[i].op == IR_YIELD)
            return;   /* a generator: its call gives no tuple */
    for (uint32_t i = 0; i < g->returns.n; i++) {
        const IrValue *r = &g->values.v[g->returns.v[i]];
        const IrValue *t = r->nargs ? &g->values.v[ir_resolve(g, r->args[0])] : NULL;
        if (!t || t->op != IR_BUILD || !t->node || S->nodes[t->node].kind != N_TUPLE ||
            !t->nargs || t->nargs > EXPORT_ELEMENTS || (n && t->nargs != n))
            return;
        FOR_EACH_KID(&S->nodes[t->node], kid) {
            if (S->nodes[kid].kind == N_STARRED)
                return;   /* `return a, *rest`: elements pfc cannot count */
        }
        for (uint32_t k = 0; k < t->nargs; k++) {
            const IrValue *x = &g->values.v[ir_resolve(g, t->args[k])];
            roles[k] = (n ? roles[k] : ~0u) & x->roles;
            if (!starved_value(ir, g, t->args[k], 0))
                starved &= (uint8_t)~(1u << k);
        }
        n = t->nargs;
    }
    e->nelems = (uint8_t)n;
    e->elem_starved = n ? (uint8_t)(starved & ((1u << n) - 1)) : 0;
    for (uint32_t k = 0; k < n; k++)
        e->elem_roles[k] = (uint16_t)roles[k];
}

static void function_export(const Ir *ir, int fi, ProjectExport *e)
{
    const IrFunction *g = &ir->funcs.v[fi];
    Attach a = ATT_BOTTOM;
    uint32_t roles = ~0u;
    bool starved = g->returns.n > 0;
    for (uint32_t i = 0; i < g->returns.n; i++) {
        const IrValue *r = &g->values.v[g->returns.v[i]];
        const IrValue *x = r->nargs ? &g->values.v[ir_resolve(g, r->args[0])] : NULL;
        starved = starved && x && starved_value(ir, g, r->args[0], 0);
        if (!x || x->attach == ATT_BOTTOM)
            continue;
        a = attach_join(a, (Attach)x->attach);
        roles &= x->roles;   /* must-facts: what every return gives */
    }
    e->kind = EXPORT_FUNCTION;
    e->attach = (uint8_t)a;
    e->roles = roles == ~0u ? 0 : roles;
    e->flags = starved ? EXPORT_STARVED_LOADER : 0;
    tuple_elements(ir, g, e);
}

/* One module-level definition as an export; false when nothing is known of it. */
static bool export_of_def(ModeMemo *mm, const IrValue *x, ProjectExport *e)
{
    const Ir *ir = mm->ir;
    memset(e, 0, sizeof *e);
    if (x->op == IR_CLASS) {
        e->kind = EXPORT_CLASS;
        if (class_is_nn_module(ir, &ir->classes.v[x->index]))
            e->flags = EXPORT_NN_MODULE |
                       (class_mode_dependent(mm, x->index) ? EXPORT_MODE_DEP : 0);
        return true;
    }
    if (x->op == IR_FUNC) {
        function_export(ir, (int)x->index, e);
        return true;
    }
    if (x->op == IR_GLOBAL && x->qual) {   /* a re-export: `from .model import GPT` */
        const ProjectExport *src = ir_project_export(ir, x->qual);
        if (src)
            *e = *src;
        return src != NULL;
    }
    e->kind = EXPORT_VALUE;
    e->attach = x->attach;
    e->roles = x->roles;
    return x->roles != 0;
}

typedef ARENA_VEC(ProjectExport) ExportVec;

static void add_export(ExportVec *out, const ProjectExport *e, const char *name, uint32_t len)
{
    if (out->n == out->cap) {
        out->cap = out->cap ? out->cap * 2 : 16;
        out->v = realloc(out->v, out->cap * sizeof *out->v);
        if (!out->v)
            abort();
    }
    out->v[out->n] = *e;
    out->v[out->n++].name = dup_text(name, len);
}

static bool has_export(const ExportVec *v, const char *name, uint32_t len)
{
    for (uint32_t i = 0; i < v->n; i++)
        if (text_is(name, len, v->v[i].name))
            return true;
    return false;
}

/* The text of a plain string literal ('x' or "x"), or NULL. */
static const char *literal_text(const Syntax *S, const IrValue *x, uint32_t *len)
{
    if (x->op != IR_CONST || !x->node)
        return NULL;
    const Token *t = &S->toks.v[S->nodes[x->node].first_tok];
    const char *p = S->src + t->start;
    if (t->kind != T_STRING || t->len < 2 || (p[0] != '"' && p[0] != '\'') ||
        p[t->len - 1] != p[0] || (t->len >= 6 && p[1] == p[0]))
        return NULL;
    *len = t->len - 2;
    return p + 1;
}

/* __all__ = ["A", "B"] (or a tuple): the names a star import takes. */
static void read_all(const Ir *ir, const IrValue *x, ProjectSummary *s)
{
    const IrFunction *m = &ir->funcs.v[0];
    if (x->op != IR_BUILD)
        return;
    s->all = malloc((x->nargs + 1) * sizeof *s->all);
    if (!s->all)
        abort();
    s->nall = 0;
    for (uint32_t i = 0; i < x->nargs; i++) {
        uint32_t len;
        const char *t = literal_text(ir->syn, &m->values.v[x->args[i]], &len);
        if (!t) {   /* a computed entry: __all__ cannot be read */
            for (int32_t k = 0; k < s->nall; k++)
                free(s->all[k]);
            s->nall = -1;
            return;
        }
        s->all[s->nall++] = dup_text(t, len);
    }
}

/* A star import's names become this module's too (its own names first). */
static void add_star_exports(const Ir *ir, ExportVec *out)
{
    const ProjectView *view = ir->project ? ir->project->view : NULL;
    for (uint32_t i = 0; view && i < view->n; i++) {
        const ProjectSummary *s = view->v[i].summary;
        if (!view->v[i].star || !s)
            continue;
        for (uint32_t k = 0; k < s->n; k++) {
            uint32_t len = (uint32_t)strlen(s->v[k].name);
            if (star_visible(s, s->v[k].name, len) && !has_export(out, s->v[k].name, len))
                add_export(out, &s->v[k], s->v[k].name, len);
        }
    }
}

ProjectSummary *ir_project_summarize(const Ir *ir)
{
    ProjectSummary *s = calloc(1, sizeof *s);
    if (!s)
        abort();
    s->nall = -1;
    ExportVec out = {0};
    const IrFunction *m = &ir->funcs.v[0];
    ModeMemo mm = {ir, arena_zalloc(ir->syn->arena, ir->classes.n + 1)};
    for (uint32_t i = 0; i < ir->module_defs.n; i++) {
        const IrModuleDef *d = &ir->module_defs.v[i];
        if (d->name >= ir->nnames || ir->last_def[d->name] != i + 1)
            continue;   /* only the last definition of a name */
        uint32_t len;
        const char *name = name_text(ir, d->name, &len);
        const IrValue *x = &m->values.v[ir_resolve(m, d->value)];
        ProjectExport e;
        if (text_is(name, len, "__all__"))
            read_all(ir, x, s);
        else if (export_of_def(&mm, x, &e))
            add_export(&out, &e, name, len);
    }
    add_star_exports(ir, &out);
    s->v = out.v;
    s->n = out.n;
    return s;
}
