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

uint32_t fix_parent(RuleCtx *c, uint32_t node) { return c->an->parents[node]; }

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

void fix_insert_line_after(RuleCtx *c, Fix *f, uint32_t stmt, const char *line)
{
    bool at_eof;
    uint32_t at = fix_after_statement(c, stmt, &at_eof);
    const char *nl = fix_newline(c->S);
    fix_edit(c, f, at, at,
             at_eof ? arena_printf(c->A, "%s%s", nl, line) : arena_printf(c->A, "%s%s", line, nl));
}
