#include "analysis.h"
#include "../ir/params.h"
#include <stdlib.h>
#include <string.h>

static uint32_t name(Syntax *S, const char *s) { return intern(&S->names, s, (uint32_t)strlen(s)); }

bool an_qual_is(const Analysis *an, uint32_t id, const char *s)
{
    return intern_is(&an->S->names, id, s);
}

bool an_qual_prefix(const Analysis *an, uint32_t id, const char *prefix)
{
    return intern_has_prefix(&an->S->names, id, prefix);
}

bool an_method_call(const IrFunction *f, const IrValue *v, uint32_t method, ValueId *recv)
{
    if (v->op != IR_CALL || !v->nargs)
        return false;
    const IrValue *c = &f->values.v[v->args[0]];
    if (c->op != IR_ATTR || c->name != method || !c->nargs)
        return false;
    if (recv)
        *recv = c->args[0];
    return true;
}

bool an_backward_engine(const Analysis *an, const IrFunction *f, ValueId recv)
{
    const IrValue *r = &f->values.v[ir_resolve(f, recv)];
    return (r->roles & ROLE_MODEL) ||   /* a DeepSpeed engine */
           (r->op == IR_CALL && r->nargs && an_qual_prefix(an, f->values.v[r->args[0]].qual, "accelerate."));
}

/* The effect of one value, not counting callees. */
ValueId an_stepped_optimizer(const Analysis *an, const IrFunction *f, const IrValue *v);

/* A receiver that may be a model: known to be one, or unknown (a helper's
 * parameter) but not known to be something else. */
static bool maybe_model(const IrValue *r)
{
    return (r->roles & ROLE_MODEL) ||
           (r->attach == ATT_MAYBE && !(r->roles & ~(ROLE_MODE_DEP)) && !r->cls && !r->qual);
}

/* A receiver whose train() may put a model back in train mode: anything
 * not known to be something else (`train()` ends an eval region, so erring
 * this way only silences). */
static bool may_train(const IrValue *r)
{
    return maybe_model(r) ||
           !(r->roles & (ROLE_OPTIMIZER | ROLE_LOADER | ROLE_LOSS | ROLE_PYNUM | ROLE_SCHEDULER));
}

static uint32_t own_effects(const Analysis *an, const IrFunction *f, const IrValue *v)
{
    ValueId r;
    if (v->op == IR_STORE_ATTR && v->name == an->n_grad)
        return EFF_ZERO_GRAD;   /* p.grad = None */
    if (v->op != IR_CALL || !v->nargs)
        return 0;
    for (uint32_t a = 1; a < v->nargs; a++) {   /* run_hooks(optimizer.zero_grad) */
        const IrValue *x = &f->values.v[v->args[a]];
        if (x->op == IR_ATTR && x->name == an->n_zero_grad)
            return EFF_ZERO_GRAD;
    }
    const IrValue *callee = &f->values.v[v->args[0]];
    if (an_qual_is(an, callee->qual, "torch.autograd.grad"))
        return EFF_AUTOGRAD;
    if (an_qual_is(an, callee->qual, "torch.autograd.backward"))
        return EFF_BACKWARD;
    if (an_method_call(f, v, an->n_backward, &r))
        return EFF_BACKWARD;
    if (an_method_call(f, v, an->n_zero_grad, &r))
        return EFF_ZERO_GRAD;
    if (an_method_call(f, v, an->n_step, &r))
        return f->values.v[r].roles & ROLE_OPTIMIZER || an_stepped_optimizer(an, f, v)
                   ? EFF_STEP
                   : 0;
    if (an_method_call(f, v, an->n_eval, &r))
        return v->nargs == 1 && maybe_model(&f->values.v[r]) ? EFF_EVAL : 0;
    if (an_method_call(f, v, an->n_train, &r))   /* it only ends eval regions: lenient */
        return may_train(&f->values.v[r]) ? EFF_TRAIN : 0;
    if (an_runs_model(an, f, v))
        return EFF_MODEL_CALL;
    return 0;
}

/* Methods of a model class pfc cannot read that run its forward, by the
 * names RL agents, encoders and Lightning modules give them. */
static const char *const forward_like_methods[] = {
    "forward", "get_action", "get_value", "get_action_and_value", "act", "predict", "encode",
    "decode", "validation_step", "test_step", "predict_step", NULL};


bool an_runs_model(const Analysis *an, const IrFunction *f, const IrValue *v)
{
    if (v->op != IR_CALL || !v->nargs)
        return false;
    const IrValue *callee = &f->values.v[v->args[0]];
    if (callee->roles & ROLE_MODEL)
        return !(callee->roles & (ROLE_SOFTMAX | ROLE_SIGMOID));
    if (callee->op != IR_ATTR || !callee->nargs)
        return false;
    const IrValue *recv = &f->values.v[callee->args[0]];
    if (!(recv->roles & ROLE_MODEL) || (recv->roles & (ROLE_SOFTMAX | ROLE_SIGMOID)))
        return false;
    /* agent.get_action(obs): an in-file method says by what it runs; one
     * pfc cannot read, by its name */
    if (ir_callee_function(an->ir, f, v->args[0]) >= 0)
        return false;   /* its own effects (a model call inside) count instead */
    for (const char *const *m = forward_like_methods; *m; m++)
        if (an_qual_is(an, callee->name, *m))
            return true;
    return false;
}


uint32_t an_value_effects(const Analysis *an, const IrFunction *f, ValueId id)
{
    const IrValue *v = &f->values.v[id];
    uint32_t e = own_effects(an, f, v);
    if (v->op == IR_CALL && v->nargs) {
        int fi = ir_callee_function(an->ir, f, v->args[0]);
        if (fi >= 0)
            e |= an->effects[fi];
        /* optimizer.step(closure) runs the closure */
        ValueId r;
        if (an_method_call(f, v, an->n_step, &r) && v->nargs == 2 &&
            f->values.v[v->args[1]].op == IR_FUNC)
            e |= an->effects[f->values.v[v->args[1]].index];
    }
    return e;
}

/* scaler.step(optimizer) steps its argument; optimizer.step() its receiver. */
ValueId an_stepped_optimizer(const Analysis *an, const IrFunction *f, const IrValue *v)
{
    ValueId r;
    if (!an_method_call(f, v, an->n_step, &r))
        return 0;
    if (f->values.v[r].roles & ROLE_OPTIMIZER)
        return r;
    const IrValue *recv = &f->values.v[r];
    if (v->nargs == 2 && (an_qual_is(an, recv->ctor, "torch.cuda.amp.GradScaler") ||
                          an_qual_is(an, recv->ctor, "torch.amp.GradScaler")) &&
        (f->values.v[v->args[1]].roles & ROLE_OPTIMIZER))
        return v->args[1];
    return 0;
}

static void compute_effects(Analysis *an)
{
    const Ir *ir = an->ir;
    for (int round = 0; round < 20; round++) {
        bool changed = false;
        for (uint32_t fi = 0; fi < ir->funcs.n; fi++) {
            const IrFunction *f = &ir->funcs.v[fi];
            uint32_t e = an->effects[fi];
            for (uint32_t i = 1; i < f->values.n; i++)
                e |= an_value_effects(an, f, i);
            if (e != an->effects[fi]) {
                an->effects[fi] = e;
                changed = true;
            }
        }
        if (!changed)
            break;
    }
}

static bool const_text_has(const Analysis *an, const IrFunction *f, ValueId v, const char *s)
{
    const IrValue *x = &f->values.v[v];
    if (x->op != IR_CONST || !x->node)
        return false;
    const Node *n = &an->S->nodes[x->node];
    uint32_t a = node_start(an->S, n), b = node_end(an->S, n);
    size_t len = strlen(s);
    for (uint32_t i = a; i + len <= b; i++)
        if (memcmp(an->S->src + i, s, len) == 0)
            return true;
    return false;
}

bool an_is_const_zero(const Analysis *an, const IrFunction *f, ValueId v)
{
    const IrValue *x = &f->values.v[v];
    if (x->op != IR_CONST || !x->node)
        return false;
    const Node *n = &an->S->nodes[x->node];
    return n->kind == N_NUMBER && node_end(an->S, n) - node_start(an->S, n) == 1 &&
           an->S->src[node_start(an->S, n)] == '0';
}

/* CUDA is proven by .cuda(), .to("cuda..."), torch.device("cuda..."), or the
 * "cuda" if torch.cuda.is_available() else "cpu" idiom. */
static void detect_cuda(Analysis *an)
{
    const Ir *ir = an->ir;
    for (uint32_t fi = 0; fi < ir->funcs.n; fi++) {
        const IrFunction *f = &ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = &f->values.v[i];
            ValueId r;
            if (an_method_call(f, v, an->n_cuda, &r))
                an->uses_cuda = true;
            if (v->op == IR_CALL)
                for (uint32_t a = 1; a < v->nargs; a++)
                    if (ir_kwname(v, a) == an->n_non_blocking)
                        an->non_blocking = true;
            bool to = an_method_call(f, v, an->n_to, &r);
            bool dev = v->op == IR_CALL && v->nargs &&
                       an_qual_is(an, f->values.v[v->args[0]].qual, "torch.device");
            if (!to && !dev)
                continue;
            for (uint32_t a = 1; a < v->nargs; a++) {
                ValueId x = v->args[a];
                const IrValue *xv = &f->values.v[x];
                if (const_text_has(an, f, x, "cuda") || (to && (xv->roles & ROLE_CUDA)))
                    an->uses_cuda = true;   /* a device the facts know: `from config import device` */
                if (xv->op == IR_BOOLOP)   /* "cuda" if ... else "cpu" */
                    for (uint32_t k = 0; k < xv->nargs; k++)
                        if (const_text_has(an, f, xv->args[k], "cuda"))
                            an->uses_cuda = true;
            }
        }
    }
}

static void compute_loop_effects(Analysis *an);
static void compute_callers(Analysis *an);
static void compute_context(Analysis *an);
ValueId an_stepped_optimizer(const Analysis *an, const IrFunction *f, const IrValue *v);

uint32_t an_parent(Analysis *an, uint32_t node)
{
    const Syntax *S = an->S;
    if (!an->parents) {
        an->parents = arena_alloc(S->arena, (S->nnodes + 1) * sizeof *an->parents);
        for (uint32_t i = 0; i < S->nnodes; i++)
            an->parents[i] = UINT32_MAX;
        for (uint32_t i = 0; i < S->nnodes; i++)
            FOR_EACH_KID(&S->nodes[i], kid)
                an->parents[kid] = i;
    }
    return an->parents[node];
}

void analysis_init(Analysis *an, Syntax *S, const Ir *ir)
{
    memset(an, 0, sizeof *an);
    an->S = S;
    an->ir = ir;
#define N(field, s) an->field = name(S, s);
    N(n_append, "append") N(n_extend, "extend") N(n_appendleft, "appendleft")
    N(n_insert, "insert") N(n_add, "add") N(n_clear, "clear") N(n_backward, "backward")
    N(n_step, "step") N(n_zero_grad, "zero_grad") N(n_eval, "eval") N(n_train, "train")
    N(n_grad, "grad") N(n_item, "item") N(n_to, "to") N(n_cuda, "cuda") N(n_forward, "forward")
    N(n_num_workers, "num_workers") N(n_pin_memory, "pin_memory")
    N(n_non_blocking, "non_blocking") N(n_training, "training") N(n_module, "module")
    N(n_orig_mod, "_orig_mod")
#undef N
    an->effects = arena_zalloc(S->arena, (ir->funcs.n + 1) * sizeof *an->effects);
    compute_effects(an);
    an_compute_object_effects(an);
    compute_loop_effects(an);
    compute_callers(an);
    compute_context(an);
    detect_cuda(an);
    an->params = params_collect(ir, S->arena);
    ir_modules(ir, S->arena, &an->modules);
}

bool an_in_loop(const IrFunction *f, BlockId b, BlockId h)
{
    if (!h)
        return false;
    for (BlockId x = f->blocks.v[b].loop_header; x; x = f->blocks.v[x].loop_parent)
        if (x == h)
            return true;
    return false;
}

bool an_lives_across(const IrFunction *f, ValueId v, BlockId h)
{
    for (int guard = 0; guard < 64; guard++) {
        const IrValue *x = &f->values.v[v];
        if (x->op == IR_PHI && x->block == h)
            return true;        /* a variable carried around the loop */
        if (!an_in_loop(f, x->block, h))
            return true;        /* made before the loop */
        if ((x->op == IR_ATTR || x->op == IR_SUBSCR) && x->nargs) {
            v = x->args[0];     /* self.history, state["losses"] */
            continue;
        }
        return false;
    }
    return false;
}

uint32_t an_loop_effects(const Analysis *an, const IrFunction *f, BlockId h)
{
    uint32_t fi = (uint32_t)(f - an->ir->funcs.v);
    return h < f->blocks.n ? an->loop_effects[fi][h] : 0;
}

/* Each value's effects go to every loop around it: one pass per function. */
static void compute_loop_effects(Analysis *an)
{
    const Ir *ir = an->ir;
    an->loop_effects = arena_zalloc(an->S->arena, (ir->funcs.n + 1) * sizeof *an->loop_effects);
    for (uint32_t fi = 0; fi < ir->funcs.n; fi++) {
        const IrFunction *f = &ir->funcs.v[fi];
        uint32_t *le = arena_zalloc(an->S->arena, (f->blocks.n + 1) * sizeof *le);
        for (uint32_t i = 1; i < f->values.n; i++) {
            BlockId h = f->blocks.v[f->values.v[i].block].loop_header;
            if (!h)
                continue;
            uint32_t e = an_value_effects(an, f, i);
            for (int guard = 0; h && e && guard < 256; guard++, h = f->blocks.v[h].loop_parent)
                le[h] |= e;
        }
        an->loop_effects[fi] = le;
    }
}

/* Who calls each function, and whether with grad enabled: a call made with
 * grad on counts only if its caller itself may run with grad on (no other
 * in-file function calls it, or one calls it with grad on), so a helper of a
 * helper of a `@torch.no_grad()` function runs without grad. */
static void compute_callers(Analysis *an)
{
    const Ir *ir = an->ir;
    uint32_t n = ir->funcs.n;
    an->called_with_grad = arena_zalloc(an->S->arena, n + 1);
    an->ncalls = arena_zalloc(an->S->arena, (n + 1) * sizeof *an->ncalls);
    uint32_t *others = arena_zalloc(an->S->arena, (n + 1) * sizeof *others);   /* not itself */
    for (uint32_t gi = 0; gi < n; gi++) {
        const IrFunction *g = &ir->funcs.v[gi];
        for (uint32_t i = 1; i < g->values.n; i++) {
            const IrValue *v = &g->values.v[i];
            int fi = v->op == IR_CALL && v->nargs ? ir_callee_function(ir, g, v->args[0]) : -1;
            if (fi >= 0) {
                an->ncalls[fi]++;
                others[fi] += (uint32_t)fi != gi;
            }
        }
    }
    /* a worklist of the functions that may run with grad on, from those no
     * other in-file function calls */
    uint32_t *work = arena_alloc(an->S->arena, (n + 1) * sizeof *work), top = 0;
    uint8_t *may = arena_zalloc(an->S->arena, n + 1);
    for (uint32_t gi = 0; gi < n; gi++)
        if (!others[gi])
            may[gi] = 1, work[top++] = gi;
    while (top) {
        const IrFunction *g = &ir->funcs.v[work[--top]];
        for (uint32_t i = 1; i < g->values.n; i++) {
            const IrValue *v = &g->values.v[i];
            if (v->op != IR_CALL || !v->nargs || v->grad == GRAD_DISABLED)
                continue;
            int fi = ir_callee_function(ir, g, v->args[0]);
            if (fi < 0)
                continue;
            an->called_with_grad[fi] = 1;
            if (!may[fi])
                may[fi] = 1, work[top++] = (uint32_t)fi;
        }
    }
}

static bool draws_from(const Analysis *an, const IrFunction *f, ValueId it, uint32_t origin, int depth);

/* `sample_data(loader)`, an in-file generator (a plain function) that
 * iterates its parameter and yields: it draws from what the call passes. */
static bool generator_draws_from(const Analysis *an, const IrFunction *f, const IrValue *call,
                                 uint32_t gi, uint32_t origin, int depth)
{
    const IrFunction *g = &an->ir->funcs.v[gi];
    if (g->class_index >= 0)
        return false;
    bool yields = false;
    for (uint32_t i = 1; i < g->values.n && !yields; i++)
        yields = g->values.v[i].op == IR_YIELD;
    for (uint32_t i = 1; yields && i < g->values.n; i++) {
        const IrValue *v = &g->values.v[i];
        if (v->op != IR_ITER_NEXT || !v->nargs)
            continue;
        const IrValue *p = &g->values.v[ir_resolve(g, v->args[0])];
        uint32_t slot = p->op == IR_PARAM ? ir_param_slot(g, (ValueId)(p - g->values.v)) : UINT32_MAX;
        ValueId arg = slot != UINT32_MAX ? ir_call_argument(call, g, 0, slot) : 0;
        if (arg && draws_from(an, f, arg, origin, depth + 1))
            return true;
    }
    return false;
}

/* Does iterating `it` draw from the loader made at `origin`: the loader
 * itself, an entry of a dict of loaders (`loaders[phase]`) or of a literal
 * list of tuples (`for phase, loader in [("train", a), ...]`), an in-file
 * generator over it (`sample_data(loader)`), or a wrapper
 * over it (`zip(loader_a, loader_b)`, `enumerate`, `iter`, `tqdm`,
 * `itertools.cycle`) with the loader among its arguments? */
static bool draws_from(const Analysis *an, const IrFunction *f, ValueId it, uint32_t origin, int depth)
{
    static const char *const wrappers[] = {"builtins.zip", "builtins.enumerate", "builtins.iter",
                                           "itertools.cycle", "itertools.islice", "itertools.chain",
                                           NULL};
    ValueId xi = ir_resolve(f, it);
    const IrValue *x = &f->values.v[xi];
    if (x->origin == origin)
        return true;
    IrDictHits h;
    if (depth <= 4 && ir_dict_element(an->ir, f, xi, &h)) {   /* loaders[phase] */
        for (uint32_t i = 0; i < h.n; i++)
            if (draws_from(an, &an->ir->funcs.v[h.fn[i]], h.v[i], origin, depth + 1))
                return true;
        return false;
    }
    if (depth <= 4 && x->op == IR_UNPACK && x->nargs) {
        /* `for name, loader in [("train", a), ("val", b)]`: element k of each tuple */
        const IrValue *item = &f->values.v[ir_resolve(f, x->args[0])];
        const IrValue *lit = item->op == IR_ITER_NEXT && item->nargs
                                 ? &f->values.v[ir_resolve(f, item->args[0])] : NULL;
        if (!lit || lit->op != IR_BUILD || !lit->node ||
            (an->S->nodes[lit->node].kind != N_LIST && an->S->nodes[lit->node].kind != N_TUPLE))
            return false;
        for (uint32_t i = 0; i < lit->nargs; i++) {
            const IrValue *t = &f->values.v[ir_resolve(f, lit->args[i])];
            if (t->op == IR_BUILD && t->node && an->S->nodes[t->node].kind == N_TUPLE &&
                x->index < t->nargs && draws_from(an, f, t->args[x->index], origin, depth + 1))
                return true;
        }
        return false;
    }
    if (depth > 4 || x->op != IR_CALL || !x->nargs)
        return false;
    int g = ir_callee_function(an->ir, f, x->args[0]);
    if (g >= 0)
        return generator_draws_from(an, f, x, (uint32_t)g, origin, depth);
    uint32_t q = f->values.v[x->args[0]].qual;
    bool wrapper = q && an_qual_prefix(an, q, "tqdm.");
    for (const char *const *w = wrappers; !wrapper && *w; w++)
        wrapper = an_qual_is(an, q, *w);
    for (uint32_t i = 1; wrapper && i < x->nargs; i++)
        if (draws_from(an, f, x->args[i], origin, depth + 1))
            return true;
    return false;
}

bool an_draws_from(const Analysis *an, const IrFunction *f, ValueId it, uint32_t origin)
{
    return draws_from(an, f, it, origin, 0);
}

ValueId an_loop_iterable(const IrFunction *f, BlockId h)
{
    const IrBlock *hb = &f->blocks.v[h];
    for (uint32_t i = 0; i < hb->values.n; i++) {
        const IrValue *v = &f->values.v[hb->values.v[i]];
        if (v->op == IR_ITER_NEXT && v->nargs)
            return v->args[0];
    }
    return 0;
}

bool an_runs_without_grad(const Analysis *an, uint32_t fi)
{
    return an->ncalls[fi] > 0 && !an->called_with_grad[fi];
}

/* Marks every value derived from `from` through operands (torch.stack(losses),
 * total / n): values mostly use earlier ones, so a few sweeps settle it. */
static uint8_t *derived_from(const Analysis *an, const IrFunction *f, ValueId from)
{
    uint8_t *reach = arena_zalloc(an->S->arena, f->values.n);
    reach[from] = 1;
    for (int sweep = 0, changed = 1; changed && sweep < 8; sweep++) {
        changed = 0;
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = &f->values.v[i];
            for (uint32_t a = 0; !reach[i] && a < v->nargs; a++)
                if (reach[v->args[a]])
                    reach[i] = 1, changed = 1;
        }
    }
    return reach;
}

bool an_reaches_return(const Analysis *an, const IrFunction *f, ValueId from)
{
    uint8_t *reach = derived_from(an, f, from);
    for (uint32_t i = 0; i < f->returns.n; i++)
        if (reach[f->returns.v[i]])
            return true;
    return false;
}


/* forward, _forward, __call__ and forward_* (timm's forward_features,
 * forward_head, forward_intermediates) run inside whoever calls the model. */
static bool is_forward_name(const Analysis *an, uint32_t name)
{
    return an_qual_is(an, name, "forward") || an_qual_is(an, name, "__call__") ||
           an_qual_is(an, name, "_forward") || an_qual_prefix(an, name, "forward_");
}

/* unittest's TestCase subclasses, and the Test* classes pytest collects */
static bool is_test_class(const Analysis *an, const IrClass *c)
{
    if (an_qual_prefix(an, c->name, "Test") && !c->is_module)
        return true;
    for (uint32_t i = 0; i < c->bases.n; i++)
        if (intern_has_suffix(&an->S->names, c->bases.v[i], "TestCase"))
            return true;
    return false;
}

static CodeContext own_context(const Analysis *an, const IrFunction *f)
{
    if (f->kind != SCOPE_FUNCTION)
        return CTX_OTHER;
    const IrClass *c = f->class_index >= 0 ? &an->ir->classes.v[f->class_index] : NULL;
    if (c && c->is_module && is_forward_name(an, f->name))
        return CTX_MODEL;
    /* pytest collects test_* functions; one the script calls itself
     * (`print(test_model(clf, loader))`) is its evaluation code */
    bool called = an->ncalls[f - an->ir->funcs.v] > 0;
    if ((an_qual_prefix(an, f->name, "test_") && !called) || (c && is_test_class(an, c)))
        return CTX_TEST;
    return CTX_OTHER;
}

/* Model code is what a forward reaches through in-file calls; a function
 * nested in model or test code shares its context. Seeds by name, then a
 * worklist over the call graph: each function enters the list once. */
static void compute_context(Analysis *an)
{
    const Ir *ir = an->ir;
    uint32_t n = ir->funcs.n;
    an->context = arena_zalloc(an->S->arena, (n + 1) * sizeof *an->context);
    int *work = arena_alloc(an->S->arena, (n + 1) * sizeof *work);
    uint32_t nwork = 0;
    for (uint32_t fi = 0; fi < n; fi++) {
        an->context[fi] = (uint8_t)own_context(an, &ir->funcs.v[fi]);
        if (an->context[fi] == CTX_MODEL)
            work[nwork++] = (int)fi;
    }
    while (nwork) {
        const IrFunction *g = &ir->funcs.v[work[--nwork]];
        for (uint32_t i = 1; i < g->values.n; i++) {
            const IrValue *v = &g->values.v[i];
            int callee = v->op == IR_CALL && v->nargs ? ir_callee_function(ir, g, v->args[0]) : -1;
            if (callee > 0 && an->context[callee] == CTX_OTHER) {
                an->context[callee] = CTX_MODEL;
                work[nwork++] = callee;
            }
        }
    }
    for (uint32_t fi = 1; fi < n; fi++) {   /* nested scopes, outermost first */
        int p = ir->funcs.v[fi].parent;
        for (int guard = 0; p > 0 && an->context[fi] == CTX_OTHER && guard < 256; guard++) {
            an->context[fi] = an->context[p];
            p = ir->funcs.v[p].parent;
        }
    }
}

CodeContext an_context(const Analysis *an, const IrFunction *f)
{
    return (CodeContext)an->context[f - an->ir->funcs.v];
}

const char *an_context_name(CodeContext c)
{
    switch (c) {
    case CTX_MODEL: return "model";
    case CTX_TEST: return "test";
    case CTX_OTHER: return "other";
    }
    return "?";
}

const char *an_effect_name(uint32_t bit)
{
    switch (bit) {
    case EFF_BACKWARD: return "backward";
    case EFF_STEP: return "step";
    case EFF_ZERO_GRAD: return "zero_grad";
    case EFF_EVAL: return "eval";
    case EFF_TRAIN: return "train";
    case EFF_AUTOGRAD: return "autograd";
    case EFF_MODEL_CALL: return "model_call";
    case EFF_ITERATE: return "iterate";
    }
    return NULL;
}

bool an_reaches_backward(const Analysis *an, const IrFunction *f, ValueId from)
{
    uint8_t *reach = derived_from(an, f, from);
    for (uint32_t i = 1; i < f->values.n; i++) {
        const IrValue *v = &f->values.v[i];
        ValueId r;
        if (an_method_call(f, v, an->n_backward, &r) && reach[r])
            return true;
        /* accelerator.backward(loss), fabric.backward(loss), a helper that
         * backpropagates what it is given */
        if (v->op == IR_CALL && (an_value_effects(an, f, i) & EFF_BACKWARD))
            for (uint32_t a = 1; a < v->nargs; a++)
                if (reach[v->args[a]])
                    return true;
    }
    return false;
}

uint32_t an_call_arg_node(const Syntax *S, uint32_t call, uint32_t k)
{
    if (!call || S->nodes[call].kind != N_CALL)
        return call;
    const Node *args = node_kid(S, &S->nodes[call], 1);
    if (!args || args->kind != N_ARGUMENTS || k >= node_nkids(S, args))
        return call;
    return node_kid_id(S, args, k);
}

enum { SCAN_GO_ON, SCAN_REGION_ENDS, SCAN_BACKWARD };

/* The region of an eval() of obj ends where obj is put back in train mode:
 * obj.train(), or a call whose callee trains it (a train_one_epoch helper). */
static int scan_block(const Analysis *an, const IrFunction *f, BlockId b, uint32_t from,
                      ValueId obj)
{
    const IrBlock *blk = &f->blocks.v[b];
    for (uint32_t p = from; p < blk->values.n; p++) {
        ValueId k = blk->values.v[p];
        if (an_ends_mode(an, f, k, obj))
            return SCAN_REGION_ENDS;
        if (an_value_effects(an, f, k) & (EFF_BACKWARD | EFF_AUTOGRAD))
            return SCAN_BACKWARD;
    }
    return SCAN_GO_ON;
}

/* ---- what a branch taken says about a later one ------------------------------------------- */

/* A test whose outcome is known on the path from an eval() on: the eval()
 * sits in the else arm of `if phase == "train":`, so the `if phase ==
 * "train": loss.backward()` of the same iteration does not run. */
enum { KNOWN_MAX = 4 };
typedef struct Known {
    ValueId subject;           /* the compared value, or the test itself */
    const IrValue *constant;   /* subject == constant; NULL: the subject is the test */
    bool truth;                /* whether that holds */
} Known;

static bool plain_string(const Syntax *S, const IrValue *v)
{
    if (v->op != IR_CONST || !v->node || S->nodes[v->node].kind != N_STRING)
        return false;
    const Token *t = &S->toks.v[S->nodes[v->node].first_tok];
    char c = S->src[t->start];
    return c == '"' || c == '\'';   /* no prefix: not bytes, not raw */
}

/* `x == "k"`, `"k" == x`, `x != "k"`: x, the constant, and whether it is `==`. */
static bool equality_test(const Syntax *S, const IrFunction *f, ValueId c, ValueId *subject,
                          const IrValue **k, bool *eq)
{
    const IrValue *v = &f->values.v[c];
    if (v->op != IR_COMPARE || v->nargs != 2 || !v->node || S->nodes[v->node].kind != N_COMPARE)
        return false;
    const Node *n = &S->nodes[v->node];
    const Token *op = NULL;
    uint32_t ntok = 0;
    for (uint32_t i = 0; i < n->nkids; i++)
        if (elem_is_token(n->kids[i]))
            op = &S->toks.v[elem_index(n->kids[i])], ntok++;
    if (ntok != 1 || (op->kind != T_EQEQUAL && op->kind != T_NOTEQUAL))
        return false;
    const char *t;
    uint32_t len;
    const IrValue *a = &f->values.v[v->args[0]], *b = &f->values.v[v->args[1]];
    /* plain string literals only: 1 and 1.0, "a" and b"a" have one text */
    bool ka = plain_string(S, a), kb = plain_string(S, b);
    if (ka == kb || !ir_const_key(S, ka ? a : b, &t, &len))
        return false;
    *subject = ir_resolve(f, v->args[ka ? 1 : 0]);
    *k = ka ? a : b;
    *eq = op->kind == T_EQEQUAL;
    return true;
}

static bool same_constant(const Syntax *S, const IrValue *a, const IrValue *b)
{
    const char *x, *y;
    uint32_t xl, yl;
    return ir_const_key(S, a, &x, &xl) && ir_const_key(S, b, &y, &yl) && xl == yl &&
           S->nodes[a->node].kind == S->nodes[b->node].kind && memcmp(x, y, xl) == 0;
}

/* A test value whose truth cannot change while it lives: a comparison, a
 * parameter or constant, or the item of a literal of constants (`for
 * training in (True, False)`). A list's truth changes as it is filled. */
static bool stable_truth(const IrFunction *f, ValueId c)
{
    const IrValue *v = &f->values.v[ir_resolve(f, c)];
    if (v->op == IR_COMPARE || v->op == IR_CONST || v->op == IR_PARAM)
        return true;
    if (v->op != IR_ITER_NEXT || !v->nargs)
        return false;
    const IrValue *it = &f->values.v[ir_resolve(f, v->args[0])];
    if (it->op != IR_BUILD)
        return false;
    for (uint32_t i = 0; i < it->nargs; i++)
        if (f->values.v[it->args[i]].op != IR_CONST)
            return false;
    return it->nargs > 0;
}

/* What the test c having outcome `truth` says. */
static Known learn(const Syntax *S, const IrFunction *f, ValueId c, bool truth)
{
    ValueId x;
    const IrValue *k;
    bool eq;
    if (equality_test(S, f, c, &x, &k, &eq))
        return (Known){x, k, eq ? truth : !truth};
    if (!stable_truth(f, c))
        return (Known){0, NULL, truth};   /* learns nothing */
    return (Known){ir_resolve(f, c), NULL, truth};
}

/* The outcome of test c given what is known: 1, 0, or -1 when open. */
static int decide(const Syntax *S, const IrFunction *f, ValueId c, const Known *k)
{
    ValueId x;
    const IrValue *kc;
    bool eq;
    if (!k->constant)
        return ir_resolve(f, c) == k->subject ? k->truth : -1;
    if (!equality_test(S, f, c, &x, &kc, &eq) || x != k->subject)
        return -1;
    bool same = same_constant(S, kc, k->constant);
    if (!k->truth && !same)
        return -1;   /* x is not "val": it may or may not be "train" */
    int equal = k->truth ? same : 0;
    return eq ? equal : !equal;
}

/* A path's state: the tests known on it (indices into a walk's pool), at
 * most KNOWN_MAX, sorted, each of another subject. */
typedef struct PathState { BlockId b; uint8_t n; uint8_t k[KNOWN_MAX]; } PathState;

enum { POOL_MAX = 64, VISITS_PER_BLOCK = 4 };

typedef struct PathWalk {
    const Syntax *S;
    const IrFunction *f;
    Known pool[POOL_MAX];
    uint32_t npool;
    PathState *visited;   /* open addressing, b == UINT32_MAX is empty */
    uint32_t mask, nvisited, budget;
} PathWalk;

static bool same_known(const Syntax *S, const Known *a, const Known *b)
{
    return a->subject == b->subject && a->truth == b->truth &&
           (!a->constant ? !b->constant : b->constant && same_constant(S, a->constant, b->constant));
}

/* The pool index of k, added if new; -1 when the pool is full. */
static int pool_index(PathWalk *w, const Known *k)
{
    if (!k->subject)
        return -1;   /* a test that says nothing lasting */
    for (uint32_t i = 0; i < w->npool; i++)
        if (same_known(w->S, &w->pool[i], k))
            return (int)i;
    if (w->npool == POOL_MAX)
        return -1;
    w->pool[w->npool] = *k;
    return (int)w->npool++;
}

/* s also knows pool entry i (several of one subject may hold together:
 * `phase != "train"` and `phase != "val"` in an elif chain); past
 * KNOWN_MAX the lowest-numbered is dropped. Kept sorted. */
static void state_add(PathState *s, int i)
{
    if (i < 0)
        return;
    for (uint32_t j = 0; j < s->n; j++)
        if (s->k[j] == (uint8_t)i)
            return;   /* known already */
    uint32_t m = s->n;
    if (m == KNOWN_MAX)
        memmove(s->k, s->k + 1, --m);
    s->k[m++] = (uint8_t)i;
    for (uint32_t j = m - 1; j > 0 && s->k[j - 1] > s->k[j]; j--) {
        uint8_t t = s->k[j];
        s->k[j] = s->k[j - 1], s->k[j - 1] = t;
    }
    s->n = (uint8_t)m;
}

/* A known test no longer holds once the path runs the definition of its
 * subject again (the next item of `for phase in ...`). */
static void state_enter(PathWalk *w, PathState *s)
{
    uint32_t m = 0;
    for (uint32_t j = 0; j < s->n; j++)
        if (w->f->values.v[w->pool[s->k[j]].subject].block != s->b)
            s->k[m++] = s->k[j];
    s->n = (uint8_t)m;
}

static uint32_t state_hash(const PathState *s)
{
    uint64_t h = s->b * 0x9E3779B97F4A7C15ull;
    for (uint32_t j = 0; j < s->n; j++)
        h = (h ^ s->k[j]) * 0x100000001B3ull;
    return (uint32_t)(h >> 32);
}

static PathState *visited_slot(PathState *table, uint32_t mask, const PathState *s)
{
    for (uint32_t i = state_hash(s) & mask;; i = (i + 1) & mask) {
        PathState *e = &table[i];
        if (e->b == UINT32_MAX ||
            (e->b == s->b && e->n == s->n && !memcmp(e->k, s->k, s->n)))
            return e;
    }
}

/* Marks s visited; false if it was. The table grows with the states the
 * walk reaches (malloc'ed: a walk per eval() must not cost the function's
 * size in memory each time). */
static bool first_visit(PathWalk *w, const PathState *s)
{
    if (2 * (w->nvisited + 1) > w->mask + 1) {
        uint32_t cap = 2 * (w->mask + 1);
        PathState *t = malloc(cap * sizeof *t);
        if (!t)
            abort();
        memset(t, 0xff, cap * sizeof *t);
        for (uint32_t i = 0; i <= w->mask; i++)
            if (w->visited[i].b != UINT32_MAX)
                *visited_slot(t, cap - 1, &w->visited[i]) = w->visited[i];
        free(w->visited);
        w->visited = t, w->mask = cap - 1;
    }
    PathState *e = visited_slot(w->visited, w->mask, s);
    if (e->b != UINT32_MAX)
        return false;
    *e = *s;
    w->nvisited++;
    return true;
}

/* The successor of b the tests s knows decide, or -1 when both may run. */
static int decided_successor(const PathWalk *w, const PathState *s)
{
    const IrBlock *blk = &w->f->blocks.v[s->b];
    if (!blk->cond || blk->succs.n != 2 || blk->loop_header == s->b)
        return -1;
    for (uint32_t j = 0; j < s->n; j++) {
        int d = decide(w->S, w->f, blk->cond, &w->pool[s->k[j]]);
        if (d >= 0)
            return d ? 0 : 1;
    }
    return -1;
}

/* What taking successor i of b teaches: its if/elif test's outcome. */
static void state_take(PathWalk *w, PathState *s, BlockId from, uint32_t i)
{
    const IrBlock *blk = &w->f->blocks.v[from];
    if (blk->cond && blk->succs.n == 2 && blk->loop_header != from) {
        Known k = learn(w->S, w->f, blk->cond, i == 0);
        state_add(s, pool_index(w, &k));
    }
}

/* The tests that guard block b: up its chain of single predecessors, each
 * if/elif whose arm leads to b. */
static void learn_guards(PathWalk *w, PathState *s)
{
    BlockId b = s->b;
    for (int depth = 0; depth < 32 && w->f->blocks.v[b].preds.n == 1; depth++) {
        BlockId p = w->f->blocks.v[b].preds.v[0];
        const IrBlock *pb = &w->f->blocks.v[p];
        if (pb->cond && pb->succs.n == 2 && pb->loop_header != p && s->n < KNOWN_MAX) {
            Known k = learn(w->S, w->f, pb->cond, pb->succs.v[0] == b);
            state_add(s, pool_index(w, &k));   /* every guard of the chain holds */
        }
        b = p;
    }
}

/* Does the for loop at header h surely run its body once it is entered:
 * over a literal list or tuple with an element that is not starred,
 * `range(N)` with a literal N > 0, or the values() of a dict pfc lists
 * (`for net in nets.values(): net.train()` trains every net). */
static bool runs_body(const Analysis *an, const IrFunction *f, BlockId h)
{
    const IrBlock *hb = &f->blocks.v[h];
    ValueId next = 0;
    for (uint32_t i = 0; i < hb->values.n && !next; i++)
        if (f->values.v[hb->values.v[i]].op == IR_ITER_NEXT && f->values.v[hb->values.v[i]].nargs)
            next = hb->values.v[i];
    if (!next || hb->succs.n != 2)
        return false;
    const IrValue *it = &f->values.v[ir_resolve(f, f->values.v[next].args[0])];
    const Syntax *S = an->S;
    if (it->op == IR_BUILD && it->node &&
        (S->nodes[it->node].kind == N_LIST || S->nodes[it->node].kind == N_TUPLE)) {
        FOR_EACH_KID(&S->nodes[it->node], kid) {
            if (S->nodes[kid].kind != N_STARRED)
                return true;
        }
        return false;
    }
    if (it->op == IR_CALL && it->nargs == 2 && an_qual_is(an, f->values.v[it->args[0]].qual, "builtins.range")) {
        const IrValue *n = &f->values.v[it->args[1]];
        const char *t;
        uint32_t len;
        return n->node && S->nodes[n->node].kind == N_NUMBER && ir_const_key(S, n, &t, &len) &&
               len && t[0] >= '1' && t[0] <= '9';
    }
    IrDictHits hits;
    return ir_dict_element(an->ir, f, next, &hits) && hits.n > 0;
}

/* Does the region that starts at the eval() call `at` (of obj) reach a
 * backward() (or autograd.grad) along the control flow, the next iteration
 * of a loop included, before it ends? Adversarial and attribution code does;
 * the backward() of the next epoch, after model.train(), does not count, nor
 * a backward() behind a test the path already decided: the walk carries the
 * outcomes of the if/elif tests it went through (and those guarding the
 * eval()), so in `if phase == "train": model.train() else: model.eval()`
 * the `if phase == "train": loss.backward()` of the same phase is not
 * taken. A known test ends where its subject is computed again. A loop
 * that surely runs its body is not skipped on entry (runs_body). */
/* The walk of an_backward_before_train from the end of b0 on. */
static bool walk_reaches_backward(const Analysis *an, PathWalk *w, BlockId b0, ValueId obj)
{
    const IrFunction *f = w->f;
    uint32_t n = 0, cap = 64;
    PathState *stack = malloc(cap * sizeof *stack);
    if (!stack)
        abort();
    PathState s0 = {b0, 0, {0}};
    learn_guards(w, &s0);
    stack[n++] = s0;
    bool first = true, reaches = false;
    while (n && !reaches) {
        PathState s = stack[--n];
        if (!first) {
            int r = scan_block(an, f, s.b, 0, obj);
            reaches = r == SCAN_BACKWARD;
            if (r != SCAN_GO_ON)
                continue;
        }
        first = false;
        const IrBlock *x = &f->blocks.v[s.b];
        int only = decided_successor(w, &s);
        for (uint32_t i = 0; i < x->succs.n && !reaches; i++) {
            if (only >= 0 && (uint32_t)only != i)
                continue;
            PathState t = s;
            state_take(w, &t, s.b, i);
            t.b = x->succs.v[i];
            state_enter(w, &t);
            /* entering a loop that surely runs its body: the body comes next */
            const IrBlock *tb = &f->blocks.v[t.b];
            if (tb->loop_header == t.b && !an_in_loop(f, s.b, t.b) && runs_body(an, f, t.b)) {
                int r = scan_block(an, f, t.b, 0, obj);
                reaches = r == SCAN_BACKWARD;
                if (r != SCAN_GO_ON)
                    continue;
                t.b = tb->succs.v[0];
                state_enter(w, &t);
            }
            if (w->nvisited >= w->budget)
                t.n = 0;   /* too many paths: forget what was known, stay sound */
            if (!first_visit(w, &t))
                continue;
            if (n == cap) {
                cap *= 2;
                stack = realloc(stack, cap * sizeof *stack);
                if (!stack)
                    abort();
            }
            stack[n++] = t;
        }
    }
    free(stack);
    return reaches;
}

bool an_backward_before_train(const Analysis *an, Arena *A, const IrFunction *f, ValueId at,
                              ValueId obj)
{
    (void)A;
    BlockId b0 = f->values.v[at].block;
    const IrBlock *blk = &f->blocks.v[b0];
    uint32_t pos = 0;
    while (pos < blk->values.n && blk->values.v[pos] != at)
        pos++;
    int r = scan_block(an, f, b0, pos + 1, obj);
    if (r != SCAN_GO_ON)
        return r == SCAN_BACKWARD;
    PathWalk w;
    w.S = an->S, w.f = f, w.npool = 0, w.nvisited = 0;
    w.budget = VISITS_PER_BLOCK * f->blocks.n + 64;   /* states with tests known */
    w.mask = 63;
    w.visited = malloc(64 * sizeof *w.visited);
    if (!w.visited)
        abort();
    memset(w.visited, 0xff, 64 * sizeof *w.visited);
    bool reaches = walk_reaches_backward(an, &w, b0, obj);
    free(w.visited);
    return reaches;
}
