#include "fixes.h"
#include "analysis.h"
#include <string.h>

Fix *fix_new(RuleCtx *c, Applicability a, const char *message)
{
    Fix *f = arena_zalloc(c->A, sizeof *f);
    f->applicability = a;
    f->message = message;
    return f;
}

void fix_edit(RuleCtx *c, Fix *f, uint32_t start, uint32_t end, const char *text)
{
    Edit *e = arena_alloc(c->A, (f->nedits + 1) * sizeof *e);
    if (f->nedits)
        memcpy(e, f->edits, f->nedits * sizeof *e);
    e[f->nedits].start = start;
    e[f->nedits].end = end;
    e[f->nedits].text = text;
    f->edits = e;
    f->nedits++;
}

const char *fix_newline(const Syntax *S)
{
    for (uint32_t i = 0; i < S->len; i++) {
        if (S->src[i] == '\n')
            return "\n";
        if (S->src[i] == '\r')
            return i + 1 < S->len && S->src[i + 1] == '\n' ? "\r\n" : "\r";
    }
    return "\n";
}

uint32_t fix_line_start(const Syntax *S, uint32_t off)
{
    while (off > 0 && S->src[off - 1] != '\n' && S->src[off - 1] != '\r')
        off--;
    return off;
}

const char *fix_indent(RuleCtx *c, uint32_t off)
{
    uint32_t a = fix_line_start(c->S, off), b = a;
    while (b < c->S->len && (c->S->src[b] == ' ' || c->S->src[b] == '\t'))
        b++;
    return arena_strndup(c->A, c->S->src + a, b - a);
}

const char *fix_text(RuleCtx *c, uint32_t node)
{
    const Node *n = &c->S->nodes[node];
    uint32_t a = node_start(c->S, n), b = node_end(c->S, n);
    return arena_strndup(c->A, c->S->src + a, b - a);
}

uint32_t fix_parent(RuleCtx *c, uint32_t node) { return an_parent(c->an, node); }

uint32_t fix_statement(RuleCtx *c, uint32_t node)
{
    for (uint32_t n = node; n != UINT32_MAX; n = fix_parent(c, n)) {
        NodeKind k = (NodeKind)c->S->nodes[n].kind;
        if (k == N_SIMPLE_LINE || k == N_IF || k == N_FOR || k == N_WHILE || k == N_WITH ||
            k == N_TRY || k == N_FUNC_DEF || k == N_CLASS_DEF || k == N_MATCH)
            return n;
    }
    return UINT32_MAX;
}

const char *fix_torch_alias(RuleCtx *c)
{
    const IrFunction *m = &c->ir->funcs.v[0];
    for (uint32_t i = 1; i < m->values.n; i++) {
        const IrValue *v = &m->values.v[i];
        uint32_t len;
        const char *q = intern_str(&c->S->names, v->qual, &len);
        if (v->op == IR_GLOBAL && len == 5 && memcmp(q, "torch", 5) == 0 && v->name) {
            const char *n = intern_str(&c->S->names, v->name, &len);
            return arena_strndup(c->A, n, len);
        }
    }
    return NULL;
}

bool fix_has_multiline_string(RuleCtx *c, uint32_t node)
{
    const Node *n = &c->S->nodes[node];
    for (uint32_t t = n->first_tok; t < n->end_tok; t++) {
        const Token *tok = &c->S->toks.v[t];
        TokKind k = (TokKind)tok->kind;
        if (k != T_STRING && k != T_FSTRING_MIDDLE && k != T_FSTRING_START)
            continue;
        for (uint32_t i = tok->start; i < tok->start + tok->len; i++)
            if (c->S->src[i] == '\n' || c->S->src[i] == '\r')
                return true;
    }
    return false;
}

uint32_t fix_after_statement(RuleCtx *c, uint32_t stmt, bool *at_eof)
{
    const Node *n = &c->S->nodes[stmt];
    for (uint32_t t = n->end_tok; t-- > n->first_tok;) {
        const Token *tok = &c->S->toks.v[t];
        if (tok->kind == T_DEDENT)
            continue;   /* zero-width, at the next line's first token */
        *at_eof = tok->kind != T_NEWLINE || tok->len == 0;
        return tok->start + tok->len;
    }
    *at_eof = true;
    return node_end(c->S, n);
}

bool fix_line_of_its_own(RuleCtx *c, uint32_t stmt)
{
    const Node *n = &c->S->nodes[stmt];
    if (n->kind != N_SIMPLE_LINE)
        return false;
    uint32_t start = node_start(c->S, n), at = fix_line_start(c->S, start);
    while (at < start && (c->S->src[at] == ' ' || c->S->src[at] == '\t' || c->S->src[at] == '\f'))
        at++;
    return at == start;
}

void fix_insert_line_after(RuleCtx *c, Fix *f, uint32_t stmt, const char *line)
{
    bool at_eof;
    uint32_t at = fix_after_statement(c, stmt, &at_eof);
    const char *nl = fix_newline(c->S);
    fix_edit(c, f, at, at,
             at_eof ? arena_printf(c->A, "%s%s", nl, line) : arena_printf(c->A, "%s%s", line, nl));
}

/* ---- when a fix keeps the meaning of the code --------------------------------------- */


static bool name_is(const Syntax *S, uint32_t id, const char *s) { return intern_is(&S->names, id, s); }

static bool name_starts(const Syntax *S, uint32_t id, const char *p)
{
    return intern_has_prefix(&S->names, id, p);
}

/* One of the names (NULL-terminated list)? */
static bool name_in_list(const Syntax *S, uint32_t id, const char *const *names)
{
    for (; *names; names++)
        if (name_is(S, id, *names))
            return true;
    return false;
}

static bool forward_name(const Syntax *S, uint32_t id)
{
    return name_is(S, id, "forward") || name_is(S, id, "_forward") ||
           name_starts(S, id, "forward_");
}

static bool model_like_class(RuleCtx *c, const IrClass *k)
{
    if (k->is_module)
        return true;
    for (uint32_t m = 0; m < k->methods.n; m++)
        if (forward_name(c->S, c->ir->funcs.v[k->methods.v[m]].name))
            return true;
    return false;
}

/* Methods of a model class that are not model code: evaluation methods and
 * the hooks a training framework calls (training_step, on_validation_end). */
static bool loop_method_name(const Syntax *S, uint32_t id)
{
    static const char *const prefixes[] = {"eval", "valid", "test", "predict", "infer",
                                           "training_", "on_", NULL};
    for (const char *const *p = prefixes; *p; p++)
        if (name_starts(S, id, *p))
            return true;
    return false;
}

/* pytest collects Test* classes; unittest's come from a *TestCase. */
static bool test_like_class(RuleCtx *c, const IrClass *k)
{
    if (name_starts(c->S, k->name, "Test"))
        return true;
    for (uint32_t i = 0; i < k->bases.n; i++) {
        uint32_t len;
        const char *q = intern_str(&c->S->names, k->bases.v[i], &len);
        const char *last = q;
        for (uint32_t j = 0; j < len; j++)
            if (q[j] == '.')
                last = q + j + 1;
        uint32_t n = (uint32_t)(q + len - last);
        if ((n >= 4 && memcmp(last, "Test", 4) == 0) ||
            (n >= 4 && memcmp(last + n - 4, "Test", 4) == 0) ||
            (n >= 8 && memcmp(last + n - 8, "TestCase", 8) == 0))
            return true;
    }
    return false;
}

bool fix_allowed_in(RuleCtx *c, const IrFunction *f)
{
    if (an_context(c->an, f) != CTX_OTHER)
        return false;
    for (const IrFunction *g = f; g;
         g = g->parent > 0 ? &c->ir->funcs.v[g->parent] : NULL) {
        if (g->class_index < 0)
            continue;
        const IrClass *k = &c->ir->classes.v[g->class_index];
        if (test_like_class(c, k))
            return false;
        if (!model_like_class(c, k))
            continue;
        if (!loop_method_name(c->S, g->name))
            return false;
    }
    return true;
}

/* torch functions that return one tensor (torch.max, split, sort, unique and
 * the like may return tuples, so they are not here). */
static const char *const torch_tensor_functions[] = {
    "cat", "concat", "stack", "sum", "mean", "exp", "log", "matmul", "mm", "bmm", "einsum",
    "softmax", "log_softmax", "sigmoid", "tanh", "relu", "abs", "sqrt", "pow", "clamp",
    "flatten", "reshape", "squeeze", "unsqueeze", "transpose", "permute", "mul", "add", "sub",
    "div", "norm", "logsumexp", "cumsum", "diag", "tril", "triu", "gather", "index_select",
    "masked_fill", "square", "prod", "outer", "dot", "lerp", "addmm", "baddbmm", "cdist",
    "cosine_similarity", "tensordot", "roll", "flip", "exp2", "log1p", "expm1", "erf",
    "neg", "reciprocal", "rsqrt", "sin", "cos", "atan2", "hypot", NULL};

/* Tensor methods whose result is not one tensor. */
static const char *const non_tensor_methods[] = {
    "tolist", "item", "size", "dim", "numel", "chunk", "split", "unbind", "tensor_split",
    "sort", "topk", "kthvalue", "median", "mode", "unique", "unique_consecutive", "numpy",
    "data_ptr", "stride", "type", "get_device", "element_size", "equal", "allclose",
    "backward", "register_hook", "storage", "untyped_storage", "nonzero", "aminmax",
    "slogdet", "frexp", "cummax", "cummin", "histogram", "apply_", "map_", "tolist",
    "__len__", "is_contiguous", "is_floating_point", "nelement", "ndimension", NULL};

/* torch.nn layers whose call returns one tensor. */
static const char *const single_output_layers[] = {
    "Linear", "Bilinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
    "ConvTranspose3d", "Embedding", "LayerNorm", "GroupNorm", "RMSNorm", "BatchNorm1d",
    "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
    "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "ReLU", "LeakyReLU", "GELU", "SiLU",
    "Tanh", "Sigmoid", "Softmax", "LogSoftmax", "Identity", "Flatten", "Upsample",
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AvgPool1d", "AvgPool2d",
    "AvgPool3d", "Mish", "ELU", "PReLU", "Softplus", NULL};

/* What a model output carries as a tensor (a Hugging Face ModelOutput). */
static const char *const output_tensor_fields[] = {"loss", "logits", "last_hidden_state",
                                                   "pooler_output", NULL};
static const char *const tensor_views[] = {"T", "mT", "H", "mH", "real", "imag", "data", NULL};

enum { TENSOR_DEPTH = 6 };
static bool tensor_value(RuleCtx *c, const IrFunction *f, ValueId v, int depth);

static bool has_keyword(RuleCtx *c, const IrValue *v, const char *kw)
{
    for (uint32_t i = 1; v->op == IR_CALL && i < v->nargs; i++)
        if (name_is(c->S, ir_kwname(v, i), kw))
            return true;
    return false;
}

/* Every return of an in-file function (a model's forward) gives a tensor. */
static bool returns_tensor(RuleCtx *c, int fi, int depth)
{
    const IrFunction *g = &c->ir->funcs.v[fi];
    if (!g->returns.n || depth > TENSOR_DEPTH)
        return false;
    for (uint32_t i = 0; i < g->returns.n; i++) {
        const IrValue *r = &g->values.v[g->returns.v[i]];
        if (!r->nargs || !tensor_value(c, g, r->args[0], depth + 1))
            return false;
    }
    return true;
}

/* Is q `prefix` followed by one of the names (NULL-terminated)? */
static bool qual_tail_in(RuleCtx *c, uint32_t q, const char *prefix, const char *const *names)
{
    uint32_t len;
    const char *s = intern_str(&c->S->names, q, &len);
    size_t p = strlen(prefix);
    if (!q || len <= p || memcmp(s, prefix, p) != 0)
        return false;
    for (; *names; names++)
        if (strlen(*names) == len - p && memcmp(s + p, *names, len - p) == 0)
            return true;
    return false;
}

static bool qual_starts(RuleCtx *c, uint32_t q, const char *prefix)
{
    return name_starts(c->S, q, prefix) && !name_is(c->S, q, prefix);
}

static bool qualified_tensor_call(RuleCtx *c, const IrValue *v, uint32_t q)
{
    static const char *const tuple_functionals[] = {"multi_head_attention_forward", NULL};
    if (qual_starts(c, q, "torch.nn.functional."))
        return !has_keyword(c, v, "return_indices") &&
               !qual_tail_in(c, q, "torch.nn.functional.", tuple_functionals);
    return qual_tail_in(c, q, "torch.", torch_tensor_functions);
}

static bool tensor_call(RuleCtx *c, const IrFunction *f, const IrValue *v, int depth)
{
    const IrValue *callee = &f->values.v[v->args[0]];
    if (callee->roles & ROLE_LOSS_FN)
        return true;   /* crit(out, y) with crit = nn.CrossEntropyLoss() */
    if (callee->qual)
        return qualified_tensor_call(c, v, callee->qual);
    if ((callee->roles & ROLE_MODEL) && qual_tail_in(c, callee->ctor, "torch.nn.", single_output_layers))
        return true;
    int fi = ir_callee_function(c->ir, f, v->args[0]);
    if (fi >= 0)
        return returns_tensor(c, fi, depth);
    if (callee->op == IR_ATTR && callee->nargs)   /* a tensor method */
        return !name_in_list(c->S, callee->name, non_tensor_methods) &&
               !((name_is(c->S, callee->name, "max") || name_is(c->S, callee->name, "min")) &&
                 v->nargs > 1) &&
               tensor_value(c, f, callee->args[0], depth + 1);
    return false;
}

static bool is_string_const(RuleCtx *c, const IrValue *x)
{
    if (x->op != IR_CONST || !x->node)
        return false;
    TokKind k = (TokKind)c->S->toks.v[c->S->nodes[x->node].first_tok].kind;
    return k == T_STRING || k == T_FSTRING_START;
}

static bool model_output(const IrFunction *f, const IrValue *x)
{
    return x->op == IR_CALL && x->nargs && (f->values.v[x->args[0]].roles & ROLE_MODEL);
}

static bool tensor_value(RuleCtx *c, const IrFunction *f, ValueId v, int depth)
{
    if (!v || depth > TENSOR_DEPTH)
        return false;
    const IrValue *x = &f->values.v[v];
    if (x->flags & IRV_BACKWARD_RECV)
        return true;   /* x.backward() runs on it */
    switch ((IrOp)x->op) {
    case IR_CALL:
        return x->nargs && tensor_call(c, f, x, depth);
    case IR_BINOP: {   /* tensor arithmetic; `"%s" % t` is a string */
        bool any = false;
        for (uint32_t i = 0; i < x->nargs; i++) {
            if (is_string_const(c, &f->values.v[x->args[i]]))
                return false;
            any = any || tensor_value(c, f, x->args[i], depth + 1);
        }
        return any;
    }
    case IR_UNARY:
        return x->nargs && c->S->nodes[x->node].kind == N_UNARY_OP &&
               tensor_value(c, f, x->args[0], depth + 1);
    case IR_SUBSCR:
        return x->nargs && tensor_value(c, f, x->args[0], depth + 1);
    case IR_ATTR: {
        if (!x->nargs)
            return false;
        const IrValue *base = &f->values.v[x->args[0]];
        if (model_output(f, base) && name_in_list(c->S, x->name, output_tensor_fields))
            return true;
        return name_in_list(c->S, x->name, tensor_views) &&
               tensor_value(c, f, x->args[0], depth + 1);
    }
    case IR_PHI:
        for (uint32_t i = 0; i < x->nargs; i++)
            if (x->args[i] != v && !tensor_value(c, f, x->args[i], depth + 1))
                return false;
        return x->nargs > 0;
    default:
        return false;
    }
}

bool fix_is_tensor(RuleCtx *c, const IrFunction *f, ValueId v)
{
    return tensor_value(c, f, v, 0);
}

/* A method that puts its arguments into its receiver (xs.append(v)). */
static bool stores_into_receiver(const Syntax *S, uint32_t method)
{
    static const char *const stores[] = {"append", "extend", "insert", "appendleft", "add",
                                         "update", "setdefault", "put", NULL};
    return name_in_list(S, method, stores);
}

static bool cuts_graph(RuleCtx *c, const IrFunction *f, const IrValue *v)
{
    static const char *const cutting[] = {"detach", "item", "tolist", "numpy", "argmax",
                                          "argmin", NULL};
    static const char *const cutting_functions[] = {"torch.argmax", "torch.argmin",
                                                    "builtins.float", "builtins.int", NULL};
    if (v->op == IR_COMPARE)
        return true;
    if (v->op != IR_CALL || !v->nargs)
        return false;
    const IrValue *callee = &f->values.v[v->args[0]];
    if (callee->op == IR_ATTR && callee->nargs && name_in_list(c->S, callee->name, cutting))
        return true;
    return callee->qual && name_in_list(c->S, callee->qual, cutting_functions);
}

/* The values derived from `from`: through operations (an_reaches_backward's
 * closure) and also into the containers they are put in, so that a graph
 * kept in a list and returned with it is seen leaving. */
static uint8_t *derived_values(RuleCtx *c, const IrFunction *f, ValueId from)
{
    uint8_t *reach = arena_zalloc(c->A, f->values.n);
    reach[from] = 1;
    for (int sweep = 0, changed = 1; changed && sweep < 8; sweep++) {
        changed = 0;
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = &f->values.v[i];
            /* argmax, .item(), .detach(), a comparison: no graph goes on
             * (`actions` picked from a teacher's q-values do not train it) */
            bool carries = !cuts_graph(c, f, v);
            for (uint32_t a = 0; carries && !reach[i] && a < v->nargs; a++)
                if (reach[v->args[a]])
                    reach[i] = 1, changed = 1;
            if (!reach[i])
                continue;
            ValueId into = 0;
            if (v->op == IR_STORE_SUBSCR && v->nargs == 3)
                into = v->args[0];
            else if (v->op == IR_CALL && v->nargs && f->values.v[v->args[0]].op == IR_ATTR &&
                     f->values.v[v->args[0]].nargs &&
                     stores_into_receiver(c->S, f->values.v[v->args[0]].name))
                into = f->values.v[v->args[0]].args[0];
            if (into && !reach[into])
                reach[into] = 1, changed = 1;
        }
    }
    return reach;
}

/* Does a value derived from `from` feed a backward, get stored on an object
 * (when `stores` count), or leave the function? GRAPH_ESCAPES here:
 * returned or yielded. */
static GraphUse graph_use_in(RuleCtx *c, const IrFunction *f, ValueId from, bool stores)
{
    const uint8_t *reach = derived_values(c, f, from);
    GraphUse use = GRAPH_UNUSED;
    for (uint32_t i = 1; i < f->values.n; i++) {
        if (!reach[i] || i == from)
            continue;   /* a call's own effects are not a use of its result */
        const IrValue *v = &f->values.v[i];
        if ((v->flags & IRV_BACKWARD_RECV) || (stores && v->op == IR_STORE_ATTR))
            return GRAPH_USED;
        if (v->op == IR_CALL && v->nargs &&
            (an_value_effects(c->an, f, i) & (EFF_BACKWARD | EFF_AUTOGRAD)))
            return GRAPH_USED;
        if (v->op == IR_RETURN || v->op == IR_YIELD)
            use = GRAPH_ESCAPES;
    }
    return use;
}

/* What the in-file callers of function fi do with its result; ESCAPES when
 * there is none (it is called from outside the file) or the chain of callers
 * returning it is too long to follow. */
static GraphUse callers_use(RuleCtx *c, int fi, int depth, bool stores)
{
    if (fi <= 0 || depth > 3)
        return GRAPH_ESCAPES;
    bool called = false;
    GraphUse use = GRAPH_UNUSED;
    for (uint32_t gi = 0; gi < c->ir->funcs.n; gi++) {
        const IrFunction *g = &c->ir->funcs.v[gi];
        for (uint32_t i = 1; i < g->values.n; i++) {
            const IrValue *v = &g->values.v[i];
            if (v->op != IR_CALL || !v->nargs || ir_callee_function(c->ir, g, v->args[0]) != fi)
                continue;
            called = true;
            GraphUse u = graph_use_in(c, g, i, stores);
            if (u == GRAPH_ESCAPES)
                u = callers_use(c, (int)gi, depth + 1, stores);
            if (u == GRAPH_USED)
                return GRAPH_USED;
            if (u == GRAPH_ESCAPES)
                use = GRAPH_ESCAPES;
        }
    }
    return called ? use : GRAPH_ESCAPES;
}

GraphUse fix_graph_use(RuleCtx *c, const IrFunction *f, ValueId v)
{
    GraphUse use = graph_use_in(c, f, v, true);
    return use == GRAPH_ESCAPES ? callers_use(c, (int)(f - c->ir->funcs.v), 0, true) : use;
}

bool graph_backpropagated(RuleCtx *c, const IrFunction *f, ValueId v)
{
    GraphUse use = graph_use_in(c, f, v, false);
    if (use == GRAPH_ESCAPES)
        use = callers_use(c, (int)(f - c->ir->funcs.v), 0, false);
    return use == GRAPH_USED;
}

FixContext *passes_fix_contexts(Syntax *S, const Ir *ir)
{
    Analysis an;
    analysis_init(&an, S, ir);
    RuleCtx c = {S, ir, S->arena, NULL, NULL, &an};
    FixContext *out = arena_zalloc(S->arena, (ir->funcs.n + 1) * sizeof *out);
    for (uint32_t fi = 0; fi < ir->funcs.n; fi++) {
        out[fi].context = (uint8_t)an_context(&an, &ir->funcs.v[fi]);
        out[fi].fixable = fix_allowed_in(&c, &ir->funcs.v[fi]);
    }
    return out;
}
