/* TG003 eval-without-no-grad: the model runs in an evaluation region with
 * autograd recording: after model.eval(), in an eval/test/predict function, or
 * in a loop that never calls backward(). */
#include "analysis.h"
#include "fixes.h"
#include <string.h>

static bool starts_with(const char *s, uint32_t len, const char *p)
{
    size_t n = strlen(p);
    return len >= n && memcmp(s, p, n) == 0;
}

/* eval*, evaluate*, valid*, validate*, test*, predict*, infer*; framework hooks
 * that already run under no_grad are not regions of ours. */
static bool evaluation_name(const Syntax *S, uint32_t name)
{
    uint32_t len;
    const char *s = intern_str(&S->names, name, &len);
    static const char *const hooks[] = {"validation_step", "test_step", "predict_step",
                                        "validation_epoch_end", "test_epoch_end", NULL};
    for (const char *const *h = hooks; *h; h++)
        if (strlen(*h) == len && memcmp(s, *h, len) == 0)
            return false;
    return starts_with(s, len, "eval") || starts_with(s, len, "valid") ||
           starts_with(s, len, "test") || starts_with(s, len, "predict") ||
           starts_with(s, len, "infer");
}

static bool in_region_after_eval(const char *region)
{
    return strcmp(region, "after model.eval()") == 0;   /* no clear block to wrap */
}

static bool model_call(const Analysis *an, const IrFunction *f, ValueId i);

/* Did TG001 report something inside this function's span? Then the missing
 * no_grad is what makes memory grow: an error. */
static bool retained_in(const RuleCtx *c, const IrFunction *f)
{
    const Node *n = &c->S->nodes[f->node];
    uint32_t a = node_start(c->S, n), b = node_end(c->S, n);
    for (uint32_t i = 0; i < c->out->n; i++) {
        const Finding *x = &c->out->v[i];
        if (strcmp(x->code, "TG001") == 0 && x->start >= a && x->end <= b)
            return true;
    }
    return false;
}

/* The `def` keyword of a function (after its decorators), or NULL for an
 * `async def`: a decorator's grad mode would not hold while the coroutine runs. */
static const Token *def_keyword(RuleCtx *c, const Node *def)
{
    for (uint32_t i = 0; i < def->nkids; i++) {
        if (!elem_is_token(def->kids[i]))
            continue;
        const Token *t = &c->S->toks.v[elem_index(def->kids[i])];
        if (t->kind == T_KW_ASYNC)
            return NULL;
        if (t->kind == T_KW_DEF)
            return t;
    }
    return NULL;
}

/* Does the function hand a model output to a caller that backpropagates it? */
static bool result_trains(RuleCtx *c, const IrFunction *f)
{
    for (uint32_t i = 1; i < f->values.n; i++)
        if (model_call(c->an, f, i) && fix_graph_use(c, f, i) == GRAPH_USED)
            return true;
    return false;
}

/* @torch.no_grad() on the evaluation function, right above `def` (below
 * @staticmethod, @property and the like, which must stay outermost). */
static Fix *decorate_fix(RuleCtx *c, const IrFunction *f, const char *torch)
{
    const Token *kw = def_keyword(c, &c->S->nodes[f->node]);
    if (!kw || result_trains(c, f))
        return NULL;
    uint32_t at = fix_line_start(c->S, kw->start);
    Fix *fx = fix_new(c, FIX_SAFE, "decorate the function with @torch.no_grad()");
    fix_edit(c, fx, at, at,
             arena_printf(c->A, "%s@%s.no_grad()%s", fix_indent(c, kw->start), torch,
                          fix_newline(c->S)));
    return fx;
}

/* Can the loop around call v run under no_grad without changing what the
 * program computes? Not when it suspends (yield, await: the grad mode would
 * leak to the code that resumes it) or when a graph made in it may be used
 * (its values returned to a training caller, backpropagated, stored). */
static bool loop_may_drop_grad(RuleCtx *c, const IrFunction *f, const IrValue *v, uint32_t loop)
{
    const Node *n = &c->S->nodes[loop];
    for (uint32_t t = n->first_tok; t < n->end_tok; t++) {
        TokKind k = (TokKind)c->S->toks.v[t].kind;
        if (k == T_KW_YIELD || k == T_KW_AWAIT)
            return false;
    }
    BlockId h = f->blocks.v[v->block].loop_header;
    for (uint32_t i = 1; i < f->values.n; i++) {
        const IrValue *x = &f->values.v[i];
        if (x->op == IR_CALL && x->attach != ATT_DETACHED && an_in_loop(f, x->block, h) &&
            fix_graph_use(c, f, i) != GRAPH_UNUSED)
            return false;
    }
    return true;
}

/* `with torch.no_grad():` around the evaluation loop, re-indenting its lines
 * by the file's indentation step. Not offered when re-indenting would change
 * a multi-line string. */
static Fix *wrap_fix(RuleCtx *c, uint32_t loop, const char *torch)
{
    const Node *n = &c->S->nodes[loop];
    if (fix_has_multiline_string(c, loop))
        return NULL;
    uint32_t first = fix_line_start(c->S, node_start(c->S, n));
    const char *indent = fix_indent(c, first);
    /* the step: the body's indentation minus the header's */
    const Node *block = NULL;
    FOR_EACH_KID(n, kid)
        if (c->S->nodes[kid].kind == N_BLOCK && !block)
            block = &c->S->nodes[kid];
    const char *body = block && node_nkids(c->S, block)
                           ? fix_indent(c, node_start(c->S, node_kid(c->S, block, 0)))
                           : NULL;
    size_t il = strlen(indent);
    if (!body || strlen(body) <= il || strncmp(body, indent, il) != 0)
        return NULL;
    const char *step = body + il;
    bool at_eof;
    uint32_t end = fix_after_statement(c, loop, &at_eof);
    Fix *fx = fix_new(c, FIX_SAFE, "wrap the loop in `with torch.no_grad():`");
    fix_edit(c, fx, first, first,
             arena_printf(c->A, "%swith %s.no_grad():%s%s", indent, torch, fix_newline(c->S), step));
    for (uint32_t p = first; p < end; p++) {
        char ch = c->S->src[p];
        if (ch != '\n' && ch != '\r')
            continue;
        uint32_t next = p + 1 + (ch == '\r' && p + 1 < end && c->S->src[p + 1] == '\n');
        p = next - 1;
        if (next >= end)
            break;
        char nc = c->S->src[next];
        if (nc != '\n' && nc != '\r')   /* leave blank lines blank */
            fix_edit(c, fx, next, next, step);
    }
    return fx;
}

static void report(RuleCtx *c, const IrFunction *f, const IrValue *call, const char *region,
                   bool named)
{
    Finding *fd = rule_report(c, call->node, retained_in(c, f) ? SEV_ERROR : SEV_WARNING,
                arena_printf(c->A,
                             "the model runs %s with autograd recording: activations are kept "
                             "for a backward() that never comes (about the training activation "
                             "size per batch) and every step is slower",
                             region),
                "wrap the region in `with torch.no_grad():` (or decorate the function with "
                "`@torch.no_grad()`)");
    const char *torch = fix_torch_alias(c);
    if (!fd || !torch || !fix_allowed_in(c, f))
        return;
    if (named) {
        fd->fix = decorate_fix(c, f, torch);
        return;
    }
    /* a loop: the outermost statement of the innermost loop around the call */
    uint32_t loop = call->node;
    while (loop != UINT32_MAX && c->S->nodes[loop].kind != N_FOR &&
           c->S->nodes[loop].kind != N_WHILE)
        loop = fix_parent(c, loop);
    if (loop != UINT32_MAX && !in_region_after_eval(region) && loop_may_drop_grad(c, f, call, loop))
        fd->fix = wrap_fix(c, loop, torch);
}

/* An evaluation loop goes over data: the loop iterates something other than
 * range(...) (a loader, a list of batches, torch.load(...)). */
static bool iterates_data(const Analysis *an, const IrFunction *f, BlockId h)
{
    ValueId iterable = an_loop_iterable(f, h);
    if (!iterable)
        return false;
    const IrValue *it = &f->values.v[iterable];
    if (it->roles & ROLE_LOADER)
        return true;
    if (it->op == IR_CALL && it->nargs &&
        an_qual_is(an, f->values.v[it->args[0]].qual, "builtins.range"))
        return false;
    return it->op != IR_CONST;
}

static bool model_call(const Analysis *an, const IrFunction *f, ValueId i)
{
    const IrValue *v = &f->values.v[i];
    /* a call whose output is dropped (a calibration pass for observers or
     * BatchNorm statistics) frees its graph at once: nothing is kept */
    return v->op == IR_CALL && v->grad == GRAD_ENABLED && !(v->flags & IRV_GRAD_FORCED) &&
           !(v->flags & IRV_STMT) &&
           (an_value_effects(an, f, i) & EFF_MODEL_CALL) && an_runs_model(an, f, v);
}

/* The eval() calls of one function that start a region (their receiver is
 * a model and the region reaches no backward()), at most 32: bit j of a mode
 * state is "eval j ran on every path here and its model was not put back in
 * train mode since". */
enum { MAX_EVALS = 32 };
typedef struct EvalRegions {
    uint32_t n;
    ValueId at[MAX_EVALS], obj[MAX_EVALS];
    uint32_t *in;   /* per block: the state on entry */
} EvalRegions;

static void find_evals(RuleCtx *c, const IrFunction *f, EvalRegions *er)
{
    const Analysis *an = c->an;
    for (uint32_t i = 1; i < f->values.n && er->n < MAX_EVALS; i++) {
        ValueId r;
        if (an_mode_change(an, f, i, &r) == EFF_EVAL && (f->values.v[r].roles & ROLE_MODEL) &&
            !an_backward_before_train(an, c->A, f, i, r))
            er->at[er->n] = i, er->obj[er->n++] = r;
    }
}

/* One value's effect on the state: an eval() sets its bit, a train() of a
 * model (or of one pfc cannot name) clears the bits of the evals it may undo. */
static uint32_t mode_step(const Analysis *an, const IrFunction *f, const EvalRegions *er,
                          ValueId k, uint32_t state)
{
    for (uint32_t j = 0; j < er->n; j++) {
        if (er->at[j] == k)
            state |= 1u << j;
        else if ((state >> j & 1) && an_ends_mode(an, f, k, er->obj[j]))
            state &= ~(1u << j);
    }
    return state;
}

static uint32_t block_out(const Analysis *an, const IrFunction *f, const EvalRegions *er,
                          BlockId b)
{
    uint32_t state = er->in[b];
    const IrBlock *blk = &f->blocks.v[b];
    for (uint32_t p = 0; p < blk->values.n; p++)
        state = mode_step(an, f, er, blk->values.v[p], state);
    return state;
}

/* A must-analysis (intersection at joins) from the entry's empty state; the
 * other blocks start at the top (all set), so loops settle from above. */
static void solve_modes(RuleCtx *c, const IrFunction *f, EvalRegions *er)
{
    er->in = arena_alloc(c->A, (f->blocks.n + 1) * sizeof *er->in);
    uint32_t top = er->n == 32 ? UINT32_MAX : (1u << er->n) - 1;
    for (uint32_t b = 0; b < f->blocks.n; b++)
        er->in[b] = b ? top : 0;
    for (int round = 0, changed = 1; changed && round < 64; round++) {
        changed = 0;
        for (BlockId b = 1; b < f->blocks.n; b++) {
            const IrBlock *blk = &f->blocks.v[b];
            uint32_t in = blk->preds.n ? top : 0;
            for (uint32_t p = 0; p < blk->preds.n; p++)
                in &= block_out(c->an, f, er, blk->preds.v[p]);
            if (in != er->in[b])
                er->in[b] = in, changed = 1;
        }
    }
}
/* The model a model call runs: the callee, or the receiver of its method. */
static ValueId called_model(const IrFunction *f, const IrValue *v)
{
    const IrValue *callee = &f->values.v[v->args[0]];
    if (callee->roles & ROLE_MODEL)
        return v->args[0];
    return callee->op == IR_ATTR && callee->nargs ? callee->args[0] : 0;
}

/* The first eval region in force at a call of `model` not reported yet:
 * 1 + its index, or 0. */
static uint32_t open_region(const Analysis *an, const IrFunction *f, const EvalRegions *er,
                            uint32_t state, uint32_t done, ValueId model)
{
    for (uint32_t j = 0; j < er->n; j++)
        if ((state >> j & 1) && !(done >> j & 1) && an_may_alias(an, f, er->obj[j], model))
            return j + 1;
    return 0;
}

static void check_function(RuleCtx *c, const IrFunction *f, uint32_t fe)
{
    const Analysis *an = c->an;
    bool trains = fe & (EFF_BACKWARD | EFF_AUTOGRAD);
    bool named = !trains && f->kind == SCOPE_FUNCTION && evaluation_name(c->S, f->name);
    EvalRegions er = {0};
    const ModeSummary *ms = &an->modes[f - c->ir->funcs.v];
    bool evals = ms->any & EFF_EVAL;   /* the summary names every eval() the function makes */
    for (uint32_t k = 0; k < ms->n && !evals; k++)
        evals = ms->v[k].effect == EFF_EVAL;
    if (evals)
        find_evals(c, f, &er);
    if (er.n)
        solve_modes(c, f, &er);
    uint8_t *done_loops = arena_zalloc(c->A, f->blocks.n + 1);
    uint32_t done_regions = 0;
    for (BlockId b = 0; b < f->blocks.n; b++) {
        const IrBlock *blk = &f->blocks.v[b];
        uint32_t state = er.n ? er.in[b] : 0;
        for (uint32_t p = 0; p < blk->values.n; p++) {
            ValueId i = blk->values.v[p];
            const IrValue *v = &f->values.v[i];
            if (er.n)
                state = mode_step(an, f, &er, i, state);
            if (!model_call(an, f, i))
                continue;
            BlockId h = blk->loop_header;
            /* a loop over time steps or micro-batches whose outputs reach a
             * backward() after it trains */
            bool eval_loop = h && !done_loops[h] && iterates_data(an, f, h) &&
                             !(an_loop_effects(an, f, h) & (EFF_BACKWARD | EFF_AUTOGRAD)) &&
                             !graph_backpropagated(c, f, i);
            uint32_t region = state ? open_region(an, f, &er, state, done_regions,
                                                  called_model(f, v))
                                    : 0;
            if (!named && !region && !eval_loop)
                continue;
            report(c, f, v,
                   named ? "in an evaluation function"
                   : region ? "after model.eval()" : "in a loop that never calls backward()",
                   named);
            if (named)
                return;   /* one finding per region: its fix covers the region */
            if (region)   /* the evals in force together make one region (one fix) */
                done_regions |= state;
            if (h)
                done_loops[h] = 1;
        }
    }
}

void rule_tg003(RuleCtx *c)
{
    const Analysis *an = c->an;
    for (uint32_t fi = 0; fi < c->ir->funcs.n; fi++) {
        const IrFunction *f = &c->ir->funcs.v[fi];
        if (f->entry_grad == GRAD_DISABLED || an_runs_without_grad(c->an, fi))
            continue;
        /* model code runs under its caller's grad mode; unit tests evaluate
         * nothing; a method of an nn.Module (`predict`, Lightning's
         * validation_step) runs under the grad mode its caller chose, unless
         * it switches to eval mode itself: then it is an evaluation routine */
        if (an_context(an, f) != CTX_OTHER ||
            (f->class_index >= 0 && c->ir->classes.v[f->class_index].is_module &&
             !(an->effects[fi] & EFF_EVAL)))
            continue;
        check_function(c, f, an->effects[fi]);
    }
}
