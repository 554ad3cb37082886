/* Lattice facts over the SSA values of all functions: graph attachment, roles,
 * the in-file class of instances. A monotone fixpoint: facts only move up
 * (attachment joins, roles accumulate), so iteration ends. Interprocedural in
 * a context-insensitive way: a parameter's facts are the join of the
 * arguments at the file's call sites, a call's facts the join of the callee's
 * returns. Unknown stays unknown: rules act only on proven facts. */
#include "internal.h"
#include "project.h"
#include <string.h>

typedef struct SelfStore { uint32_t name; const IrValue *value; } SelfStore;
typedef ARENA_VEC(SelfStore) SelfStoreVec;
typedef struct ModuleUse { uint32_t cls1, name; } ModuleUse;
typedef ARENA_VEC(ModuleUse) ModuleUseVec;

/* The functions that read one kind of fact, each once (see note_reads). */
typedef struct Readers { ARENA_VEC(uint32_t) fns; uint32_t stamp; } Readers;

/* What other runs read of a value, so that its change wakes them. */
enum {
    SEEN_RETURNED = 1,   /* a return's operand: the callers' join_returns */
    SEEN_STORED = 2,     /* stored to self.<name>: the class's attribute reads */
    SEEN_MODULE = 4,     /* a module-level definition: every GLOBAL read */
    SEEN_BACK = 8,       /* read by a value before it in block order (a loop) */
};

typedef struct Facts {
    const Ir *ir;
    const Syntax *S;
    Arena *T;   /* the fixpoint's own tables, freed when the facts are done */
    /* false while the first fixpoint runs: a parameter no call has reached
     * yet is BOTTOM (unknown so far), not MAYBE, so that the order in which
     * functions are defined cannot fix it at the lattice top */
    bool outside_calls;
    uint32_t cur_fn;
    /* per function: join of argument facts per parameter position */
    struct ParamFacts { uint8_t attach; uint32_t roles, cls, origin, ctor; bool called; } **params;
    SelfStoreVec *self_stores;   /* per class */
    /* `self.<name>` attributes used as modules (`self.net.eval()`), by class */
    ModuleUseVec module_attrs;
    /* The worklist: a function runs again only when a fact it read changed. A
     * transfer function that reads facts of another function must say so in
     * note_reads (who reads) and mark_seen (which values), or the fixpoint
     * ends too early. */
    uint8_t *pending;            /* per function */
    uint8_t **seen;              /* per function, per value: SEEN_* bits */
    uint8_t woke;                /* SEEN_* bits of the values changed by this run */
    uint32_t *class_of;          /* per function: 1 + the class it is a method of, or 0 */
    Readers *return_readers;     /* per function: who reads its returns */
    Readers *store_readers;      /* per class: who reads its self.<name> stores */
    Readers global_readers;      /* who reads module-level definitions */
    uint32_t run;                /* numbers the runs of functions, for Readers.stamp */
    uint8_t *reads_outside;      /* per function: a run asked outside_calls */
    /* per interned name, classified once (0: not yet): what a qualified
     * callee makes (QualKind), what a method name does (METHOD_* bits) */
    uint8_t *qual_kinds;
    uint16_t *method_bits;
    uint32_t nnames;
} Facts;

/* Every read of outside_calls goes through here: the functions that asked
 * are those the second fixpoint must run again. */
static bool outside_calls(Facts *F)
{
    F->reads_outside[F->cur_fn] = 1;
    return F->outside_calls;
}

Attach attach_join(Attach a, Attach b)
{
    if (a == ATT_BOTTOM)
        return b;
    if (b == ATT_BOTTOM || a == b)
        return a;
    return ATT_MAYBE;
}

/* Arithmetic and tensor functions: attached if any input is. */
static Attach attach_any(Attach a, Attach b)
{
    if (a == ATT_ATTACHED || b == ATT_ATTACHED)
        return ATT_ATTACHED;
    if (a == ATT_MAYBE || b == ATT_MAYBE)
        return ATT_MAYBE;
    if (a == ATT_BOTTOM)
        return b;
    return a;
}

static bool str_is(const Syntax *S, uint32_t id, const char *s) { return intern_is(&S->names, id, s); }

static bool str_prefix(const Syntax *S, uint32_t id, const char *p)
{
    return intern_has_prefix(&S->names, id, p);
}

static bool str_contains(const Syntax *S, uint32_t id, const char *p)
{
    return intern_contains(&S->names, id, p);
}

static bool name_in(const Syntax *S, uint32_t id, const char *const *list)
{
    for (; *list; list++)
        if (str_is(S, id, *list))
            return true;
    return false;
}

/* ---- what a qualified callee produces -------------------------------------------------- */

static const char *const loss_functions[] = {
    "torch.nn.functional.cross_entropy", "torch.nn.functional.nll_loss",
    "torch.nn.functional.mse_loss", "torch.nn.functional.l1_loss",
    "torch.nn.functional.binary_cross_entropy", "torch.nn.functional.binary_cross_entropy_with_logits",
    "torch.nn.functional.smooth_l1_loss", "torch.nn.functional.kl_div",
    "torch.nn.functional.huber_loss", "torch.nn.functional.cosine_embedding_loss", NULL};
static const char *const loss_modules[] = {
    "torch.nn.CrossEntropyLoss", "torch.nn.NLLLoss", "torch.nn.MSELoss", "torch.nn.L1Loss",
    "torch.nn.BCELoss", "torch.nn.BCEWithLogitsLoss", "torch.nn.SmoothL1Loss", "torch.nn.KLDivLoss",
    "torch.nn.HuberLoss", NULL};
static const char *const creators[] = {
    "torch.zeros", "torch.ones", "torch.empty", "torch.full", "torch.rand", "torch.randn",
    "torch.randint", "torch.arange", "torch.linspace", "torch.tensor", "torch.as_tensor",
    "torch.from_numpy", "torch.zeros_like", "torch.ones_like", "torch.randn_like", "torch.eye", NULL};
static const char *const pynum_builtins[] = {
    "builtins.float", "builtins.int", "builtins.len", "builtins.bool", "builtins.round",
    "builtins.str", "builtins.isinstance", "builtins.print", "builtins.range", NULL};
static const char *const killing_methods[] = {
    "detach", "item", "tolist", "numpy", "argmax", "argmin", "size", "dim", "numel",
    "backward", "zero_grad", "step", "append", "extend", "eval", "train", "state_dict",
    "load_state_dict", "__len__", "nelement", "element_size", "is_cuda", "type", NULL};
/* Attributes of a tensor that carry no graph: p.grad, x.data, metadata. */
static const char *const graphless_attributes[] = {
    "grad", "data", "shape", "dtype", "device", "requires_grad", "ndim", "is_cuda", "is_leaf",
    "layout", "names", NULL};
static const char *const reductions[] = {"sum", "mean", "max", "min", "norm", "std", "var",
                                         "prod", "logsumexp", NULL};

static void set(IrValue *v, Attach a, uint32_t roles)
{
    v->attach = (uint8_t)a;
    v->roles = roles;
}

/* v is the object x (a method that returns its receiver, a wrapper that is
 * transparent for the rules, an element of a known tuple): every fact. */
static void same_as(IrValue *v, const IrValue *x)
{
    v->attach = x->attach;
    v->roles = x->roles;
    v->cls = x->cls;
    v->ctor = x->ctor;
    v->origin = x->origin;
}

/* The allocation site of an object made by call v of function fn: the
 * identity rules compare (`ema.eval()` is not the trained model's). */
static uint32_t site_of(uint32_t fn, const IrFunction *f, const IrValue *v)
{
    return ir_site(fn, (ValueId)(v - f->values.v));
}

/* The must-join of several values' facts (the arms of a phi, the returns of
 * a function, the definitions of a global): attachment joins; roles, class,
 * constructor and allocation site are what every input agrees on. Inputs
 * still at BOTTOM (not computed yet) do not count. */
typedef struct Join {
    Attach attach;
    uint32_t roles, cls, ctor, origin;
    bool seen;
} Join;

static void join_add(Join *j, const IrValue *x, uint32_t xcls)
{
    j->attach = attach_join(j->attach, (Attach)x->attach);
    if (x->attach == ATT_BOTTOM)
        return;
    if (!j->seen) {
        j->roles = x->roles, j->cls = xcls, j->ctor = x->ctor, j->origin = x->origin;
        j->seen = true;
        return;
    }
    j->roles &= x->roles;
    j->cls = j->cls == xcls ? xcls : 0;
    j->ctor = j->ctor == x->ctor ? x->ctor : 0;
    j->origin = j->origin == x->origin ? x->origin : 0;
}

/* The joined facts into v; nothing known yet is MAYBE when `settle`. */
static void join_store(IrValue *v, const Join *j, bool settle)
{
    v->attach = (uint8_t)(settle && j->attach == ATT_BOTTOM ? ATT_MAYBE : j->attach);
    v->roles = j->seen ? j->roles : 0;
    v->cls = j->cls;
    v->ctor = j->ctor;
    v->origin = j->origin;
}

/* ---- helpers over values ---------------------------------------------------------------- */

static const IrValue *val(const IrFunction *f, ValueId id) { return &f->values.v[id]; }

/* A string constant naming a CUDA device: "cuda", 'cuda:0', f"cuda:{rank}". */
static bool cuda_string(const Syntax *S, const IrValue *v)
{
    if (!v->node)
        return false;
    const Token *t = &S->toks.v[S->nodes[v->node].first_tok];
    if (t->kind != T_STRING && t->kind != T_FSTRING_START)
        return false;
    const char *p = S->src + t->start, *end = p + t->len;
    while (p < end && *p != '"' && *p != '\'')   /* the prefix: r, b, f, u */
        p++;
    while (p < end && (*p == '"' || *p == '\''))
        p++;
    if (t->kind == T_FSTRING_START) {   /* the text follows in the next token */
        const Token *m = t + 1;
        p = S->src + m->start, end = p + m->len;
    }
    return end - p >= 4 && memcmp(p, "cuda", 4) == 0;
}

/* Does any argument of a call (positional or keyword) name a CUDA device? */
static bool cuda_argument(const IrFunction *f, const IrValue *call)
{
    for (uint32_t i = 1; i < call->nargs; i++)
        if (val(f, call->args[i])->roles & ROLE_CUDA)
            return true;
    return false;
}


/* The function a callee value denotes, or -1. */

static int method_of(const Ir *ir, uint32_t cls1, uint32_t name)
{
    return cls1 ? ir_class_method(ir, cls1 - 1, name) : -1;
}

static int module_function(const Ir *ir, uint32_t name)
{
    if (name >= ir->nnames || !ir->last_def[name])
        return -1;
    const IrModuleDef *d = &ir->module_defs.v[ir->last_def[name] - 1];
    const IrValue *v = &ir->funcs.v[0].values.v[d->value];
    return v->op == IR_FUNC ? (int)v->index : -1;
}

int ir_callee_function(const Ir *ir, const IrFunction *f, ValueId callee)
{
    const IrValue *c = val(f, callee);
    if (c->op == IR_FUNC)
        return (int)c->index;
    if (c->op == IR_GLOBAL)
        return module_function(ir, c->name);
    if (c->op == IR_ATTR && c->nargs)
        return method_of(ir, val(f, c->args[0])->cls, c->name);
    if (c->cls && ir->classes.v[c->cls - 1].is_module)   /* model(x) runs forward */
        return method_of(ir, c->cls, ir->name_forward);
    return -1;
}

/* What a call of in-file function fi gives back: the must-join of its
 * returns; the class is the first one a return knows (a forward that may
 * also return None still returns its class's outputs). */
static Join join_returns(const Ir *ir, int fi)
{
    const IrFunction *g = &ir->funcs.v[fi];
    Join j = {0};
    uint32_t cls = 0;
    for (uint32_t i = 0; i < g->returns.n; i++) {
        const IrValue *r = &g->values.v[g->returns.v[i]];
        if (!r->nargs)
            continue;
        const IrValue *x = &g->values.v[r->args[0]];
        join_add(&j, x, x->cls);
        cls = cls ? cls : x->cls;
    }
    j.cls = cls;
    return j;
}

/* Records argument facts at a call of an in-file function. */
static void note_call(Facts *F, const IrFunction *f, const IrValue *call, int fi, int skip_self)
{
    const IrFunction *g = &F->ir->funcs.v[fi];
    struct ParamFacts *pf = F->params[fi];
    uint32_t pos = (uint32_t)skip_self;
    for (uint32_t a = 1; a < call->nargs; a++) {
        uint32_t slot = UINT32_MAX;
        uint32_t kw = ir_kwname(call, a);
        if (kw) {
            for (uint32_t p = 0; p < g->params.n; p++)
                if (g->values.v[g->params.v[p]].name == kw)
                    slot = p;
        } else {
            slot = pos++;
        }
        if (slot >= g->params.n)
            continue;
        const IrValue *x = val(f, call->args[a]);
        if (x->attach == ATT_BOTTOM)
            continue;   /* not computed yet */
        Attach j = attach_join((Attach)pf[slot].attach, (Attach)x->attach);
        /* must-facts: a parameter is what every call site passes */
        uint32_t roles = pf[slot].called ? pf[slot].roles & x->roles : x->roles;
        uint32_t cls = !pf[slot].called || pf[slot].cls == x->cls ? x->cls : 0;
        uint32_t origin = !pf[slot].called || pf[slot].origin == x->origin ? x->origin : 0;
        uint32_t ctor = !pf[slot].called || pf[slot].ctor == x->ctor ? x->ctor : 0;
        if (j != pf[slot].attach || roles != pf[slot].roles || cls != pf[slot].cls ||
            origin != pf[slot].origin || ctor != pf[slot].ctor || !pf[slot].called) {
            pf[slot].ctor = ctor;
            pf[slot].attach = (uint8_t)j;
            pf[slot].roles = roles;
            pf[slot].cls = cls;
            pf[slot].origin = origin;
            pf[slot].called = true;
            F->pending[fi] = 1;
        }
    }
}

static bool constructs_in_file_class(const IrValue *callee);

/* ---- structure: elements of tuples and lists ------------------------------------------- */

enum { ELEMENT_DEPTH = 4 };   /* calls followed to find a returned tuple */

/* Does the tuple or list node have a `*x` among its first k + 1 kids (so
 * that element k cannot be told)? */
static bool starred_up_to(const Syntax *S, uint32_t node, uint32_t k)
{
    const Node *n = &S->nodes[node];
    uint32_t i = 0;
    FOR_EACH_KID(n, kid) {
        if (i++ > k)
            break;
        if (S->nodes[kid].kind == N_STARRED || S->nodes[kid].kind == N_DOUBLE_STARRED)
            return true;
    }
    return false;
}

/* The k-th positional argument of a call with no `*args`, `**kw` or
 * keywords before it, or 0. */
static ValueId positional_arg(const Syntax *S, const IrValue *call, uint32_t k)
{
    if (1 + k >= call->nargs || !call->node)
        return 0;
    const Node *args = node_kid(S, &S->nodes[call->node], 1);
    if (!args || args->kind != N_ARGUMENTS || starred_up_to(S, node_kid_id(S, &S->nodes[call->node], 1), k))
        return 0;
    for (uint32_t i = 1; i <= 1 + k; i++)
        if (ir_kwname(call, i))
            return 0;
    return call->args[1 + k];
}

static bool ctor_is(const Syntax *S, const IrValue *x, const char *const *list)
{
    return x->ctor && name_in(S, x->ctor, list);
}

static const char *const accelerators[] = {
    "accelerate.Accelerator", "accelerate.accelerator.Accelerator", "lightning.Fabric",
    "lightning.fabric.Fabric", "lightning_fabric.Fabric", NULL};

/* `accelerator.prepare(model, opt, loader)`, `fabric.setup(model, opt)`:
 * each result is its argument, wrapped for the device. */
static bool prepares_arguments(const Syntax *S, const IrFunction *f, const IrValue *callee)
{
    if (callee->op != IR_ATTR || !callee->nargs ||
        !ctor_is(S, val(f, callee->args[0]), accelerators))
        return false;
    return str_is(S, callee->name, "prepare") || str_is(S, callee->name, "setup") ||
           str_is(S, callee->name, "setup_dataloaders");
}

static bool element_facts(Facts *F, const IrFunction *f, ValueId base, uint32_t k, Join *out,
                          int depth);

/* The element of every tuple that in-file function fi returns. */
static void add_reader(Facts *F, Readers *r, int fi);

static bool returned_element(Facts *F, int fi, uint32_t k, Join *out, int depth)
{
    const IrFunction *g = &F->ir->funcs.v[fi];
    add_reader(F, &F->return_readers[fi], (int)F->cur_fn);   /* its returns' elements */
    bool any = false;
    for (uint32_t i = 0; i < g->returns.n; i++) {
        const IrValue *r = &g->values.v[g->returns.v[i]];
        if (!r->nargs || !element_facts(F, g, r->args[0], k, out, depth + 1))
            return false;
        any = true;
    }
    return any;
}

/* `deepspeed.initialize(model=..., ...)` gives back (engine, optimizer,
 * loader, scheduler); the engine is the model. */
static bool deepspeed_element(Facts *F, const IrFunction *f, const IrValue *call, uint32_t k, Join *out)
{
    static const uint32_t roles[] = {0, ROLE_OPTIMIZER, ROLE_LOADER, ROLE_SCHEDULER};
    if (k >= 4)
        return false;
    if (k > 0) {
        IrValue x = {0};
        x.attach = ATT_DETACHED, x.roles = roles[k];
        join_add(out, &x, 0);
        return true;
    }
    for (uint32_t i = 1; call->op == IR_CALL && i < call->nargs; i++)
        if (ir_kwname(call, i) && str_is(F->S, ir_kwname(call, i), "model")) {
            IrValue x = *val(f, call->args[i]);
            x.roles |= ROLE_MODEL;
            join_add(out, &x, x.cls);
            return true;
        }
    return false;
}

/* Element k of the tuple or list `base`, when pfc can tell: a literal
 * `(a, b)`, an item of a literal list of such tuples, the call of an
 * in-file function (or a model's forward) whose every return is such a
 * tuple, the results of accelerator.prepare(a, b).
 * Joins its facts into *out. */
static bool element_facts(Facts *F, const IrFunction *f, ValueId base, uint32_t k, Join *out,
                          int depth)
{
    const Syntax *S = F->S;
    const IrValue *b = val(f, ir_resolve(f, base));
    if (depth > ELEMENT_DEPTH)
        return false;
    if (b->op == IR_BUILD) {
        if (!b->node || (S->nodes[b->node].kind != N_TUPLE && S->nodes[b->node].kind != N_LIST) ||
            k >= b->nargs || starred_up_to(S, b->node, k))
            return false;
        const IrValue *x = val(f, b->args[k]);
        join_add(out, x, x->cls);
        return true;
    }
    if (b->op == IR_ITER_NEXT && b->nargs) {
        /* `for name, loader in [("train", a), ("val", b)]`: element k of
         * every tuple the literal lists */
        const IrValue *it = val(f, ir_resolve(f, b->args[0]));
        if (it->op != IR_BUILD || !it->node || !it->nargs ||
            (S->nodes[it->node].kind != N_TUPLE && S->nodes[it->node].kind != N_LIST) ||
            starred_up_to(S, it->node, it->nargs - 1))
            return false;
        for (uint32_t i = 0; i < it->nargs; i++)
            if (!element_facts(F, f, it->args[i], k, out, depth + 1))
                return false;
        return true;
    }
    if (b->op != IR_CALL || !b->nargs)
        return false;
    const IrValue *callee = val(f, b->args[0]);
    if (prepares_arguments(S, f, callee)) {
        ValueId a = positional_arg(S, b, k);
        if (!a)
            return false;
        join_add(out, val(f, a), val(f, a)->cls);
        return true;
    }
    if (str_is(S, callee->qual, "deepspeed.initialize"))
        return deepspeed_element(F, f, b, k, out);
    if (constructs_in_file_class(callee))
        return false;
    int fi = ir_callee_function(F->ir, f, b->args[0]);
    return fi >= 0 && returned_element(F, fi, k, out, depth);
}

/* A small non-negative integer literal (an index), or -1. */
static int64_t const_index(const Syntax *S, const IrValue *x)
{
    if (x->op != IR_CONST || !x->node || S->nodes[x->node].kind != N_NUMBER)
        return -1;
    const Token *t = &S->toks.v[S->nodes[x->node].first_tok];
    int64_t n = 0;
    for (uint32_t i = 0; i < t->len; i++) {
        char c = S->src[t->start + i];
        if (c < '0' || c > '9' || n > 1000)
            return -1;
        n = n * 10 + (c - '0');
    }
    return t->len ? n : -1;
}

/* `a, b = x` / `x[1]`: the element's own facts when the structure is known. */
static bool facts_of_element(Facts *F, const IrFunction *f, IrValue *v)
{
    const Syntax *S = F->S;
    int64_t k;
    if (v->op == IR_UNPACK) {
        if (!v->node || (S->nodes[v->node].kind != N_TUPLE && S->nodes[v->node].kind != N_LIST) ||
            starred_up_to(S, v->node, v->index))
            return false;
        k = v->index;
    } else {
        k = v->nargs == 2 ? const_index(S, val(f, v->args[1])) : -1;
    }
    const IrValue *b = val(f, ir_resolve(f, v->args[0]));
    if (k >= 0 && b->op == IR_CALL && b->nargs &&
        ir_project_element_facts(F->ir, val(f, b->args[0])->qual, (uint32_t)k, F->cur_fn, v,
                                 (uint32_t)(v - f->values.v)))
        return true;   /* `train_loader, test_loader = get_data()` from another module */
    Join j = {0};
    if (k < 0 || !element_facts(F, f, v->args[0], (uint32_t)k, &j, 0) || !j.seen)
        return false;
    join_store(v, &j, true);
    return true;
}

/* `for m in [gen, disc]`, `for block in self.blocks` (an nn.ModuleList):
 * what every element is. */
static bool facts_of_element_iteration(Facts *F, const IrFunction *f, IrValue *v)
{
    const Syntax *S = F->S;
    const IrValue *it = val(f, ir_resolve(f, v->args[0]));
    static const char *const containers[] = {"torch.nn.ModuleList", "torch.nn.Sequential", NULL};
    if ((it->roles & ROLE_MODEL) && ctor_is(S, it, containers)) {
        set(v, ATT_DETACHED, ROLE_MODEL | (it->roles & ROLE_MODE_DEP));
        v->cls = v->ctor = v->origin = 0;
        return true;
    }
    if (it->op != IR_BUILD || !it->node || !it->nargs ||
        (S->nodes[it->node].kind != N_TUPLE && S->nodes[it->node].kind != N_LIST) ||
        starred_up_to(S, it->node, it->nargs - 1))
        return false;
    Join j = {0};
    for (uint32_t i = 0; i < it->nargs; i++)
        join_add(&j, val(f, it->args[i]), val(f, it->args[i])->cls);
    join_store(v, &j, true);
    return true;
}

/* `loaders["train"]`, `nets[name]`, `for m in nets.values()`, `cfg.get("device")`: the
 * join of the entries the dict may give (ir/dicts.c). Entries of another
 * function wake this one through SEEN_MODULE (mark_dict_entries). */
static bool facts_of_dict_element(Facts *F, const IrFunction *f, IrValue *v)
{
    IrDictHits h;
    if (!ir_dict_element(F->ir, f, (ValueId)(v - f->values.v), &h))
        return false;
    Join j = {0};
    uint32_t may_cuda = 0;
    for (uint32_t i = 0; i < h.n; i++) {
        if (h.fn[i] != F->cur_fn)   /* woken by SEEN_MODULE */
            add_reader(F, &F->global_readers, (int)F->cur_fn);
        const IrValue *x = val(&F->ir->funcs.v[h.fn[i]], h.v[i]);
        join_add(&j, x, x->op == IR_CLASS ? x->index + 1 : x->cls);
        may_cuda |= x->roles & ROLE_CUDA;
    }
    join_store(v, &j, outside_calls(F));
    v->roles |= may_cuda;
    return true;
}

/* ---- identity: methods and wrappers that give back the same model --------------------- */

static const char *const self_returning_methods[] = {
    "eval", "train", "to", "cuda", "cpu", "half", "float", "bfloat16", "double",
    "requires_grad_", "share_memory", "apply", "to_empty", NULL};

/* A wrapper whose result the rules treat as the model it wraps: DDP's
 * forward runs the model's, its eval() sets the model's mode. */
static const char *const transparent_wrappers[] = {
    "torch.compile", "torch.nn.parallel.DistributedDataParallel",
    "torch.nn.parallel.distributed.DistributedDataParallel", "torch.nn.DataParallel",
    "torch.nn.parallel.DataParallel", "torch.distributed.fsdp.FullyShardedDataParallel",
    "torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel",
    "torch.distributed.fsdp.fully_shard", "torch.distributed._composable.fsdp.fully_shard",
    "torch.nn.SyncBatchNorm.convert_sync_batchnorm", "peft.get_peft_model",
    "peft.PeftModel.from_pretrained", "peft.prepare_model_for_kbit_training",
    "peft.prepare_model_for_int8_training", "peft.LoraModel", "peft.PeftModel", NULL};

/* A copy of a model: the same kind of object, a different one (an EMA). */
static const char *const model_copies[] = {
    "copy.deepcopy", "torch.optim.swa_utils.AveragedModel", NULL};

/* The model argument of a wrapper call: the first positional one, or the
 * `module=`/`model=` keyword. */
static const IrValue *wrapped_model(const Syntax *S, const IrFunction *f, const IrValue *v)
{
    ValueId a = positional_arg(S, v, 0);
    for (uint32_t i = 1; !a && v->op == IR_CALL && i < v->nargs; i++)
        if (ir_kwname(v, i) && (str_is(S, ir_kwname(v, i), "module") || str_is(S, ir_kwname(v, i), "model")))
            a = v->args[i];
    return a ? val(f, a) : NULL;
}

/* Wrappers and copies of models (the callee's QualKind says which). */
static void facts_of_model_wrapper(Facts *F, const IrFunction *f, IrValue *v, bool copy)
{
    const Syntax *S = F->S;
    const IrValue *m = wrapped_model(S, f, v);
    if (!m || m->op == IR_FUNC || m->op == IR_CONST ||
        (m->roles & (ROLE_OPTIMIZER | ROLE_LOADER | ROLE_PYNUM)) || (copy && !(m->roles & ROLE_MODEL))) {
        set(v, ATT_MAYBE, 0);   /* torch.compile(step_fn), a copy of something else */
        return;
    }
    same_as(v, m);
    v->attach = ATT_DETACHED;
    v->roles |= ROLE_MODEL | (m->roles & ROLE_MODEL ? 0 : ROLE_MODE_DEP);
    if (copy || !v->origin)
        v->origin = site_of(F->cur_fn, f, v);
}

/* ---- transfer functions --------------------------------------------------------------- */

/* What a library callable makes, by its qualified name alone: the order of
 * the tests matters (a wrapper before the torch.nn layers, ...). */
typedef enum QualKind {
    QK_UNKNOWN = 1, QK_MODEL_COPY, QK_MODEL_WRAPPER, QK_LOSS, QK_LOSS_MODULE, QK_SOFTMAX,
    QK_LOG_SOFTMAX, QK_SIGMOID, QK_SOFTMAX_LAYER, QK_SIGMOID_LAYER, QK_CONTAINER, QK_SCHEDULER,
    QK_OPTIMIZER, QK_LOADER, QK_DEVICE, QK_LAYER, QK_MODE_DEP_LAYER, QK_PRETRAINED, QK_CREATOR,
    QK_PYNUM, QK_ITERABLE_WRAPPER, QK_NEXT, QK_NOT_MATH, QK_TENSOR_FN,
} QualKind;

/* Every name classify_qual knows starts with one of these: anything else
 * (most of what a file calls) is unknown after one look. A root added to the
 * lists below is added here. */
static const char *const known_roots[] = {
    "torch", "copy.", "peft.", "transformers.", "timm.", "bitsandbytes.", "builtins.", "tqdm.", NULL};

static bool under_known_root(const Syntax *S, uint32_t q)
{
    for (const char *const *r = known_roots; *r; r++)
        if (str_prefix(S, q, *r))
            return true;
    return false;
}

static QualKind classify_qual(const Syntax *S, uint32_t q)
{
    if (!under_known_root(S, q))
        return QK_UNKNOWN;
    if (name_in(S, q, model_copies))
        return QK_MODEL_COPY;
    if (name_in(S, q, transparent_wrappers))
        return QK_MODEL_WRAPPER;
    if (name_in(S, q, loss_functions))
        return QK_LOSS;
    if (name_in(S, q, loss_modules))
        return QK_LOSS_MODULE;
    if (str_is(S, q, "torch.nn.functional.softmax") || str_is(S, q, "torch.softmax"))
        return QK_SOFTMAX;
    if (str_is(S, q, "torch.nn.functional.log_softmax") || str_is(S, q, "torch.log_softmax"))
        return QK_LOG_SOFTMAX;
    if (str_is(S, q, "torch.sigmoid") || str_is(S, q, "torch.nn.functional.sigmoid"))
        return QK_SIGMOID;
    if (str_is(S, q, "torch.nn.Softmax"))
        return QK_SOFTMAX_LAYER;
    if (str_is(S, q, "torch.nn.Sigmoid"))
        return QK_SIGMOID_LAYER;
    if (str_is(S, q, "torch.nn.Sequential") || str_is(S, q, "torch.nn.ModuleList"))
        return QK_CONTAINER;
    if (str_prefix(S, q, "torch.optim.lr_scheduler."))
        return QK_SCHEDULER;
    if (str_prefix(S, q, "torch.optim.") || str_prefix(S, q, "bitsandbytes.optim."))
        return QK_OPTIMIZER;
    if (str_is(S, q, "torch.utils.data.DataLoader") ||
        str_is(S, q, "torch.utils.data.dataloader.DataLoader"))
        return QK_LOADER;
    if (str_is(S, q, "torch.device"))
        return QK_DEVICE;
    if (str_prefix(S, q, "torch.nn.") && !str_prefix(S, q, "torch.nn.functional.") &&
        !str_prefix(S, q, "torch.nn.utils.") && !str_prefix(S, q, "torch.nn.init.")) {
        /* a layer or a wrapper (DDP): Dropout and normalisation layers, and
         * wrappers of unknown models, behave differently in eval mode */
        bool dep = str_contains(S, q, "Dropout") || str_contains(S, q, "Norm") ||
                   str_contains(S, q, "parallel");
        return dep ? QK_MODE_DEP_LAYER : QK_LAYER;
    }
    if (str_prefix(S, q, "transformers.AutoModel") || str_prefix(S, q, "torchvision.models.") ||
        str_prefix(S, q, "timm.create_model"))
        return QK_PRETRAINED;
    if (name_in(S, q, creators))
        return QK_CREATOR;
    if (name_in(S, q, pynum_builtins))
        return QK_PYNUM;
    if (str_is(S, q, "builtins.enumerate") || str_is(S, q, "builtins.iter") ||
        str_is(S, q, "builtins.zip") || str_prefix(S, q, "tqdm."))
        return QK_ITERABLE_WRAPPER;
    if (str_is(S, q, "builtins.next"))
        return QK_NEXT;
    if (str_prefix(S, q, "torch.distributed.") || str_prefix(S, q, "torch.utils.") ||
        str_prefix(S, q, "torch.jit.") || str_prefix(S, q, "torch.fx."))
        return QK_NOT_MATH;
    if (str_prefix(S, q, "torch."))
        return QK_TENSOR_FN;
    return QK_UNKNOWN;
}

/* Once per name and file, not once per value and fixpoint round. */
static QualKind qual_kind(Facts *F, uint32_t q)
{
    if (q >= F->nnames)
        return classify_qual(F->S, q);
    if (!F->qual_kinds[q])
        F->qual_kinds[q] = (uint8_t)classify_qual(F->S, q);
    return (QualKind)F->qual_kinds[q];
}

static void facts_of_qualified_call(Facts *F, const IrFunction *f, IrValue *v, const IrValue *callee)
{
    const Syntax *S = F->S;
    uint32_t q = callee->qual;
    if (ir_project_call_facts(F->ir, q, F->cur_fn, v, (uint32_t)(v - f->values.v))) {
        /* a class or helper of another module of the project: a new object */
        if ((v->roles & (ROLE_MODEL | ROLE_OPTIMIZER | ROLE_LOADER | ROLE_SCHEDULER)) && !v->origin)
            v->origin = site_of(F->cur_fn, f, v);
        return;
    }
    v->ctor = q;   /* which library callable made this value: nn.CrossEntropyLoss, ... */
    QualKind kind = qual_kind(F, q);
    if (kind == QK_MODEL_COPY || kind == QK_MODEL_WRAPPER) {
        facts_of_model_wrapper(F, f, v, kind == QK_MODEL_COPY);
        return;
    }
    Attach in = ATT_BOTTOM;
    for (uint32_t i = 1; i < v->nargs; i++)
        in = attach_any(in, (Attach)val(f, v->args[i])->attach);
    switch (kind) {
    case QK_LOSS:
        set(v, in, ROLE_LOSS | ROLE_SCALAR);
        break;
    case QK_LOSS_MODULE:
        set(v, ATT_DETACHED, ROLE_LOSS_FN);
        break;
    case QK_SOFTMAX:
        set(v, in, ROLE_SOFTMAX);
        break;
    case QK_LOG_SOFTMAX:
        set(v, in, ROLE_LOG_SOFTMAX);
        break;
    case QK_SIGMOID:
        set(v, in, ROLE_SIGMOID);
        break;
    case QK_SOFTMAX_LAYER:
        set(v, ATT_DETACHED, ROLE_MODEL | ROLE_SOFTMAX);
        break;
    case QK_SIGMOID_LAYER:
        set(v, ATT_DETACHED, ROLE_MODEL | ROLE_SIGMOID);
        break;
    case QK_CONTAINER: {
        /* a container is mode-dependent if a layer is; it ends in its last layer */
        uint32_t roles = ROLE_MODEL;
        for (uint32_t i = 1; i < v->nargs; i++)
            roles |= val(f, v->args[i])->roles & ROLE_MODE_DEP;
        if (v->nargs > 1)
            roles |= val(f, v->args[v->nargs - 1])->roles & (ROLE_SOFTMAX | ROLE_SIGMOID);
        set(v, ATT_DETACHED, roles);
        break;
    }
    case QK_SCHEDULER:
        set(v, ATT_DETACHED, ROLE_SCHEDULER);
        break;
    case QK_OPTIMIZER:
        set(v, ATT_DETACHED, ROLE_OPTIMIZER);
        break;
    case QK_LOADER:
        set(v, ATT_DETACHED, ROLE_LOADER);
        break;
    case QK_DEVICE:
        set(v, ATT_DETACHED, ROLE_DEVICE | (cuda_argument(f, v) ? ROLE_CUDA : 0));
        break;
    case QK_LAYER:
    case QK_MODE_DEP_LAYER:
        set(v, ATT_DETACHED, ROLE_MODEL | (kind == QK_MODE_DEP_LAYER ? ROLE_MODE_DEP : 0));
        break;
    case QK_PRETRAINED:
        set(v, ATT_DETACHED, ROLE_MODEL | ROLE_MODE_DEP);
        break;
    case QK_CREATOR: {
        bool grad = false;
        for (uint32_t i = 1; i < v->nargs; i++)
            if (ir_kwname(v, i) && str_is(S, ir_kwname(v, i), "requires_grad"))
                grad = val(f, v->args[i])->op == IR_CONST &&
                       S->toks.v[S->nodes[val(f, v->args[i])->node].first_tok].kind == T_KW_TRUE;
        set(v, grad ? ATT_ATTACHED : ATT_DETACHED, 0);
        break;
    }
    case QK_PYNUM:
        set(v, ATT_DETACHED, ROLE_PYNUM);
        break;
    case QK_ITERABLE_WRAPPER: {
        /* wrappers over an iterable keep what the iterable yields */
        uint32_t roles = 0;
        for (uint32_t i = 1; i < v->nargs; i++) {
            roles |= val(f, v->args[i])->roles & ROLE_LOADER;
            if (val(f, v->args[i])->origin)
                v->origin = val(f, v->args[i])->origin;
        }
        set(v, in, roles);
        break;
    }
    case QK_NEXT:
        if (v->nargs >= 2 && (val(f, v->args[1])->roles & ROLE_LOADER))
            set(v, ATT_DETACHED, ROLE_BATCH);   /* next(iter(loader)) */
        else
            set(v, ATT_MAYBE, 0);
        break;
    case QK_NOT_MATH:
        set(v, ATT_MAYBE, 0);   /* not tensor math: what comes back is unknown */
        break;
    case QK_TENSOR_FN:
        set(v, in == ATT_BOTTOM ? ATT_DETACHED : in, 0);   /* tensor functions propagate */
        break;
    default:
        set(v, ATT_MAYBE, 0);
        break;
    }
    if ((v->roles & (ROLE_MODEL | ROLE_OPTIMIZER | ROLE_LOADER | ROLE_SCHEDULER)) && !v->origin)
        v->origin = site_of(F->cur_fn, f, v);   /* a new object */
}

/* What a method name says, by the name alone. */
enum {
    METHOD_CLASSIFIED = 1, METHOD_SELF_RETURNING = 2, METHOD_UNWRAPS = 4, METHOD_KILLS = 8,
    METHOD_ITEM = 16, METHOD_PARAMETERS = 32, METHOD_CUDA = 64, METHOD_TO = 128,
    METHOD_REDUCTION = 256, METHOD_SOFTMAX = 512, METHOD_LOG_SOFTMAX = 1024, METHOD_SIGMOID = 2048,
    /* attribute names, in the same table */
    ATTR_GRAPHLESS = 4096, ATTR_WRAPPED_MODEL = 8192, NAME_SELF = 16384,
};

static uint16_t classify_method(const Syntax *S, uint32_t m)
{
    uint16_t b = METHOD_CLASSIFIED;
    b |= name_in(S, m, self_returning_methods) ? METHOD_SELF_RETURNING : 0;
    b |= str_is(S, m, "unwrap_model") || str_is(S, m, "setup_module") ? METHOD_UNWRAPS : 0;
    b |= name_in(S, m, killing_methods) ? METHOD_KILLS : 0;
    b |= str_is(S, m, "item") ? METHOD_ITEM : 0;
    b |= str_is(S, m, "parameters") || str_is(S, m, "named_parameters") ? METHOD_PARAMETERS : 0;
    b |= str_is(S, m, "cuda") ? METHOD_CUDA : 0;
    b |= str_is(S, m, "to") ? METHOD_TO : 0;
    b |= name_in(S, m, reductions) ? METHOD_REDUCTION : 0;
    b |= str_is(S, m, "softmax") ? METHOD_SOFTMAX : 0;
    b |= str_is(S, m, "log_softmax") ? METHOD_LOG_SOFTMAX : 0;
    b |= str_is(S, m, "sigmoid") ? METHOD_SIGMOID : 0;
    b |= name_in(S, m, graphless_attributes) ? ATTR_GRAPHLESS : 0;
    b |= str_is(S, m, "module") || str_is(S, m, "_orig_mod") ? ATTR_WRAPPED_MODEL : 0;
    b |= str_is(S, m, "self") ? NAME_SELF : 0;
    return b;
}

static uint16_t method_bits(Facts *F, uint32_t m)
{
    if (m >= F->nnames)
        return classify_method(F->S, m);
    if (!F->method_bits[m])
        F->method_bits[m] = classify_method(F->S, m);
    return F->method_bits[m];
}

static void facts_of_method_call(Facts *F, const IrFunction *f, IrValue *v, const IrValue *callee)
{
    const Syntax *S = F->S;
    const IrValue *recv = val(f, callee->args[0]);
    uint16_t m = method_bits(F, callee->name);
    if ((recv->roles & ROLE_MODEL) && (m & METHOD_SELF_RETURNING)) {
        same_as(v, recv);   /* model.to(device).eval() is the model */
        return;
    }
    if (prepares_arguments(S, f, callee) ||
        ((m & METHOD_UNWRAPS) && ctor_is(S, recv, accelerators))) {
        ValueId only = v->nargs == 2 ? positional_arg(S, v, 0) : 0;
        if (only)
            same_as(v, val(f, only));   /* model = accelerator.prepare(model) */
        else
            set(v, ATT_MAYBE, 0);       /* a tuple: its elements are read by UNPACK */
        return;
    }
    if (m & METHOD_KILLS) {
        set(v, ATT_DETACHED, m & METHOD_ITEM ? ROLE_PYNUM : 0);
        return;
    }
    if ((recv->roles & ROLE_MODEL) && (m & METHOD_PARAMETERS)) {
        set(v, ATT_ATTACHED, ROLE_PARAM);
        return;
    }
    Attach a = (Attach)recv->attach;
    if (recv->cls || (recv->roles & (ROLE_MODEL | ROLE_OPTIMIZER | ROLE_LOADER)))
        a = ATT_MAYBE;   /* a method of an object, not tensor math */
    uint32_t roles = 0;
    if ((m & METHOD_CUDA) ||
        ((m & METHOD_TO) && ((recv->roles & ROLE_CUDA) || cuda_argument(f, v))))
        roles |= ROLE_CUDA;
    if ((m & METHOD_REDUCTION) && v->nargs == 1)
        roles |= ROLE_SCALAR;
    if (m & METHOD_SOFTMAX)
        roles |= ROLE_SOFTMAX;
    if (m & METHOD_LOG_SOFTMAX)
        roles |= ROLE_LOG_SOFTMAX;
    if (m & METHOD_SIGMOID)
        roles |= ROLE_SIGMOID;
    if (recv->roles & (ROLE_LOSS | ROLE_SCALAR))
        roles |= recv->roles & (ROLE_LOSS | ROLE_SCALAR);
    if (a == ATT_BOTTOM)
        a = ATT_MAYBE;
    set(v, a, roles);
}

static bool constructs_in_file_class(const IrValue *callee)
{
    return callee->op == IR_CLASS || (callee->op == IR_GLOBAL && callee->cls && !callee->qual);
}

/* The arguments a call passes to an in-file function or constructor, also
 * while the call's own result waits for its other operands. */
static void record_in_file_call(Facts *F, const IrFunction *f, const IrValue *v)
{
    const IrValue *callee = val(f, v->args[0]);
    if (constructs_in_file_class(callee)) {
        uint32_t c = callee->op == IR_CLASS ? callee->index + 1 : callee->cls;
        int init = method_of(F->ir, c, intern((Interner *)&F->S->names, "__init__", 8));
        if (init >= 0)
            note_call(F, f, v, init, 1);   /* Trainer(model, opt): self.model is a model */
        return;
    }
    int fi = ir_callee_function(F->ir, f, v->args[0]);
    if (fi >= 0)
        note_call(F, f, v, fi, callee->op == IR_ATTR || callee->cls ? 1 : 0);
}

/* The parameter that every return of in-file function fi gives back as
 * itself (`return m`, `return m.to(device)`), or -1. A call of such a helper
 * takes the facts of its own argument, not the join over all call sites:
 * `to_device(model)` stays the model where `to_device(batch)` is called too. */
static int returned_param(const Facts *F, int fi)
{
    const IrFunction *g = &F->ir->funcs.v[fi];
    int p = -1;
    for (uint32_t i = 0; i < g->returns.n; i++) {
        const IrValue *r = &g->values.v[g->returns.v[i]];
        if (!r->nargs)
            return -1;
        const IrValue *x = val(g, ir_resolve(g, r->args[0]));
        for (int guard = 0; guard < 8 && x->op == IR_CALL && x->nargs; guard++) {
            const IrValue *c = val(g, x->args[0]);
            if (c->op != IR_ATTR || !c->nargs || !name_in(F->S, c->name, self_returning_methods))
                break;
            x = val(g, ir_resolve(g, c->args[0]));
        }
        if (x->op != IR_PARAM || (p >= 0 && (uint32_t)p != x->index))
            return -1;
        p = (int)x->index;
    }
    return p;
}

ValueId ir_call_argument(const IrValue *v, const IrFunction *g, uint32_t skip_self, uint32_t slot)
{
    if (slot < skip_self || slot >= g->params.n)
        return 0;
    uint32_t pos = skip_self, pname = g->values.v[g->params.v[slot]].name;
    for (uint32_t a = 1; a < v->nargs; a++) {
        uint32_t kw = ir_kwname(v, a);
        if (kw ? kw == pname : pos++ == slot)
            return v->args[a];
    }
    return 0;
}

static void facts_of_call(Facts *F, const IrFunction *f, IrValue *v)
{
    const IrValue *callee = val(f, v->args[0]);
    int fi = ir_callee_function(F->ir, f, v->args[0]);
    record_in_file_call(F, f, v);
    if (constructs_in_file_class(callee)) {
        uint32_t c = callee->op == IR_CLASS ? callee->index + 1 : callee->cls;
        const IrClass *k = &F->ir->classes.v[c - 1];
        set(v, ATT_DETACHED, k->is_module ? ROLE_MODEL | ROLE_MODE_DEP : 0);
        v->cls = c;
        v->ctor = 0;
        v->origin = site_of(F->cur_fn, f, v);
        return;
    }
    if (fi >= 0) {
        Join j = join_returns(F->ir, fi);
        bool forward = (callee->roles & ROLE_MODEL) || callee->cls;
        int p = forward ? -1 : returned_param(F, fi);
        ValueId arg = p >= 0 ? ir_call_argument(v, &F->ir->funcs.v[fi], callee->op == IR_ATTR ? 1 : 0,
                                                (uint32_t)p)
                             : 0;
        if (arg && val(f, arg)->attach != ATT_BOTTOM) {   /* a context per call */
            same_as(v, val(f, arg));
            v->roles |= j.roles & ROLE_CUDA;   /* `x.to(device)`: the may-fact of the returns */
            return;
        }
        if (j.attach == ATT_BOTTOM && !outside_calls(F) && !forward)
            return;   /* the callee's returns are not known yet */
        join_store(v, &j, true);
        if (forward) {   /* a model's output carries its graph; it is not the model */
            v->attach = (uint8_t)attach_any((Attach)v->attach, ATT_ATTACHED);
            v->roles &= ~(ROLE_MODEL | ROLE_MODE_DEP);
            v->origin = v->ctor = 0;
        }
        return;
    }
    if (callee->roles & ROLE_LOSS_FN) {
        Attach in = ATT_BOTTOM;
        for (uint32_t i = 1; i < v->nargs; i++)
            in = attach_any(in, (Attach)val(f, v->args[i])->attach);
        set(v, in, ROLE_LOSS | ROLE_SCALAR);
        return;
    }
    if (callee->roles & ROLE_MODEL) {
        set(v, ATT_ATTACHED, callee->roles & (ROLE_SOFTMAX | ROLE_SIGMOID));
        return;
    }
    if (callee->qual) {
        facts_of_qualified_call(F, f, v, callee);
        return;
    }
    if (callee->op == IR_ATTR && callee->nargs) {
        facts_of_method_call(F, f, v, callee);
        return;
    }
    set(v, ATT_MAYBE, 0);
}

/* Every `self.<name> = value` in a class's methods, found once per file so
 * that each `self.x` read scans only the stores. */
static void index_self_stores(Facts *F)
{
    const Ir *ir = F->ir;
    F->self_stores = arena_zalloc(F->T, (ir->classes.n + 1) * sizeof *F->self_stores);
    for (uint32_t c = 0; c < ir->classes.n; c++) {
        const IrClass *k = &ir->classes.v[c];
        for (uint32_t m = 0; m < k->methods.n; m++) {
            const IrFunction *g = &ir->funcs.v[k->methods.v[m]];
            if (!g->params.n)
                continue;
            ValueId self = g->params.v[0];
            for (uint32_t i = 1; i < g->values.n; i++) {
                const IrValue *s = &g->values.v[i];
                if (s->op != IR_STORE_ATTR || s->args[0] != self)
                    continue;
                SelfStore st = {s->name, &g->values.v[s->args[1]]};
                VEC_PUSH(F->T, F->self_stores[c], st);
            }
        }
    }
}

/* ---- modules recognised by use ------------------------------------------------------- */

/* `x.eval()`, `x.parameters()`, `x.named_modules()`...: only an nn.Module
 * answers these, so x is one even when pfc cannot see where it was built
 * (a factory, an import). `train()`, `zero_grad()`, `state_dict()` are not
 * evidence: trainers and optimizers have them too. */
static const char *const module_only_methods[] = {
    "eval", "parameters", "named_parameters", "modules", "named_modules", "children",
    "named_children", "buffers", "named_buffers", "register_forward_hook",
    "register_forward_pre_hook", NULL};

static bool used_as_module(const Facts *F, uint32_t cls1, uint32_t name)
{
    for (uint32_t i = 0; i < F->module_attrs.n; i++)
        if (F->module_attrs.v[i].cls1 == cls1 && F->module_attrs.v[i].name == name)
            return true;
    return false;
}

/* The roles a value used as a module gains: a model, and one that may
 * depend on train/eval mode unless its in-file class says otherwise. */
static uint32_t module_use_roles(const Facts *F, const IrValue *v)
{
    if (v->roles & (ROLE_MODEL | ROLE_OPTIMIZER | ROLE_LOADER | ROLE_SCHEDULER | ROLE_LOSS |
                    ROLE_PYNUM))
        return 0;   /* known already, or known to be something else */
    if (v->cls)
        return 0;   /* an in-file class that is not a module: `evaluator.eval()` */
    const ProjectExport *e = v->ctor ? ir_project_export(F->ir, v->ctor) : NULL;
    if (e && e->kind == EXPORT_CLASS && !(e->flags & EXPORT_NN_MODULE))
        return 0;   /* a project class pfc read, not a module */
    return ROLE_MODEL | ROLE_MODE_DEP;
}

/* r is used as a module: so is what it was made from by methods that
 * return their receiver (`m = ckpt["model"]; m = m.to(device); m.eval()`:
 * the first binding is the same module). */
static void pin_module_object(Facts *F, IrFunction *f, IrValue *r)
{
    for (int depth = 0; depth < 8; depth++) {
        r->flags |= IRV_MODULE_USE;
        if (r->op != IR_CALL || r->nargs < 1)
            return;
        const IrValue *c = &f->values.v[r->args[0]];
        if (c->op != IR_ATTR || !c->nargs || !(method_bits(F, c->name) & METHOD_SELF_RETURNING))
            return;
        r = &f->values.v[ir_resolve(f, c->args[0])];
        if (r->op == IR_GLOBAL && r->qual)
            return;
    }
}

/* Marks the receivers of module-only methods, before the fixpoint: the SSA
 * value itself, every module-level definition of a global read in a
 * function, or the class attribute for `self.<name>`. */
static void pin_module_receivers(Facts *F)
{
    Ir *ir = (Ir *)F->ir;
    Syntax *S = ir->syn;
    for (uint32_t fi = 0; fi < ir->funcs.n; fi++) {
        IrFunction *f = &ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = &f->values.v[i];
            if (v->op != IR_CALL)
                continue;
            const IrValue *c = &f->values.v[v->args[0]];
            if (c->op != IR_ATTR || !c->nargs || !name_in(S, c->name, module_only_methods))
                continue;
            IrValue *r = &f->values.v[ir_resolve(f, c->args[0])];
            if (r->op == IR_GLOBAL && r->qual)
                continue;   /* an imported module or library object */
            pin_module_object(F, f, r);
            if (r->op == IR_GLOBAL && fi)
                for (uint32_t d = r->name < ir->nnames ? ir->last_def[r->name] : 0; d;
                     d = ir->prev_def[d - 1])
                    pin_module_object(F, &ir->funcs.v[0],
                                      &ir->funcs.v[0].values.v[ir->module_defs.v[d - 1].value]);
            const IrValue *base = r->op == IR_ATTR && r->nargs ? &f->values.v[r->args[0]] : NULL;
            if (base && base->op == IR_PARAM && base->index == 0 && f->class_index >= 0) {
                ModuleUse u = {(uint32_t)f->class_index + 1, r->name};
                VEC_PUSH(F->T, F->module_attrs, u);
            }
        }
    }
}

/* self.<name> in a method: the join of what the class's methods store there. */
static void facts_of_class_attr(Facts *F, IrValue *v, uint32_t cls1)
{
    Join j = {0};
    uint32_t roles = 0;
    bool stored = false;
    for (uint32_t i = 0; i < F->self_stores[cls1 - 1].n; i++) {
        const SelfStore *st = &F->self_stores[cls1 - 1].v[i];
        if (st->name != v->name)
            continue;
        stored = true;
        roles |= st->value->roles;   /* what some method may store there */
        if (st->value->op == IR_CONST)   /* `self.model = None` until set up */
            j.attach = attach_join(j.attach, (Attach)st->value->attach);
        else
            join_add(&j, st->value, st->value->cls);
    }
    /* stores not computed yet: wait for them rather than guess MAYBE */
    join_store(v, &j, outside_calls(F) || !stored);
    v->roles = roles | (used_as_module(F, cls1, v->name) ? module_use_roles(F, v) : 0);
}

static void facts_of_global(Facts *F, IrValue *v)
{
    if (ir_project_global_facts(F->ir, v))
        return;   /* `from config import device` */
    if (v->qual) {
        set(v, ATT_DETACHED, 0);
        return;
    }
    Join j = {0};
    bool defined = false;
    const IrFunction *m = &F->ir->funcs.v[0];
    const Ir *ir = F->ir;
    for (uint32_t i = v->name < ir->nnames ? ir->last_def[v->name] : 0; i; i = ir->prev_def[i - 1]) {
        const IrModuleDef *d = &ir->module_defs.v[i - 1];
        const IrValue *x = &m->values.v[d->value];
        join_add(&j, x, x->op == IR_CLASS ? x->index + 1 : x->cls);
        defined = true;
    }
    join_store(v, &j, outside_calls(F) || !defined);
}

static void facts_of_param(Facts *F, int fi, IrValue *v)
{
    const IrFunction *g = &F->ir->funcs.v[fi];
    /* the instance: the first parameter of a method, by convention `self`
     * (a classmethod's `cls` or a staticmethod's first argument is not) */
    if (v->index == 0 && g->class_index >= 0 && g->kind == SCOPE_FUNCTION &&
        (method_bits(F, v->name) & NAME_SELF)) {
        const IrClass *c = &F->ir->classes.v[g->class_index];
        set(v, ATT_DETACHED, c->is_module ? ROLE_MODEL : 0);   /* self */
        v->cls = (uint32_t)g->class_index + 1;
        return;
    }
    uint32_t slot = 0;
    for (; slot < g->params.n; slot++)
        if (&g->values.v[g->params.v[slot]] == v)
            break;
    const struct ParamFacts *pf = slot < g->params.n ? &F->params[fi][slot] : NULL;
    if (!pf || !pf->called) {
        /* called from outside the file, or not at all: known only once every
         * in-file call has been seen */
        set(v, outside_calls(F) ? ATT_MAYBE : ATT_BOTTOM, 0);
        return;
    }
    set(v, (Attach)pf->attach, pf->roles);
    v->cls = pf->cls;
    v->origin = pf->origin;
    v->ctor = pf->ctor;
}

/* The output of a model call, attached: `outputs = model(**batch)`. */
static bool model_output(const IrFunction *f, ValueId x)
{
    const IrValue *o = val(f, ir_resolve(f, x));
    return o->op == IR_CALL && o->nargs && o->attach == ATT_ATTACHED &&
           (val(f, o->args[0])->roles & ROLE_MODEL);
}

static bool key_is(const Syntax *S, const IrValue *k, const char *text)
{
    const char *t;
    uint32_t len;
    return k->node && S->nodes[k->node].kind == N_STRING && ir_const_key(S, k, &t, &len) &&
           len == strlen(text) && memcmp(t, text, len) == 0;
}

static void transfer(Facts *F, int fi, IrFunction *f, IrValue *v)
{
    Attach in = ATT_BOTTOM;
    switch ((IrOp)v->op) {
    case IR_CONST: set(v, ATT_DETACHED, ROLE_PYNUM | (cuda_string(F->S, v) ? ROLE_CUDA : 0)); break;
    case IR_UNDEF: case IR_NONE: set(v, ATT_BOTTOM, 0); break;
    case IR_PARAM: facts_of_param(F, fi, v); break;
    case IR_GLOBAL: facts_of_global(F, v); break;
    case IR_PHI: case IR_BOOLOP: {
        Join j = {0};
        uint32_t may_cuda = 0;
        for (uint32_t i = 0; i < v->nargs; i++) {
            const IrValue *x = val(f, v->args[i]);
            join_add(&j, x, x->cls);
            /* ROLE_CUDA is a may-fact: `"cuda" if available else "cpu"` is a
             * script meant for a GPU */
            may_cuda |= x->roles & ROLE_CUDA;
        }
        join_store(v, &j, false);
        v->roles |= may_cuda;
        break;
    }
    case IR_BINOP: case IR_UNARY: case IR_AWAIT: case IR_BUILD: {
        uint32_t roles = 0;
        bool params_only = v->op == IR_BUILD, attached = false;
        if (!v->nargs)
            in = ATT_DETACHED;   /* an empty container */
        for (uint32_t i = 0; i < v->nargs; i++) {
            const IrValue *x = val(f, v->args[i]);
            in = attach_any(in, (Attach)x->attach);
            roles |= x->roles & (ROLE_LOSS | ROLE_SCALAR | ROLE_CUDA);
            if (x->attach == ATT_ATTACHED) {
                attached = true;
                params_only &= (x->roles & ROLE_PARAM) != 0;
            }
        }
        if ((IrOp)v->op == IR_BUILD)   /* a param group {"params": [...]} holds leaves only */
            roles = (roles & (ROLE_LOSS | ROLE_SCALAR)) | (params_only && attached ? ROLE_PARAM : 0);
        set(v, in, roles);
        break;
    }
    case IR_COMPARE: set(v, ATT_DETACHED, ROLE_PYNUM); break;
    case IR_ATTR: {
        const IrValue *base = val(f, v->args[0]);
        if (ir_project_global_facts(F->ir, v))
            break;   /* `config.device` */
        if (v->qual || base->qual || (method_bits(F, v->name) & ATTR_GRAPHLESS)) {
            set(v, ATT_DETACHED, 0);   /* p.grad / x.data carry no graph */
        } else if (base->cls && base->op == IR_PARAM && base->index == 0) {
            facts_of_class_attr(F, v, base->cls);
        } else if ((base->roles & ROLE_MODEL) &&
                   (method_bits(F, v->name) & ATTR_WRAPPED_MODEL)) {
            same_as(v, base);   /* the model a DDP or torch.compile wrapper holds */
        } else {
            /* model.x may be a submodule, a method or a config: not a model */
            set(v, base->attach == ATT_BOTTOM ? ATT_MAYBE : (Attach)base->attach,
                base->roles & (ROLE_LOSS | ROLE_BATCH));
            if (str_is(F->S, v->name, "loss") && model_output(f, v->args[0]))
                v->roles |= ROLE_LOSS | ROLE_SCALAR;   /* Hugging Face's outputs.loss */
        }
        break;
    }
    case IR_SUBSCR: case IR_UNPACK: {
        if (facts_of_element(F, f, v) || facts_of_dict_element(F, f, v))
            break;
        const IrValue *base = val(f, v->args[0]);
        set(v, (Attach)base->attach, base->roles & (ROLE_BATCH | ROLE_LOSS | ROLE_PARAM));
        if (v->op == IR_SUBSCR && v->nargs == 2 && key_is(F->S, val(f, v->args[1]), "loss") &&
            model_output(f, v->args[0]))
            v->roles |= ROLE_LOSS | ROLE_SCALAR;   /* outputs["loss"] */
        break;
    }
    case IR_ITER_NEXT: {
        const IrValue *it = val(f, v->args[0]);
        if (it->roles & ROLE_LOADER)
            set(v, ATT_DETACHED, ROLE_BATCH);
        else if (facts_of_element_iteration(F, f, v) || facts_of_dict_element(F, f, v))
            break;
        else
            set(v, (Attach)it->attach, it->roles & (ROLE_PARAM | ROLE_LOSS | ROLE_SCALAR));
        break;
    }
    case IR_CALL:
        if (!facts_of_dict_element(F, f, v))
            facts_of_call(F, f, v);
        break;
    case IR_WITH_ENTER: case IR_YIELD: case IR_OPAQUE:
        set(v, ATT_MAYBE, 0);
        break;
    default:
        set(v, ATT_DETACHED, 0);
        break;
    }
    if (v->flags & IRV_MODULE_USE)
        v->roles |= module_use_roles(F, v);
    if ((v->flags & IRV_BACKWARD_RECV) && v->attach != ATT_DETACHED)
        v->attach = ATT_ATTACHED;
    /* inside no_grad nothing new is attached */
    if (v->grad == GRAD_DISABLED && v->op != IR_PHI && v->op != IR_PARAM &&
        v->op != IR_GLOBAL && v->attach == ATT_ATTACHED && v->op != IR_ATTR)
        v->attach = ATT_DETACHED;
}

/* While the in-file calls are followed, a value computed from an operand
 * still at BOTTOM (a parameter no call has reached, a callee not evaluated
 * yet) waits: computing it now would guess MAYBE, the lattice top, and the
 * guess would stick. Phis and boolean operators join what is known. */
static bool waits_for_operands(Facts *F, const IrFunction *f, const IrValue *v)
{
    if (v->op == IR_PHI || v->op == IR_BOOLOP)
        return false;
    for (uint32_t i = 0; i < v->nargs; i++)
        if (val(f, v->args[i])->attach == ATT_BOTTOM)
            return !outside_calls(F);
    return false;
}

/* Readers are kept sorted: a module-level definition may be read by every
 * function of the file, and a linear membership test would be quadratic. */
static void add_reader(Facts *F, Readers *r, int fi)
{
    if (r->stamp == F->run)
        return;   /* already noted during this run */
    r->stamp = F->run;
    uint32_t lo = 0, hi = r->fns.n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (r->fns.v[mid] < (uint32_t)fi)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < r->fns.n && r->fns.v[lo] == (uint32_t)fi)
        return;
    VEC_PUSH(F->T, r->fns, (uint32_t)fi);
    memmove(r->fns.v + lo + 1, r->fns.v + lo, (r->fns.n - 1 - lo) * sizeof *r->fns.v);
    r->fns.v[lo] = (uint32_t)fi;
}

/* What v's transfer reads outside function fi: the facts whose change must
 * run fi again. Generous on purpose: a reader too many costs a run, one too
 * few a wrong fact. */
static void note_reads(Facts *F, int fi, const IrFunction *f, const IrValue *v)
{
    if (v->op == IR_CALL) {
        int g = ir_callee_function(F->ir, f, v->args[0]);
        if (g >= 0)
            add_reader(F, &F->return_readers[g], fi);
    } else if (v->op == IR_GLOBAL && !v->qual) {
        add_reader(F, &F->global_readers, fi);
    } else if (v->op == IR_ATTR && v->nargs && val(f, v->args[0])->cls) {
        add_reader(F, &F->store_readers[val(f, v->args[0])->cls - 1], fi);
    }
}

static void wake_readers(Facts *F, const Readers *r)
{
    for (uint32_t i = 0; i < r->fns.n; i++)
        F->pending[r->fns.v[i]] = 1;
}

/* Values of function fi that others read changed: run the readers again. */
static void wake_dependents(Facts *F, int fi)
{
    if (F->woke & SEEN_RETURNED)
        wake_readers(F, &F->return_readers[fi]);
    if ((F->woke & SEEN_STORED) && F->class_of[fi])
        wake_readers(F, &F->store_readers[F->class_of[fi] - 1]);
    if (F->woke & SEEN_MODULE)
        wake_readers(F, &F->global_readers);
    if (F->woke & SEEN_BACK)
        F->pending[fi] = 1;
}

static void run_function(Facts *F, int fi)
{
    IrFunction *f = &F->ir->funcs.v[fi];
    F->cur_fn = (uint32_t)fi;
    F->woke = 0;
    F->run++;
    for (uint32_t b = 0; b < f->blocks.n; b++) {
        IrBlock *blk = &f->blocks.v[b];
        for (uint32_t i = 0; i < blk->values.n; i++) {
            IrValue *v = &f->values.v[blk->values.v[i]];
            if (v->op == IR_PHI && v->index)
                continue;   /* forwarded */
            IrValue old = *v;
            if (waits_for_operands(F, f, v)) {
                if (v->op == IR_CALL && val(f, v->args[0])->attach != ATT_BOTTOM)
                    record_in_file_call(F, f, v);
                continue;
            }
            note_reads(F, fi, f, v);
            transfer(F, fi, f, v);
            /* attachment only moves up its lattice; roles are recomputed (the
             * round limit in run_to_fixpoint bounds any oscillation) */
            v->attach = (uint8_t)attach_join((Attach)old.attach, (Attach)v->attach);
            if (v->attach != old.attach || v->roles != old.roles || v->cls != old.cls ||
                v->origin != old.origin || v->ctor != old.ctor)
                F->woke |= F->seen[fi][blk->values.v[i]];
        }
    }
    wake_dependents(F, fi);
}

/* `x.backward()` only runs on a tensor attached to the graph: where the
 * analysis could not tell (an uncalled helper's parameters), the call proves
 * it. The receivers are pinned before the fixpoint, so what is computed from
 * them (loss * 2) sees it too. */
static void pin_backward_receivers(Ir *ir)
{
    uint32_t backward = intern(&ir->syn->names, "backward", 8);
    for (uint32_t fi = 0; fi < ir->funcs.n; fi++) {
        IrFunction *f = &ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = &f->values.v[i];
            if (v->op != IR_CALL || v->nargs != 1)
                continue;
            const IrValue *c = &f->values.v[v->args[0]];
            if (c->op != IR_ATTR || c->name != backward || !c->nargs)
                continue;
            IrValue *r = &f->values.v[c->args[0]];
            if (r->grad != GRAD_DISABLED)
                r->flags |= IRV_BACKWARD_RECV;
        }
    }
}

/* SEEN_BACK: the values of f read by a value run before them (a loop's
 * phi reads its latch's value): their change changes f again. */
static void mark_read_back(const IrFunction *f, uint32_t *pos, uint8_t *seen)
{
    for (uint32_t i = 0; i < f->values.n; i++)
        pos[i] = UINT32_MAX;   /* not run: never changes */
    uint32_t n = 0;
    for (uint32_t b = 0; b < f->blocks.n; b++)
        for (uint32_t i = 0; i < f->blocks.v[b].values.n; i++) {
            ValueId id = f->blocks.v[b].values.v[i];
            if (!(f->values.v[id].op == IR_PHI && f->values.v[id].index))
                pos[id] = n++;
        }
    for (uint32_t id = 1; id < f->values.n; id++)
        for (uint32_t a = 0; pos[id] != UINT32_MAX && a < f->values.v[id].nargs; a++) {
            ValueId x = f->values.v[id].args[a];
            if (pos[x] != UINT32_MAX && pos[x] >= pos[id])
                seen[x] |= SEEN_BACK;
        }
}

/* The entries of the dicts pfc reads (facts_of_dict_element): a module-level
 * literal's items are read by other functions through a GLOBAL, a dict a
 * call passes by its callee, a store also by its own function, before it
 * in a loop. */
static void mark_items(Facts *F, uint32_t fn, ValueId dict)
{
    const IrFunction *g = &F->ir->funcs.v[fn];
    const IrValue *d = &g->values.v[dict];
    for (uint32_t a = 0; a < d->nargs; a++) {
        const IrValue *x = &g->values.v[d->args[a]];
        if (x->op == IR_BUILD && x->nargs == 2 && x->node &&
            F->ir->syn->nodes[x->node].kind == N_DICT_ITEM)
            F->seen[fn][x->args[1]] |= SEEN_MODULE;
    }
}

static void mark_dict_entries(Facts *F)
{
    const Ir *ir = F->ir;
    const IrFunction *m = &ir->funcs.v[0];
    for (uint32_t i = 1; i < m->values.n; i++)
        if (m->values.v[i].op == IR_BUILD)
            mark_items(F, 0, i);
    for (uint32_t i = 0; i < ir->ndict_params; i++)   /* a dict a caller passes */
        mark_items(F, ir->dict_params[i].dfn, ir->dict_params[i].dict);
    for (uint32_t i = 0; i < ir->ndict_writes; i++) {
        const IrDictWrite *w = &ir->dict_writes[i];
        if (w->store)
            F->seen[w->in][ir->funcs.v[w->in].values.v[w->store].args[2]] |= SEEN_MODULE | SEEN_BACK;
    }
}

/* The SEEN_* bits of every value: who besides its own run reads it. */
static void mark_seen(Facts *F)
{
    const Ir *ir = F->ir;
    Arena *A = F->T;
    F->seen = arena_alloc(A, (ir->funcs.n + 1) * sizeof *F->seen);
    uint32_t most = 0;
    for (uint32_t fi = 0; fi < ir->funcs.n; fi++)
        most = ir->funcs.v[fi].values.n > most ? ir->funcs.v[fi].values.n : most;
    uint32_t *pos = arena_alloc(A, (most + 1) * sizeof *pos);   /* scratch */
    for (uint32_t fi = 0; fi < ir->funcs.n; fi++) {
        const IrFunction *g = &ir->funcs.v[fi];
        F->seen[fi] = arena_zalloc(A, g->values.n + 1);
        mark_read_back(g, pos, F->seen[fi]);
        for (uint32_t i = 0; i < g->returns.n; i++) {
            const IrValue *r = &g->values.v[g->returns.v[i]];
            if (!r->nargs)
                continue;
            F->seen[fi][r->args[0]] |= SEEN_RETURNED;
            /* `return a, b`: callers read the elements too (element_facts) */
            ValueId t = ir_resolve(g, r->args[0]);
            F->seen[fi][t] |= SEEN_RETURNED;
            if (g->values.v[t].op == IR_BUILD)
                for (uint32_t a = 0; a < g->values.v[t].nargs; a++)
                    F->seen[fi][g->values.v[t].args[a]] |= SEEN_RETURNED;
        }
    }
    for (uint32_t i = 0; i < ir->module_defs.n; i++)
        F->seen[0][ir->module_defs.v[i].value] |= SEEN_MODULE;
    mark_dict_entries(F);
    for (uint32_t c = 0; c < ir->classes.n; c++)
        for (uint32_t m = 0; m < ir->classes.v[c].methods.n; m++) {
            int fi = ir->classes.v[c].methods.v[m];
            const IrFunction *g = &ir->funcs.v[fi];
            for (uint32_t k = 0; k < F->self_stores[c].n; k++) {
                const IrValue *x = F->self_stores[c].v[k].value;
                if (x >= g->values.v && x < g->values.v + g->values.n)
                    F->seen[fi][x - g->values.v] |= SEEN_STORED;
            }
        }
}

static void init_worklist(Facts *F)
{
    const Ir *ir = F->ir;
    Arena *A = F->T;
    uint32_t n = ir->funcs.n;
    F->pending = arena_zalloc(A, n + 1);
    F->reads_outside = arena_zalloc(A, n + 1);
    F->class_of = arena_zalloc(A, (n + 1) * sizeof *F->class_of);
    F->return_readers = arena_zalloc(A, (n + 1) * sizeof *F->return_readers);
    F->store_readers = arena_zalloc(A, (ir->classes.n + 1) * sizeof *F->store_readers);
    for (uint32_t c = 0; c < ir->classes.n; c++)
        for (uint32_t m = 0; m < ir->classes.v[c].methods.n; m++)
            F->class_of[ir->classes.v[c].methods.v[m]] = c + 1;
    mark_seen(F);
}

/* Rounds over the functions in order, as a plain round-robin would, but
 * running only those whose inputs changed: the result is the round-robin's
 * (a function whose inputs did not change would compute what it holds). */
static void run_to_fixpoint(Facts *F)
{
    for (int round = 0; round < 50; round++) {
        bool ran = false;
        for (uint32_t i = 0; i < F->ir->funcs.n; i++) {
            if (!F->pending[i])
                continue;
            F->pending[i] = 0;
            run_function(F, (int)i);
            ran = true;
        }
        if (!ran)
            break;
    }
}

void ir_compute_facts(Ir *ir)
{
    pin_backward_receivers(ir);
    Arena scratch;
    arena_init(&scratch);
    Facts F = {.ir = ir, .S = ir->syn, .T = &scratch};
    F.nnames = ir->syn->names.by_id.n;
    F.qual_kinds = arena_zalloc(F.T, F.nnames);
    F.method_bits = arena_zalloc(F.T, F.nnames * sizeof *F.method_bits);
    index_self_stores(&F);
    pin_module_receivers(&F);
    init_worklist(&F);
    F.params = arena_zalloc(F.T, (ir->funcs.n + 1) * sizeof *F.params);
    for (uint32_t i = 0; i < ir->funcs.n; i++)
        F.params[i] = arena_zalloc(F.T,
                                   (ir->funcs.v[i].params.n + 1) * sizeof **F.params);
    /* two fixpoints: the in-file calls first, then what the remaining
     * parameters (reached from outside the file) make of the rest. The
     * second starts from the functions that asked which fixpoint runs (and
     * any the round limit left pending): for the others nothing changed. */
    memset(F.pending, 1, ir->funcs.n);
    run_to_fixpoint(&F);
    F.outside_calls = true;
    for (uint32_t i = 0; i < ir->funcs.n; i++)
        F.pending[i] |= F.reads_outside[i];
    run_to_fixpoint(&F);
    arena_free(&scratch);
}
