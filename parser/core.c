/* The tree builder, error plumbing, target checks and the file entry point. */
#include "internal.h"
#include <string.h>

void bump(Parser *P)
{
    VEC_PUSH(P->S->arena, P->stack, ELEM_TOKEN | P->pos);
    /* the ENDMARKER is the last token: the cursor never moves past it */
    if (P->pos + 1 < P->ntok)
        P->pos++;
}

bool accept(Parser *P, TokKind k)
{
    if (!at(P, k) || k == T_ENDMARKER)
        return false;
    bump(P);
    return true;
}

bool expect(Parser *P, TokKind k)
{
    if (accept(P, k))
        return true;
    if (!P->stmt_error)
        error_expected(P, arena_printf(P->S->arena, "'%s'", tok_kind_text(k)));
    return false;
}

static uint32_t elem_first_tok(const Parser *P, Elem e)
{
    return elem_is_token(e) ? elem_index(e) : P->nodes.v[e].first_tok;
}

static uint32_t elem_end_tok(const Parser *P, Elem e)
{
    return elem_is_token(e) ? elem_index(e) + 1 : P->nodes.v[e].end_tok;
}

static bool elem_empty(const Parser *P, Elem e)
{
    return !elem_is_token(e) && P->nodes.v[e].first_tok == P->nodes.v[e].end_tok;
}

/* The node's token range runs from its first to its last non-empty child; a
 * node made only of empty children (missing expressions) sits at the cursor. */
uint32_t finish(Parser *P, NodeKind kind, uint32_t m)
{
    Node n = {(uint16_t)kind, 0, P->stack.n - m, NULL, P->pos, P->pos};
    if (n.nkids) {
        n.kids = memcpy(arena_ids(P->S->arena, &P->kids, n.nkids), P->stack.v + m,
                        n.nkids * sizeof(Elem));
        uint32_t lo = 0, hi = n.nkids;
        while (lo < n.nkids && elem_empty(P, n.kids[lo]))
            lo++;
        while (hi > lo && elem_empty(P, n.kids[hi - 1]))
            hi--;
        if (lo < hi) {
            n.first_tok = elem_first_tok(P, n.kids[lo]);
            n.end_tok = elem_end_tok(P, n.kids[hi - 1]);
        } else {
            n.first_tok = n.end_tok = elem_first_tok(P, n.kids[0]);
        }
    }
    P->stack.n = m;
    uint32_t id = P->nodes.n;
    VEC_PUSH(P->S->arena, P->nodes, n);
    VEC_PUSH(P->S->arena, P->stack, id);
    return id;
}

Elem top_elem(Parser *P) { return P->stack.v[P->stack.n - 1]; }

Node *node_at(Parser *P, Elem e) { return elem_is_token(e) ? NULL : &P->nodes.v[e]; }

Node *last_node(Parser *P) { return P->stack.n ? node_at(P, top_elem(P)) : NULL; }

/* ---- errors -------------------------------------------------------------------- */

void error_span(Parser *P, uint32_t start, uint32_t end, const char *msg)
{
    if (P->stmt_error)
        return;
    P->stmt_error = true;
    if (P->S->diags.n >= DIAG_LIMIT)
        return;
    Diag d = {start, end, msg};
    VEC_PUSH(P->S->arena, P->S->diags, d);
}

void error_here(Parser *P, const char *msg)
{
    const Token *t = &P->t[P->pos];
    if (t->kind == T_ERROR) {   /* the lexer has said why */
        P->stmt_error = true;
        return;
    }
    /* a missing token "at" a line break points at the end of the line */
    uint32_t len = t->kind == T_NEWLINE ? 0 : t->len;
    error_span(P, t->start, t->start + len, msg);
}

void error_expected(Parser *P, const char *what)
{
    if (P->stmt_error)
        return;   /* reported once per statement: do not even format it */
    TokKind k = cur(P);
    const char *got = k == T_NEWLINE || k == T_ENDMARKER || k == T_INDENT || k == T_DEDENT
                          ? tok_kind_text(k)
                          : NULL;
    error_here(P, got ? arena_printf(P->S->arena, "expected %s, found %s", what, got)
                      : arena_printf(P->S->arena, "expected %s", what));
}

static void elem_span(Parser *P, Elem e, uint32_t *start, uint32_t *end)
{
    uint32_t f = elem_first_tok(P, e), l = elem_end_tok(P, e);
    *start = P->t[f].start;
    *end = l > f ? P->t[l - 1].start + P->t[l - 1].len : *start;
}

void error_node(Parser *P, Elem e, const char *msg)
{
    uint32_t s, en;
    elem_span(P, e, &s, &en);
    error_span(P, s, en, msg);
}

void feature_at(Parser *P, Elem e, PyFeature f)
{
    FeatureUse u;
    elem_span(P, e, &u.start, &u.end);
    u.feature = (uint8_t)f;
    VEC_PUSH(P->S->arena, P->S->features, u);
}

/* Statement-level recovery: everything up to the end of the logical line goes
 * into an ERROR node (the lexer guarantees no NEWLINE inside brackets). */
void skip_to_line_end(Parser *P)
{
    if (at(P, T_NEWLINE) || at(P, T_ENDMARKER))
        return;
    uint32_t m = mark(P);
    while (!at(P, T_NEWLINE) && !at(P, T_ENDMARKER))
        bump(P);
    finish(P, N_ERROR, m);
}

bool enter(Parser *P)
{
    if (P->too_deep)
        return false;
    if (++P->depth > PARSE_MAX_DEPTH) {
        P->depth--;
        P->too_deep = true;
        error_here(P, "too many nested expressions or statements");
        return false;
    }
    return true;
}

/* ---- assignment, deletion and loop targets ------------------------------------------ */

static const char *expr_description(const Parser *P, const Node *n)
{
    switch ((NodeKind)n->kind) {
    case N_CALL: return "function call";
    case N_NUMBER: case N_STRING: case N_STRINGS: return "literal";
    case N_FSTRING: return "f-string expression";
    case N_CONSTANT: {
        TokKind k = (TokKind)P->t[n->first_tok].kind;
        return k == T_KW_NONE ? "None" : k == T_KW_TRUE ? "True" : k == T_KW_FALSE ? "False"
                                                                                  : "ellipsis";
    }
    case N_COMPARE: return "comparison";
    case N_BOOL_OP: case N_BIN_OP: case N_UNARY_OP: case N_NOT: case N_POWER: return "expression";
    case N_LAMBDA: return "lambda";
    case N_IF_EXP: return "conditional expression";
    case N_NAMED_EXPR: return "named expression";
    case N_GENERATOR: return "generator expression";
    case N_YIELD: case N_YIELD_FROM: return "yield expression";
    case N_AWAIT: return "await expression";
    case N_DICT: return "dict literal";
    case N_SET: return "set display";
    case N_LIST_COMP: return "list comprehension";
    case N_SET_COMP: return "set comprehension";
    case N_DICT_COMP: return "dict comprehension";
    case N_STARRED: return "starred";
    default: return "expression";
    }
}

/* Children of a TUPLE/LIST/PAREN that are expressions (skips brackets, commas). */
static void check_target_children(Parser *P, Node *n, TargetCtx ctx)
{
    for (uint32_t i = 0; i < n->nkids; i++)
        if (!elem_is_token(n->kids[i]))
            check_target(P, n->kids[i], ctx);
}

void check_target(Parser *P, Elem e, TargetCtx ctx)
{
    Node *n = node_at(P, e);
    if (!n)
        return;
    switch ((NodeKind)n->kind) {
    case N_NAME: case N_ATTRIBUTE: case N_SUBSCRIPT: case N_ERROR:
        return;
    case N_PAREN:
        /* a parenthesized target is the target itself: (o.a) += 1 */
        check_target_children(P, n, ctx);
        return;
    case N_TUPLE: case N_LIST:
        if (ctx == TGT_AUG) {
            error_node(P, e,
                       arena_printf(P->S->arena,
                                    "'%s' is an illegal expression for augmented assignment",
                                    n->kind == N_LIST ? "list" : "tuple"));
            return;
        }
        if (ctx == TGT_ANN) {
            error_node(P, e, "only single target (not tuple) can be annotated");
            return;
        }
        check_target_children(P, n, ctx);
        return;
    case N_STARRED:
        if (ctx == TGT_DEL) {
            error_node(P, e, "cannot delete starred");
            return;
        }
        if (ctx == TGT_AUG || ctx == TGT_ANN) {
            error_node(P, e, "starred assignment target must be in a list or tuple");
            return;
        }
        check_target(P, n->kids[n->nkids - 1], ctx);
        return;
    default: {
        const char *what = expr_description(P, n);
        const char *msg;
        if (ctx == TGT_DEL)
            msg = arena_printf(P->S->arena, "cannot delete %s", what);
        else if (ctx == TGT_AUG)
            msg = arena_printf(P->S->arena,
                               "'%s' is an illegal expression for augmented assignment", what);
        else if (n->kind == N_NAMED_EXPR || n->kind == N_YIELD || n->kind == N_YIELD_FROM)
            msg = arena_printf(P->S->arena, "assignment to %s not possible", what);
        else
            msg = arena_printf(P->S->arena, "cannot assign to %s", what);
        error_node(P, e, msg);
    }
    }
}

/* ---- entry point ------------------------------------------------------------------ */

/* file: [statements] ENDMARKER */
static void parse_module(Parser *P)
{
    uint32_t m = mark(P);
    while (!at(P, T_ENDMARKER)) {
        uint32_t before = P->pos;
        parse_statement(P);
        if (P->pos == before) {           /* progress guard */
            uint32_t em = mark(P);
            bump(P);
            finish(P, N_ERROR, em);
        }
    }
    VEC_PUSH(P->S->arena, P->stack, ELEM_TOKEN | P->pos);   /* ENDMARKER */
    P->S->root = finish(P, N_MODULE, m);
}

/* Stable merge sort by position: diagnostics at the same offset keep the order
 * in which they were found (lexer first). */
static void sort_diags(Arena *a, DiagVec *v)
{
    uint32_t n = v->n;
    Diag *tmp = arena_alloc(a, n * sizeof(Diag));
    for (uint32_t width = 1; width < n; width *= 2) {
        for (uint32_t lo = 0; lo < n; lo += 2 * width) {
            uint32_t mid = lo + width < n ? lo + width : n;
            uint32_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            uint32_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = v->v[j].start < v->v[i].start ? v->v[j++] : v->v[i++];
            while (i < mid)
                tmp[k++] = v->v[i++];
            while (j < hi)
                tmp[k++] = v->v[j++];
        }
        memcpy(v->v, tmp, n * sizeof(Diag));
    }
}

/* After a bracket that is never closed the rest of the file is one logical
 * line to the parser, and what it says about it is noise: keep the lexer's
 * "was never closed" and drop the parser's errors that follow it. */
static void drop_errors_after_unclosed_bracket(Syntax *S, uint32_t nlex, uint32_t at)
{
    if (at == UINT32_MAX)
        return;
    uint32_t w = nlex;
    for (uint32_t r = nlex; r < S->diags.n; r++)
        if (S->diags.v[r].start < at)
            S->diags.v[w++] = S->diags.v[r];
    S->diags.n = w;
}

void parse_file(Syntax *S, const char *src, uint32_t len, Arena *arena)
{
    memset(S, 0, sizeof *S);
    S->src = src;
    S->len = len;
    S->arena = arena;
    intern_init(&S->names, arena);
    LexInput in = {src, len, arena, &S->names, &S->diags, &S->features, UINT32_MAX};
    S->toks = lex_file(&in);
    uint32_t nlex = S->diags.n;

    Parser P;
    memset(&P, 0, sizeof P);
    P.S = S;
    P.t = S->toks.v;
    P.ntok = S->toks.n;
    P.nodes.cap = S->toks.n + 16;
    P.nodes.v = arena_alloc(arena, P.nodes.cap * sizeof(Node));
    parse_module(&P);
    S->nodes = P.nodes.v;
    S->nnodes = P.nodes.n;
    drop_errors_after_unclosed_bracket(S, nlex, in.unclosed_bracket);
    /* the lexer reports some errors late (an unclosed bracket at the end of
     * the file) and the parser appends its own: order all by position */
    if (S->diags.n > 1)
        sort_diags(arena, &S->diags);
}

void parse_check_target(Syntax *S, int target_minor)
{
    uint32_t before = S->diags.n;
    for (uint32_t i = 0; i < S->features.n; i++) {
        const FeatureUse *u = &S->features.v[i];
        int need = feature_min_minor((PyFeature)u->feature);
        if (need <= target_minor || S->diags.n >= DIAG_LIMIT)
            continue;
        Diag d = {u->start, u->end,
                  arena_printf(S->arena, "%s requires Python 3.%d or newer (target is 3.%d)",
                               feature_name((PyFeature)u->feature), need, target_minor)};
        VEC_PUSH(S->arena, S->diags, d);
    }
    if (S->diags.n > before)
        sort_diags(S->arena, &S->diags);
}

const char *node_kind_name(NodeKind k)
{
    static const char *const names[] = {
#define NODE(id) #id,
#include "nodes.def"
#undef NODE
    };
    return k < N__COUNT ? names[k] : "?";
}

uint32_t node_start(const Syntax *s, const Node *n) { return s->toks.v[n->first_tok].start; }

uint32_t node_end(const Syntax *s, const Node *n)
{
    if (n->end_tok == n->first_tok)
        return node_start(s, n);
    const Token *t = &s->toks.v[n->end_tok - 1];
    return t->start + t->len;
}

static bool starts_code_point(char c) { return ((unsigned char)c & 0xc0) != 0x80; }

static void compute_line_starts(Syntax *s)
{
    ARENA_VEC(uint32_t) v = {0};
    uint32_t nblocks = s->len / SYNTAX_CP_STRIDE + 1, cps = 0;
    uint32_t *cp_before = arena_alloc(s->arena, nblocks * sizeof *cp_before);
    VEC_PUSH(s->arena, v, 0);
    for (uint32_t i = 0; i < s->len; i++) {
        if (i % SYNTAX_CP_STRIDE == 0)
            cp_before[i / SYNTAX_CP_STRIDE] = cps;
        char c = s->src[i];
        cps += starts_code_point(c);
        if (c == '\n' || (c == '\r' && (i + 1 >= s->len || s->src[i + 1] != '\n')))
            VEC_PUSH(s->arena, v, i + 1);
    }
    if (s->len % SYNTAX_CP_STRIDE == 0)
        cp_before[nblocks - 1] = cps;
    s->line_starts = v.v;
    s->nlines = v.n;
    s->cp_before = cp_before;
}

/* Code points in src[0, offset). */
static uint32_t code_points_before(const Syntax *s, uint32_t offset)
{
    uint32_t block = offset / SYNTAX_CP_STRIDE, n = s->cp_before[block];
    for (uint32_t i = block * SYNTAX_CP_STRIDE; i < offset; i++)
        n += starts_code_point(s->src[i]);
    return n;
}

void syntax_line_col(Syntax *s, uint32_t offset, uint32_t *line, uint32_t *col)
{
    if (!s->line_starts)
        compute_line_starts(s);
    if (offset > s->len)
        offset = s->len;
    uint32_t lo = 0, hi = s->nlines;   /* last line start <= offset */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->line_starts[mid] <= offset)
            lo = mid;
        else
            hi = mid;
    }
    *line = lo + 1;
    *col = 1 + code_points_before(s, offset) - code_points_before(s, s->line_starts[lo]);
}

uint32_t node_nkids(const Syntax *s, const Node *n)
{
    (void)s;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n->nkids; i++)
        k += !elem_is_token(n->kids[i]);
    return k;
}

uint32_t node_kid_id(const Syntax *s, const Node *n, uint32_t i)
{
    (void)s;
    for (uint32_t j = 0; j < n->nkids; j++)
        if (!elem_is_token(n->kids[j]) && i-- == 0)
            return n->kids[j];
    return UINT32_MAX;
}

const Node *node_kid(const Syntax *s, const Node *n, uint32_t i)
{
    uint32_t id = node_kid_id(s, n, i);
    return id == UINT32_MAX ? NULL : &s->nodes[id];
}

const Token *node_token(const Syntax *s, const Node *n, TokKind k)
{
    for (uint32_t j = 0; j < n->nkids; j++)
        if (elem_is_token(n->kids[j]) && s->toks.v[elem_index(n->kids[j])].kind == k)
            return &s->toks.v[elem_index(n->kids[j])];
    return NULL;
}
