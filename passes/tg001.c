/* TG001 retained-graph: a value attached to the autograd graph outlives its
 * loop iteration: kept in a container that lives across iterations, or
 * accumulated into a loop-carried variable. */
#include "analysis.h"
#include "fixes.h"
#include <string.h>

/* The innermost loop around block b that container R survives, or 0. */
static BlockId loop_survived(const IrFunction *f, BlockId b, ValueId r)
{
    for (BlockId h = f->blocks.v[b].loop_header; h; h = f->blocks.v[h].loop_parent)
        if (an_lives_across(f, r, h))
            return h;
    return 0;
}

/* Is `R.clear()` (or `del R[:]`) called inside loop h? */
static bool cleared_in_loop(const Analysis *an, const IrFunction *f, ValueId r, BlockId h)
{
    for (uint32_t i = 1; i < f->values.n; i++) {
        ValueId recv;
        if (an_in_loop(f, f->values.v[i].block, h) &&
            an_method_call(f, &f->values.v[i], an->n_clear, &recv) && recv == r)
            return true;
    }
    return false;
}

static const char *node_text(RuleCtx *c, uint32_t node, uint32_t max)
{
    const Node *n = &c->S->nodes[node];
    uint32_t a = node_start(c->S, n), b = node_end(c->S, n);
    if (b - a > max)
        return arena_printf(c->A, "%.*s...", (int)max, c->S->src + a);
    return arena_strndup(c->A, c->S->src + a, b - a);
}

/* The kept graph is used on purpose: backpropagated later, here or by the
 * in-file callers it is returned to (a forward-like helper that collects
 * per-step outputs and stacks them for the loss). */
static bool consumed(RuleCtx *c, const IrFunction *f, ValueId v)
{
    return graph_backpropagated(c, f, v);
}

/* Does a backward() run in an iteration of any loop the container survives?
 * Then the saved tensors are freed; only the kept tensor and graph nodes stay. */
static bool backward_during_lifetime(const Analysis *an, const IrFunction *f, BlockId h,
                                     ValueId container)
{
    for (BlockId x = h; x; x = f->blocks.v[x].loop_parent) {
        if (!an_lives_across(f, container, x))
            break;
        if (an_loop_effects(an, f, x) & EFF_BACKWARD)
            return true;
    }
    return false;
}

static bool is_scalar(const IrValue *v) { return (v->roles & (ROLE_SCALAR | ROLE_LOSS)) != 0; }

/* `.detach()` after an expression; an operator expression gets parentheses
 * first so that the call binds to all of it. */
static void detach_edit(RuleCtx *c, Fix *fx, uint32_t node)
{
    const Node *n = &c->S->nodes[node];
    NodeKind k = (NodeKind)n->kind;
    bool atom = k == N_NAME || k == N_ATTRIBUTE || k == N_CALL || k == N_SUBSCRIPT ||
                k == N_PAREN || k == N_LIST || k == N_TUPLE;
    uint32_t a = node_start(c->S, n), b = node_end(c->S, n);
    if (!atom)
        fix_edit(c, fx, a, a, "(");
    fix_edit(c, fx, b, b, atom ? ".detach()" : ").detach()");
}

/* Is the node an expression that `.detach()` (or parentheses) may follow?
 * Not `*xs`, `**kw`, `k=v`, a bare generator argument. */
static bool plain_expression(RuleCtx *c, uint32_t node)
{
    NodeKind k = (NodeKind)c->S->nodes[node].kind;
    return k != N_STARRED && k != N_DOUBLE_STARRED && k != N_KEYWORD && k != N_GENERATOR;
}

/* `[a, b]` / `(a, b)` of proven tensors: each element detached. */
static bool detach_elements(RuleCtx *c, Fix *fx, const IrFunction *f, ValueId kept, uint32_t at)
{
    const Node *n = &c->S->nodes[at];
    const IrValue *k = &f->values.v[kept];
    if ((n->kind != N_LIST && n->kind != N_TUPLE) || k->op != IR_BUILD ||
        node_nkids(c->S, n) != k->nargs || !k->nargs)
        return false;
    for (uint32_t i = 0; i < k->nargs; i++)
        if (!plain_expression(c, node_kid_id(c->S, n, i)) || !fix_is_tensor(c, f, k->args[i]))
            return false;
    for (uint32_t i = 0; i < k->nargs; i++)
        detach_edit(c, fx, node_kid_id(c->S, n, i));
    return true;
}

/* Is the graph of the container kept as `self.<name>` used by any function
 * of the file (backpropagated, returned, stored)? */
static bool attribute_graph_used(RuleCtx *c, uint32_t name)
{
    for (uint32_t gi = 0; gi < c->ir->funcs.n; gi++) {
        const IrFunction *g = &c->ir->funcs.v[gi];
        for (uint32_t i = 1; i < g->values.n; i++)
            if (g->values.v[i].op == IR_ATTR && g->values.v[i].name == name &&
                fix_graph_use(c, g, i) != GRAPH_UNUSED)
                return true;
    }
    return false;
}

/* Where the fix goes for a finding at node `at`, which keeps *kept: the
 * added value of `d[k] += v` (the finding points at the target, *kept becomes
 * v); UINT32_MAX for `d[k] = x = v`, whose v other names share. */
static uint32_t stored_expression(RuleCtx *c, const IrFunction *f, uint32_t at, ValueId *kept)
{
    uint32_t p = fix_parent(c, at);
    if (p == UINT32_MAX)
        return at;
    const Node *pn = &c->S->nodes[p];
    if (pn->kind == N_ASSIGN && node_nkids(c->S, pn) > 2)
        return UINT32_MAX;
    if (pn->kind != N_AUG_ASSIGN || node_nkids(c->S, pn) != 2 || node_kid_id(c->S, pn, 0) != at)
        return at;
    const IrValue *k = &f->values.v[*kept];
    if (k->op != IR_BINOP || k->nargs != 2)
        return UINT32_MAX;
    *kept = k->args[1];
    return node_kid_id(c->S, pn, 1);
}

/* The safe fix: `.detach()` on the stored expression, written only where it
 * keeps the meaning of the rest of the program: outside model and test code,
 * on a proven tensor (or a display of them: `[a, b].detach()` raises), and
 * when nothing may still use the graph of what is kept (holder: the
 * container, or the accumulator's new value). */
static void attach_detach_fix(RuleCtx *c, Finding *fd, const IrFunction *f, ValueId kept,
                              ValueId holder, uint32_t at)
{
    if (!fd || !fix_allowed_in(c, f) || (at = stored_expression(c, f, at, &kept)) == UINT32_MAX ||
        !plain_expression(c, at))
        return;
    const IrValue *h = &f->values.v[holder];
    if (fix_graph_use(c, f, holder) != GRAPH_UNUSED ||
        (h->op == IR_ATTR && attribute_graph_used(c, h->name)))
        return;
    Fix *fx = fix_new(c, FIX_SAFE, "add .detach()");
    if (fix_is_tensor(c, f, kept))
        detach_edit(c, fx, at);
    else if (!detach_elements(c, fx, f, kept, at))
        return;
    fd->fix = fx;
}

/* kept: the value; at: the CST node where it is stored (the span reported) */
static void report(RuleCtx *c, const IrFunction *f, ValueId kept_id, ValueId holder,
                   uint32_t at, const char *where, bool backward_in_loop)
{
    const IrValue *kept = &f->values.v[kept_id];
    const char *what = node_text(c, at, 40);
    if (!backward_in_loop) {
        Finding *fd = rule_report(c, at, SEV_ERROR,
                    arena_printf(c->A,
                                 "%s keeps `%s`, which is still attached to the autograd graph, "
                                 "and no backward() in this loop frees it: every iteration's "
                                 "saved activations stay alive until CUDA runs out of memory "
                                 "(measured: GPT-2 124M, batch 8x1024, six batches: 65.2 GiB "
                                 "peak instead of 6.4 GiB)",
                                 where, what),
                    "store `.detach()` (or `.item()`, which syncs every step); or run the loop "
                    "under `with torch.no_grad():` if it only evaluates");
        attach_detach_fix(c, fd, f, kept_id, holder, at);
        return;
    }
    bool scalar = is_scalar(kept);
    Finding *fd = rule_report(c, at, scalar ? SEV_WARNING : SEV_ERROR,
                scalar ? arena_printf(c->A,
                                      "%s keeps `%s`, a scalar still attached to the autograd "
                                      "graph: backward() freed its saved tensors, but every "
                                      "step's graph nodes stay alive on the host",
                                      where, what)
                       : arena_printf(c->A,
                                      "%s keeps `%s`, a tensor still attached to the autograd "
                                      "graph: its storage and graph stay alive every step "
                                      "(measured: logits of batch 4x1024x50257 fp32 add "
                                      "0.77 GiB per step)",
                                      where, what),
                scalar ? "store `.detach()` (or `.item()`, which syncs with the GPU every step)"
                       : "`.detach()` frees the graph but not the storage: keep a reduction "
                         "(`.argmax(-1)`, a metric) or `.detach().cpu()`");
    attach_detach_fix(c, fd, f, kept_id, holder, at);
}

/* A loop that walks the model's structure (`for name, p in
 * model.named_parameters()`, `for block in self.blocks`, `for net in [g, d]`),
 * not the steps of training or evaluation: what it keeps is per model, not
 * per step. */
static bool iterates_models(const Analysis *an, const IrFunction *f, ValueId it, int depth)
{
    const IrValue *x = &f->values.v[ir_resolve(f, it)];
    if (x->roles & (ROLE_PARAM | ROLE_MODEL))
        return true;
    if (depth > 3)
        return false;
    if (x->op == IR_GLOBAL && !x->qual && x->name < an->ir->nnames && an->ir->last_def[x->name]) {
        const IrModuleDef *d = &an->ir->module_defs.v[an->ir->last_def[x->name] - 1];
        return iterates_models(an, &an->ir->funcs.v[0], d->value, depth + 1);   /* nets = [a, b] */
    }
    if (x->op == IR_BUILD && x->nargs) {   /* [gen, disc] */
        for (uint32_t a = 0; a < x->nargs; a++)
            if (!(f->values.v[x->args[a]].roles & ROLE_MODEL))
                return false;
        return true;
    }
    if (x->op == IR_CALL && x->nargs >= 2 &&
        (an_qual_is(an, f->values.v[x->args[0]].qual, "builtins.zip") ||
         an_qual_is(an, f->values.v[x->args[0]].qual, "builtins.enumerate")))
        for (uint32_t a = 1; a < x->nargs; a++)
            if (iterates_models(an, f, x->args[a], depth + 1))
                return true;
    return false;
}

static bool walks_model(const Analysis *an, const IrFunction *f, BlockId h)
{
    ValueId it = an_loop_iterable(f, h);
    return it && iterates_models(an, f, it, 0);
}

/* Is the attached part of v made by the loop h, not just an index or an
 * element of a graph built before it (`results[name] = {"img": out[i]}`
 * after one forward: the slices share that one graph)? */
static bool graph_made_in_loop(const IrFunction *f, ValueId v, BlockId h, int depth)
{
    const IrValue *x = &f->values.v[ir_resolve(f, v)];
    if (!an_in_loop(f, x->block, h) || x->attach == ATT_DETACHED)
        return false;
    if (depth > 8)
        return true;
    if ((x->op == IR_SUBSCR || x->op == IR_UNPACK || x->op == IR_ATTR) && x->nargs)
        return graph_made_in_loop(f, x->args[0], h, depth + 1);
    if (x->op == IR_BUILD) {
        for (uint32_t a = 0; a < x->nargs; a++)
            if (graph_made_in_loop(f, x->args[a], h, depth + 1))
                return true;
        return false;
    }
    return true;
}

/* `d["loss"] = loss`: a literal key overwrites one entry every iteration;
 * the mapping keeps the latest value, it does not grow. */
static bool overwrites_one_key(const IrFunction *f, const IrValue *store)
{
    if (store->op != IR_STORE_SUBSCR || f->values.v[store->args[1]].op != IR_CONST)
        return false;
    /* `d["loss"] += loss` adds to the entry: that one grows */
    const IrValue *x = &f->values.v[store->args[2]];
    for (uint32_t a = 0; x->op == IR_BINOP && a < x->nargs; a++) {
        const IrValue *o = &f->values.v[x->args[a]];
        if (o->op == IR_SUBSCR && o->nargs && ir_resolve(f, o->args[0]) == ir_resolve(f, store->args[0]))
            return false;
    }
    return true;
}

/* losses.append(loss), history[k] = out, self.outputs.extend(...) */
static void check_container_store(RuleCtx *c, const IrFunction *f, ValueId i)
{
    const Analysis *an = c->an;
    const IrValue *v = &f->values.v[i];
    ValueId recv = 0, kept = 0;
    uint32_t at = v->node;
    const char *verb = NULL;
    if (an_method_call(f, v, an->n_append, &recv) || an_method_call(f, v, an->n_extend, &recv) ||
        an_method_call(f, v, an->n_appendleft, &recv)) {
        if (v->nargs != 2)
            return;
        kept = v->args[1];
        at = an_call_arg_node(c->S, v->node, 0);
        verb = node_text(c, f->values.v[v->args[0]].node, 40);
    } else if (an_method_call(f, v, an->n_insert, &recv) && v->nargs == 3) {
        kept = v->args[2];
        at = an_call_arg_node(c->S, v->node, 1);
        verb = node_text(c, f->values.v[v->args[0]].node, 40);
    } else if (v->op == IR_STORE_SUBSCR && v->nargs == 3) {
        recv = v->args[0];
        kept = v->args[2];
        at = v->index ? v->index : v->node;   /* the assigned expression */
        const Node *target = &c->S->nodes[v->node];
        uint32_t base = node_nkids(c->S, target) ? node_kid_id(c->S, target, 0) : v->node;
        verb = arena_printf(c->A, "the item assignment to `%s`", node_text(c, base, 30));
    } else {
        return;
    }
    const IrValue *k = &f->values.v[kept];
    if (k->attach != ATT_ATTACHED || (k->roles & ROLE_PARAM))
        return;   /* keeping parameters themselves costs nothing */
    BlockId h = loop_survived(f, v->block, recv);
    if (!h || cleared_in_loop(an, f, recv, h) || consumed(c, f, recv) || walks_model(an, f, h) ||
        overwrites_one_key(f, v) || !graph_made_in_loop(f, kept, h, 0))
        return;
    bool backward = backward_during_lifetime(an, f, h, recv);
    report(c, f, kept, recv, at,
           v->op == IR_STORE_SUBSCR ? verb : arena_printf(c->A, "`%s(...)`", verb), backward);
}

/* Does the loop-carried phi p receive v back along some path? */
static bool flows_into(const IrFunction *f, ValueId p, ValueId v, int depth)
{
    const IrValue *x = &f->values.v[p];
    for (uint32_t a = 0; a < x->nargs; a++) {
        ValueId arg = x->args[a];
        if (arg == v)
            return true;
        if (depth < 8 && arg != p && f->values.v[arg].op == IR_PHI && flows_into(f, arg, v, depth + 1))
            return true;
    }
    return false;
}

/* Is the loop-carried variable p set back to a detached value somewhere in
 * loop h (`running_loss = 0` after each optimizer step)? Then it holds at
 * most one accumulation window's graph, not every step's. */
static bool reset_in_loop(const IrFunction *f, ValueId p, BlockId h, int depth)
{
    const IrValue *x = &f->values.v[p];
    for (uint32_t a = 0; a < x->nargs; a++) {
        const IrValue *arg = &f->values.v[x->args[a]];
        if (arg->op == IR_PHI) {
            if (x->args[a] != p && depth < 8 && an_in_loop(f, arg->block, h) &&
                reset_in_loop(f, x->args[a], h, depth + 1))
                return true;
        } else if (arg->attach == ATT_DETACHED && an_in_loop(f, arg->block, h)) {
            return true;
        }
    }
    return false;
}

/* total += loss, total = total + loss */
static void check_accumulator(RuleCtx *c, const IrFunction *f, ValueId i)
{
    const IrValue *v = &f->values.v[i];
    if (v->op != IR_BINOP || v->nargs != 2 || v->attach != ATT_ATTACHED)
        return;
    for (int side = 0; side < 2; side++) {
        ValueId acc = v->args[side];
        const IrValue *p = &f->values.v[acc];
        const IrValue *added = &f->values.v[v->args[1 - side]];
        if (p->op != IR_PHI || f->blocks.v[p->block].loop_header != p->block)
            continue;   /* not a variable carried around a loop */
        if (!an_in_loop(f, v->block, p->block) || !flows_into(f, acc, i, 0))
            continue;
        if (added->attach != ATT_ATTACHED || consumed(c, f, i) ||
            reset_in_loop(f, acc, p->block, 0))
            return;
        uint32_t len;
        const char *name = intern_str(&c->S->names, p->name, &len);
        bool backward = an_loop_effects(c->an, f, p->block) & EFF_BACKWARD;
        /* point at what is added: the right side of `total += x` / `total + x`,
         * the left side of `x + total` */
        const Node *stmt = &c->S->nodes[v->node];
        uint32_t at = node_nkids(c->S, stmt) == 2 ? node_kid_id(c->S, stmt, (uint32_t)(1 - side))
                                                  : v->node;
        report(c, f, v->args[1 - side], i, at,
               arena_printf(c->A, "the running total `%.*s`", (int)len, name), backward);
        return;
    }
}

void rule_tg001(RuleCtx *c)
{
    for (uint32_t fi = 0; fi < c->ir->funcs.n; fi++) {
        const IrFunction *f = &c->ir->funcs.v[fi];
        if (an_context(c->an, f) != CTX_OTHER)
            continue;   /* a forward keeps graphs on purpose; a unit test is no training */
        if (an_runs_without_grad(c->an, fi))
            continue;   /* every caller holds no_grad: nothing is attached */
        for (uint32_t i = 1; i < f->values.n; i++) {
            if (!f->blocks.v[f->values.v[i].block].loop_header)
                continue;
            check_container_store(c, f, i);
            check_accumulator(c, f, i);
        }
    }
}
