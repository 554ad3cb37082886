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

typedef struct Facts {
    const Ir *ir;
    const Syntax *S;
    bool changed;
    /* false while the first fixpoint runs: a parameter no call has reached
     * yet is BOTTOM (unknown so far), not MAYBE, so that the order in which
     * functions are defined cannot fix it at the lattice top */
    bool outside_calls;
    uint32_t cur_fn;
    /* per function: join of argument facts per parameter position */
    struct ParamFacts { uint8_t attach; uint32_t roles, cls, origin, ctor; bool called; } **params;
    SelfStoreVec *self_stores;   /* per class */
} Facts;

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

static bool str_is(const Syntax *S, uint32_t id, const char *s)
{
    uint32_t len;
    const char *q = intern_str(&S->names, id, &len);
    return id && strlen(s) == len && memcmp(q, s, len) == 0;
}

static bool str_prefix(const Syntax *S, uint32_t id, const char *p)
{
    uint32_t len;
    const char *q = intern_str(&S->names, id, &len);
    size_t n = strlen(p);
    return id && len >= n && memcmp(q, p, n) == 0;
}

static bool str_contains(const Syntax *S, uint32_t id, const char *p)
{
    uint32_t len;
    const char *q = intern_str(&S->names, id, &len);
    size_t n = strlen(p);
    for (uint32_t i = 0; id && i + n <= len; i++)
        if (memcmp(q + i, p, n) == 0)
            return true;
    return false;
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
static const char *const reductions[] = {"sum", "mean", "max", "min", "norm", "std", "var",
                                         "prod", "logsumexp", NULL};

static void set(IrValue *v, Attach a, uint32_t roles)
{
    v->attach = (uint8_t)a;
    v->roles = roles;
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
int ir_callee_function(const Ir *ir, const IrFunction *f, ValueId callee);

static int method_of(const Ir *ir, uint32_t cls1, uint32_t name)
{
    if (!cls1)
        return -1;
    const IrClass *c = &ir->classes.v[cls1 - 1];
    for (uint32_t i = 0; i < c->methods.n; i++)
        if (ir->funcs.v[c->methods.v[i]].name == name)
            return c->methods.v[i];
    return -1;
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
        return method_of(ir, c->cls, intern((Interner *)&ir->syn->names, "forward", 7));
    return -1;
}

static void join_returns(const Ir *ir, int fi, Attach *a, uint32_t *roles, uint32_t *cls)
{
    const IrFunction *g = &ir->funcs.v[fi];
    *a = ATT_BOTTOM;
    *roles = ~0u;
    *cls = 0;
    for (uint32_t i = 0; i < g->returns.n; i++) {
        const IrValue *r = &g->values.v[g->returns.v[i]];
        if (!r->nargs)
            continue;
        const IrValue *x = &g->values.v[r->args[0]];
        *a = attach_join(*a, (Attach)x->attach);
        if (x->attach != ATT_BOTTOM)
            *roles &= x->roles;   /* must-facts: what every return gives */
        *cls = *cls ? *cls : x->cls;
    }
    if (*roles == ~0u)
        *roles = 0;
}

/* Records argument facts at a call of an in-file function. */
static void note_call(Facts *F, const IrFunction *f, const IrValue *call, int fi, int skip_self)
{
    const IrFunction *g = &F->ir->funcs.v[fi];
    struct ParamFacts *pf = F->params[fi];
    uint32_t pos = (uint32_t)skip_self;
    for (uint32_t a = 1; a < call->nargs; a++) {
        uint32_t slot = UINT32_MAX;
        uint32_t kw = call->kwnames ? call->kwnames[a] : 0;
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
            F->changed = true;
        }
    }
}

/* ---- transfer functions --------------------------------------------------------------- */

static void facts_of_qualified_call(Facts *F, const IrFunction *f, IrValue *v, const IrValue *callee)
{
    const Syntax *S = F->S;
    uint32_t q = callee->qual;
    if (ir_project_call_facts(F->ir, q, F->cur_fn, v, (uint32_t)(v - f->values.v)))
        return;   /* a class or helper of another module of the project */
    v->ctor = q;   /* which library callable made this value: nn.CrossEntropyLoss, ... */
    Attach in = ATT_BOTTOM;
    for (uint32_t i = 1; i < v->nargs; i++)
        in = attach_any(in, (Attach)val(f, v->args[i])->attach);
    if (name_in(S, q, loss_functions)) {
        set(v, in, ROLE_LOSS | ROLE_SCALAR);
    } else if (name_in(S, q, loss_modules)) {
        set(v, ATT_DETACHED, ROLE_LOSS_FN);
    } else if (str_is(S, q, "torch.nn.functional.softmax") || str_is(S, q, "torch.softmax")) {
        set(v, in, ROLE_SOFTMAX);
    } else if (str_is(S, q, "torch.nn.functional.log_softmax") || str_is(S, q, "torch.log_softmax")) {
        set(v, in, ROLE_LOG_SOFTMAX);
    } else if (str_is(S, q, "torch.sigmoid") || str_is(S, q, "torch.nn.functional.sigmoid")) {
        set(v, in, ROLE_SIGMOID);
    } else if (str_is(S, q, "torch.nn.Softmax")) {
        set(v, ATT_DETACHED, ROLE_MODEL | ROLE_SOFTMAX);
    } else if (str_is(S, q, "torch.nn.Sigmoid")) {
        set(v, ATT_DETACHED, ROLE_MODEL | ROLE_SIGMOID);
    } else if (str_is(S, q, "torch.nn.Sequential") || str_is(S, q, "torch.nn.ModuleList")) {
        /* a container is mode-dependent if a layer is; it ends in its last layer */
        uint32_t roles = ROLE_MODEL;
        for (uint32_t i = 1; i < v->nargs; i++)
            roles |= val(f, v->args[i])->roles & ROLE_MODE_DEP;
        if (v->nargs > 1)
            roles |= val(f, v->args[v->nargs - 1])->roles & (ROLE_SOFTMAX | ROLE_SIGMOID);
        set(v, ATT_DETACHED, roles);
    } else if (str_prefix(S, q, "torch.optim.lr_scheduler.")) {
        set(v, ATT_DETACHED, ROLE_SCHEDULER);
    } else if (str_prefix(S, q, "torch.optim.") || str_prefix(S, q, "bitsandbytes.optim.")) {
        set(v, ATT_DETACHED, ROLE_OPTIMIZER);
    } else if (str_is(S, q, "torch.utils.data.DataLoader") ||
               str_is(S, q, "torch.utils.data.dataloader.DataLoader")) {
        set(v, ATT_DETACHED, ROLE_LOADER);
        uint32_t vid = (uint32_t)(v - f->values.v);
        v->origin = vid < (1u << 20) ? (F->cur_fn + 1) << 20 | vid : 0;
    } else if (str_is(S, q, "torch.device")) {
        set(v, ATT_DETACHED, ROLE_DEVICE | (cuda_argument(f, v) ? ROLE_CUDA : 0));
    } else if (str_prefix(S, q, "torch.nn.") && !str_prefix(S, q, "torch.nn.functional.") &&
               !str_prefix(S, q, "torch.nn.utils.") && !str_prefix(S, q, "torch.nn.init.")) {
        /* a layer or a wrapper (DDP): Dropout and normalisation layers, and
         * wrappers of unknown models, behave differently in eval mode */
        bool dep = str_contains(S, q, "Dropout") || str_contains(S, q, "Norm") ||
                   str_contains(S, q, "parallel");
        set(v, ATT_DETACHED, ROLE_MODEL | (dep ? ROLE_MODE_DEP : 0));
    } else if (str_prefix(S, q, "transformers.AutoModel") || str_prefix(S, q, "torchvision.models.") ||
               str_prefix(S, q, "timm.create_model")) {
        set(v, ATT_DETACHED, ROLE_MODEL | ROLE_MODE_DEP);
    } else if (name_in(S, q, creators)) {
        bool grad = false;
        for (uint32_t i = 1; i < v->nargs; i++)
            if (v->kwnames && v->kwnames[i] && str_is(S, v->kwnames[i], "requires_grad"))
                grad = val(f, v->args[i])->op == IR_CONST &&
                       S->toks.v[S->nodes[val(f, v->args[i])->node].first_tok].kind == T_KW_TRUE;
        set(v, grad ? ATT_ATTACHED : ATT_DETACHED, 0);
    } else if (name_in(S, q, pynum_builtins)) {
        set(v, ATT_DETACHED, ROLE_PYNUM);
    } else if (str_is(S, q, "builtins.enumerate") || str_is(S, q, "builtins.iter") ||
               str_is(S, q, "builtins.zip") || str_prefix(S, q, "tqdm.")) {
        /* wrappers over an iterable keep what the iterable yields */
        uint32_t roles = 0;
        for (uint32_t i = 1; i < v->nargs; i++) {
            roles |= val(f, v->args[i])->roles & ROLE_LOADER;
            if (val(f, v->args[i])->origin)
                v->origin = val(f, v->args[i])->origin;
        }
        set(v, in, roles);
    } else if (str_prefix(S, q, "torch.distributed.") || str_prefix(S, q, "torch.utils.") ||
               str_prefix(S, q, "torch.jit.") || str_prefix(S, q, "torch.fx.")) {
        set(v, ATT_MAYBE, 0);   /* not tensor math: what comes back is unknown */
    } else if (str_prefix(S, q, "torch.")) {
        set(v, in == ATT_BOTTOM ? ATT_DETACHED : in, 0);   /* tensor functions propagate */
    } else {
        set(v, ATT_MAYBE, 0);
    }
}

static void facts_of_method_call(Facts *F, const IrFunction *f, IrValue *v, const IrValue *callee)
{
    const Syntax *S = F->S;
    const IrValue *recv = val(f, callee->args[0]);
    uint32_t m = callee->name;
    if (name_in(S, m, killing_methods)) {
        set(v, ATT_DETACHED, str_is(S, m, "item") ? ROLE_PYNUM : 0);
        return;
    }
    if (recv->roles & ROLE_MODEL) {
        if (str_is(S, m, "to") || str_is(S, m, "cuda") || str_is(S, m, "cpu") ||
            str_is(S, m, "half") || str_is(S, m, "float") || str_is(S, m, "bfloat16")) {
            set(v, (Attach)recv->attach, recv->roles);
            v->cls = recv->cls;
            v->ctor = recv->ctor;
            return;
        }
        if (str_is(S, m, "parameters") || str_is(S, m, "named_parameters")) {
            set(v, ATT_ATTACHED, ROLE_PARAM);
            return;
        }
    }
    Attach a = (Attach)recv->attach;
    if (recv->cls || (recv->roles & (ROLE_MODEL | ROLE_OPTIMIZER | ROLE_LOADER)))
        a = ATT_MAYBE;   /* a method of an object, not tensor math */
    uint32_t roles = 0;
    if (str_is(S, m, "cuda") ||
        (str_is(S, m, "to") && ((recv->roles & ROLE_CUDA) || cuda_argument(f, v))))
        roles |= ROLE_CUDA;
    if (name_in(S, m, reductions) && v->nargs == 1)
        roles |= ROLE_SCALAR;
    if (str_is(S, m, "softmax"))
        roles |= ROLE_SOFTMAX;
    if (str_is(S, m, "log_softmax"))
        roles |= ROLE_LOG_SOFTMAX;
    if (str_is(S, m, "sigmoid"))
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
        return;
    }
    if (fi >= 0) {
        Attach a;
        uint32_t roles, cls;
        join_returns(F->ir, fi, &a, &roles, &cls);
        if (a == ATT_BOTTOM && !F->outside_calls && !(callee->roles & ROLE_MODEL))
            return;   /* the callee's returns are not known yet */
        if (callee->roles & ROLE_MODEL || callee->cls)
            a = attach_any(a, ATT_ATTACHED);   /* a model's output carries its graph */
        set(v, a == ATT_BOTTOM ? ATT_MAYBE : a, roles & ~ROLE_MODEL);
        v->cls = cls;
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
    F->self_stores = arena_zalloc(ir->syn->arena, (ir->classes.n + 1) * sizeof *F->self_stores);
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
                VEC_PUSH(ir->syn->arena, F->self_stores[c], st);
            }
        }
    }
}

/* self.<name> in a method: the join of what the class's methods store there. */
static void facts_of_class_attr(Facts *F, IrValue *v, uint32_t cls1)
{
    Attach a = ATT_BOTTOM;
    uint32_t roles = 0, cls = 0;
    {
        for (uint32_t i = 0; i < F->self_stores[cls1 - 1].n; i++) {
            const SelfStore *st = &F->self_stores[cls1 - 1].v[i];
            if (st->name != v->name)
                continue;
            const IrValue *x = st->value;
            a = attach_join(a, (Attach)x->attach);
            roles |= x->roles;
            cls = cls ? cls : x->cls;
            v->origin = v->origin ? v->origin : x->origin;
            v->ctor = v->ctor ? v->ctor : x->ctor;
        }
    }
    set(v, a == ATT_BOTTOM ? ATT_MAYBE : a, roles);
    v->cls = cls;
}

static void facts_of_global(Facts *F, IrValue *v)
{
    if (ir_project_global_facts(F->ir, v))
        return;   /* `from config import device` */
    if (v->qual) {
        set(v, ATT_DETACHED, 0);
        return;
    }
    Attach a = ATT_BOTTOM;
    uint32_t roles = ~0u, cls = UINT32_MAX;
    const IrFunction *m = &F->ir->funcs.v[0];
    const Ir *ir = F->ir;
    for (uint32_t i = v->name < ir->nnames ? ir->last_def[v->name] : 0; i; i = ir->prev_def[i - 1]) {
        const IrModuleDef *d = &ir->module_defs.v[i - 1];
        const IrValue *x = &m->values.v[d->value];
        uint32_t xcls = x->op == IR_CLASS ? x->index + 1 : x->cls;
        v->origin = x->origin;
        v->ctor = x->ctor;
        a = attach_join(a, (Attach)x->attach);
        roles &= x->roles;
        cls = cls == UINT32_MAX || cls == xcls ? xcls : 0;
    }
    set(v, a == ATT_BOTTOM ? ATT_MAYBE : a, roles == ~0u ? 0 : roles);
    v->cls = cls == UINT32_MAX ? 0 : cls;
}

static void facts_of_param(Facts *F, int fi, IrValue *v)
{
    const IrFunction *g = &F->ir->funcs.v[fi];
    /* the instance: the first parameter of a method, by convention `self`
     * (a classmethod's `cls` or a staticmethod's first argument is not) */
    if (v->index == 0 && g->class_index >= 0 && g->kind == SCOPE_FUNCTION &&
        str_is(F->S, v->name, "self")) {
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
        set(v, F->outside_calls ? ATT_MAYBE : ATT_BOTTOM, 0);
        return;
    }
    set(v, (Attach)pf->attach, pf->roles);
    v->cls = pf->cls;
    v->origin = pf->origin;
    v->ctor = pf->ctor;
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
        /* roles are must-facts: what every incoming value is. Inputs still at
         * BOTTOM (not computed yet, or undefined) do not count. */
        uint32_t roles = ~0u, cls = UINT32_MAX, origin = UINT32_MAX, ctor = UINT32_MAX;
        uint32_t may_cuda = 0;
        for (uint32_t i = 0; i < v->nargs; i++) {
            const IrValue *x = val(f, v->args[i]);
            in = attach_join(in, (Attach)x->attach);
            if (x->attach == ATT_BOTTOM)
                continue;
            roles &= x->roles;
            cls = cls == UINT32_MAX || cls == x->cls ? x->cls : 0;
            origin = origin == UINT32_MAX || origin == x->origin ? x->origin : 0;
            ctor = ctor == UINT32_MAX || ctor == x->ctor ? x->ctor : 0;
        }
        /* ROLE_CUDA is a may-fact: `"cuda" if available else "cpu"` is a
         * script meant for a GPU */
        for (uint32_t i = 0; i < v->nargs; i++)
            may_cuda |= val(f, v->args[i])->roles & ROLE_CUDA;
        set(v, in, (roles == ~0u ? 0 : roles) | may_cuda);
        v->cls = cls == UINT32_MAX ? 0 : cls;
        v->origin = origin == UINT32_MAX ? 0 : origin;
        v->ctor = ctor == UINT32_MAX ? 0 : ctor;
        break;
    }
    case IR_BINOP: case IR_UNARY: case IR_AWAIT: case IR_BUILD: {
        uint32_t roles = 0;
        if (!v->nargs)
            in = ATT_DETACHED;   /* an empty container */
        for (uint32_t i = 0; i < v->nargs; i++) {
            in = attach_any(in, (Attach)val(f, v->args[i])->attach);
            roles |= val(f, v->args[i])->roles & (ROLE_LOSS | ROLE_SCALAR | ROLE_CUDA);
        }
        set(v, in, (IrOp)v->op == IR_BUILD ? roles & (ROLE_LOSS | ROLE_SCALAR) : roles);
        break;
    }
    case IR_COMPARE: set(v, ATT_DETACHED, ROLE_PYNUM); break;
    case IR_ATTR: {
        const IrValue *base = val(f, v->args[0]);
        if (ir_project_global_facts(F->ir, v))
            break;   /* `config.device` */
        if (v->qual || base->qual || str_is(F->S, v->name, "grad") ||
            str_is(F->S, v->name, "data") || str_is(F->S, v->name, "shape")) {
            set(v, ATT_DETACHED, 0);   /* p.grad / x.data carry no graph */
        } else if (base->cls && base->op == IR_PARAM && base->index == 0) {
            facts_of_class_attr(F, v, base->cls);
        } else {
            /* model.x may be a submodule, a method or a config: not a model */
            set(v, base->attach == ATT_BOTTOM ? ATT_MAYBE : (Attach)base->attach,
                base->roles & (ROLE_LOSS | ROLE_BATCH));
        }
        break;
    }
    case IR_SUBSCR: case IR_UNPACK: {
        const IrValue *base = val(f, v->args[0]);
        set(v, (Attach)base->attach, base->roles & (ROLE_BATCH | ROLE_LOSS));
        break;
    }
    case IR_ITER_NEXT: {
        const IrValue *it = val(f, v->args[0]);
        if (it->roles & ROLE_LOADER)
            set(v, ATT_DETACHED, ROLE_BATCH);
        else
            set(v, (Attach)it->attach, it->roles & (ROLE_PARAM | ROLE_LOSS | ROLE_SCALAR));
        break;
    }
    case IR_CALL: facts_of_call(F, f, v); break;
    case IR_WITH_ENTER: case IR_YIELD: case IR_OPAQUE:
        set(v, ATT_MAYBE, 0);
        break;
    default:
        set(v, ATT_DETACHED, 0);
        break;
    }
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
static bool waits_for_operands(const Facts *F, const IrFunction *f, const IrValue *v)
{
    if (F->outside_calls || v->op == IR_PHI || v->op == IR_BOOLOP)
        return false;
    for (uint32_t i = 0; i < v->nargs; i++)
        if (val(f, v->args[i])->attach == ATT_BOTTOM)
            return true;
    return false;
}

static void run_function(Facts *F, int fi)
{
    IrFunction *f = &F->ir->funcs.v[fi];
    F->cur_fn = (uint32_t)fi;
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
            transfer(F, fi, f, v);
            /* attachment only moves up its lattice; roles are recomputed (the
             * round limit in ir_compute_facts bounds any oscillation) */
            v->attach = (uint8_t)attach_join((Attach)old.attach, (Attach)v->attach);
            if (v->attach != old.attach || v->roles != old.roles || v->cls != old.cls ||
                v->origin != old.origin || v->ctor != old.ctor)
                F->changed = true;
        }
    }
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

static void run_to_fixpoint(Facts *F)
{
    for (int round = 0; round < 50; round++) {
        F->changed = false;
        for (uint32_t i = 0; i < F->ir->funcs.n; i++)
            run_function(F, (int)i);
        if (!F->changed)
            break;
    }
}

void ir_compute_facts(Ir *ir)
{
    pin_backward_receivers(ir);
    Facts F = {ir, ir->syn, false, false, 0, NULL, NULL};
    index_self_stores(&F);
    F.params = arena_zalloc(ir->syn->arena, (ir->funcs.n + 1) * sizeof *F.params);
    for (uint32_t i = 0; i < ir->funcs.n; i++)
        F.params[i] = arena_zalloc(ir->syn->arena,
                                   (ir->funcs.v[i].params.n + 1) * sizeof **F.params);
    /* two fixpoints: the in-file calls first, then what the remaining
     * parameters (reached from outside the file) make of the rest */
    run_to_fixpoint(&F);
    F.outside_calls = true;
    run_to_fixpoint(&F);
}
