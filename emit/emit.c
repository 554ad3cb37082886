#include "emit.h"
#include <stdlib.h>

/* Iterative pre-order walk: left-deep chains (a + b + ... , a.b.c...) can be
 * far deeper than the C stack allows. */
typedef struct Frame { uint32_t node, next; } Frame;
typedef struct Walk { Frame *v; uint32_t n, cap; } Walk;

static void walk_push(Walk *w, uint32_t node)
{
    if (w->n == w->cap) {
        w->cap = w->cap ? w->cap * 2 : 64;
        Frame *v = realloc(w->v, w->cap * sizeof *v);
        if (!v)
            abort();
        w->v = v;
    }
    w->v[w->n].node = node;
    w->v[w->n].next = 0;
    w->n++;
}

typedef void (*TokenFn)(const Syntax *s, uint32_t tok, uint32_t depth, void *ctx);
typedef void (*NodeFn)(const Syntax *s, uint32_t node, uint32_t depth, void *ctx);

static void walk_tree(const Syntax *s, NodeFn on_node, TokenFn on_token, void *ctx)
{
    Walk w = {0};
    walk_push(&w, s->root);
    if (on_node)
        on_node(s, s->root, 0, ctx);
    while (w.n) {
        Frame *f = &w.v[w.n - 1];
        const Node *n = &s->nodes[f->node];
        if (f->next == n->nkids) {
            w.n--;
            continue;
        }
        Elem e = n->kids[f->next++];
        uint32_t depth = w.n;
        if (elem_is_token(e)) {
            if (on_token)
                on_token(s, elem_index(e), depth, ctx);
        } else {
            if (on_node)
                on_node(s, e, depth, ctx);
            walk_push(&w, e);
        }
    }
    free(w.v);
}

static uint32_t trivia_start(const Syntax *s, uint32_t tok)
{
    if (tok == 0)
        return 0;
    const Token *p = &s->toks.v[tok - 1];
    return p->start + p->len;
}

static void emit_token(const Syntax *s, uint32_t tok, uint32_t depth, void *ctx)
{
    (void)depth;
    const Token *t = &s->toks.v[tok];
    uint32_t from = trivia_start(s, tok);
    buf_put(ctx, s->src + from, t->start + t->len - from);
}

void emit_tree(const Syntax *s, Buf *out) { walk_tree(s, NULL, emit_token, out); }

typedef struct Check { uint32_t expect; const char *why; } Check;

static void check_token(const Syntax *s, uint32_t tok, uint32_t depth, void *ctx)
{
    (void)s;
    (void)depth;
    Check *c = ctx;
    if (!c->why && tok != c->expect)
        c->why = tok < c->expect ? "token visited twice or out of order" : "token missing from tree";
    c->expect = tok + 1;
}

static void check_node(const Syntax *s, uint32_t node, uint32_t depth, void *ctx)
{
    (void)depth;
    Check *c = ctx;
    const Node *n = &s->nodes[node];
    if (c->why)
        return;
    if (n->end_tok < n->first_tok)
        c->why = "node with a negative span";
    for (uint32_t i = 0; i < n->nkids && !c->why; i++) {
        Elem e = n->kids[i];
        uint32_t f = elem_is_token(e) ? elem_index(e) : s->nodes[e].first_tok;
        uint32_t l = elem_is_token(e) ? elem_index(e) + 1 : s->nodes[e].end_tok;
        if (l > f && (f < n->first_tok || l > n->end_tok))
            c->why = "child outside its parent's span";
    }
}

const char *check_tree(const Syntax *s)
{
    /* tokens tile the file: each starts at or after the previous end, the
     * bytes between are trivia, and the last one ends the file */
    uint32_t prev = 0;
    for (uint32_t i = 0; i < s->toks.n; i++) {
        const Token *t = &s->toks.v[i];
        if (t->start < prev || t->start + t->len > s->len)
            return "tokens overlap or run past the end of the file";
        prev = t->start + t->len;
    }
    if (!s->toks.n || s->toks.v[s->toks.n - 1].kind != T_ENDMARKER ||
        s->toks.v[s->toks.n - 1].start != s->len)
        return "no ENDMARKER at the end of the file";
    Check c = {0, NULL};
    walk_tree(s, check_node, check_token, &c);
    if (!c.why && c.expect != s->toks.n)
        c.why = "token missing from tree";
    return c.why;
}

/* ---- dump ------------------------------------------------------------------------ */

static void indent(Buf *b, uint32_t depth)
{
    for (uint32_t i = 0; i < depth; i++)
        buf_puts(b, "  ");
}

static void dump_node(const Syntax *s, uint32_t node, uint32_t depth, void *ctx)
{
    Buf *b = ctx;
    const Node *n = &s->nodes[node];
    indent(b, depth);
    buf_printf(b, "%s %u..%u\n", node_kind_name((NodeKind)n->kind), node_start(s, n),
               node_end(s, n));
}

static void dump_trivia(const Syntax *s, uint32_t from, uint32_t to, Buf *b)
{
    while (from < to) {
        TriviaKind k;
        uint32_t len = trivia_piece(s->src, from, to, &k);
        buf_printf(b, " %s\"", trivia_kind_name(k));
        buf_put_escaped(b, s->src + from, len);
        buf_putc(b, '"');
        from += len;
    }
}

static void dump_token(const Syntax *s, uint32_t tok, uint32_t depth, void *ctx)
{
    Buf *b = ctx;
    const Token *t = &s->toks.v[tok];
    indent(b, depth);
    buf_printf(b, "%s %u..%u", tok_kind_name((TokKind)t->kind), t->start, t->start + t->len);
    if (t->len) {
        buf_puts(b, " \"");
        buf_put_escaped(b, s->src + t->start, t->len);
        buf_putc(b, '"');
    }
    uint32_t from = trivia_start(s, tok);
    if (from < t->start) {
        buf_puts(b, "  ~");
        dump_trivia(s, from, t->start, b);
    }
    buf_putc(b, '\n');
}

void dump_cst(Syntax *s, Buf *out)
{
    walk_tree(s, dump_node, dump_token, out);
    for (uint32_t i = 0; i < s->diags.n; i++) {
        uint32_t line, col;
        syntax_line_col(s, s->diags.v[i].start, &line, &col);
        buf_printf(out, "error %u:%u: %s\n", line, col, s->diags.v[i].msg);
    }
}
