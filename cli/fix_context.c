/* pfc debug-context FILE...: one line per function,
 *   PATH:FIRST-LAST: CONTEXT FIXABLE NAME
 * FIRST-LAST its lines (decorators included), CONTEXT how it is reached
 * (model, test or other: passes/analysis.h), FIXABLE `fixable` or `no-fix`
 * (may a fix edit it). tests/tools/fix_check.py reads it to prove that no
 * fix lands in model or test code. */
#include "cli.h"
#include "../base/buf.h"
#include "../ir/ir.h"
#include "../passes/pass.h"
#include <stdio.h>
#include <stdlib.h>

static const char *context_name(uint8_t k)
{
    return k == 1 ? "model" : k == 2 ? "test" : "other";
}

/* The last byte of the node's last token that is code (not the line break,
 * indentation or comments that follow it). */
static uint32_t last_code_byte(const Syntax *s, const Node *n)
{
    for (uint32_t t = n->end_tok; t-- > n->first_tok;) {
        const Token *k = &s->toks.v[t];
        if (k->kind != T_NEWLINE && k->kind != T_DEDENT && k->kind != T_INDENT && k->len)
            return k->start + k->len - 1;
    }
    return node_start(s, n);
}

static void list_functions(const char *path, Syntax *s, Buf *out)
{
    Ir ir;
    ir_build(&ir, s);
    FixContext *fc = passes_fix_contexts(s, &ir);
    for (uint32_t fi = 1; fi < ir.funcs.n; fi++) {
        const IrFunction *f = &ir.funcs.v[fi];
        if (f->kind == SCOPE_CLASS)
            continue;
        const Node *n = &s->nodes[f->node];
        uint32_t first, last, col;
        syntax_line_col(s, node_start(s, n), &first, &col);
        syntax_line_col(s, last_code_byte(s, n), &last, &col);
        uint32_t len = 0;
        const char *name = f->name ? intern_str(&s->names, f->name, &len) : "<anonymous>";
        if (!f->name)
            len = 11;
        buf_printf(out, "%s:%u-%u: %s %s %.*s\n", path, first, last,
                   context_name(fc[fi].context), fc[fi].fixable ? "fixable" : "no-fix",
                   (int)len, name);
    }
}

int cmd_debug_context(int argc, char **argv)
{
    if (argc < 1)
        return usage_error("debug-context expects files");
    int status = EXIT_CLEAN;
    for (int i = 0; i < argc; i++) {
        char *src;
        Arena arena;
        Syntax s;
        if (cli_parse_file(argv[i], &src, &arena, &s) >= 0) {
            status = EXIT_USAGE;
            continue;
        }
        Buf out = {0};
        if (s.diags.n)
            status = status == EXIT_CLEAN ? EXIT_FINDINGS : status;   /* rules do not run */
        else
            list_functions(argv[i], &s, &out);
        buf_write(&out, stdout);
        buf_free(&out);
        arena_free(&arena);
        free(src);
    }
    return status;
}
