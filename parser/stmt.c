/* Statements, as in CPython's Grammar/python.gram (3.13). */
#include "internal.h"
#include <string.h>

static uint32_t tok_line(Parser *P, uint32_t tok)
{
    uint32_t line, col;
    syntax_line_col(P->S, P->t[tok].start, &line, &col);
    return line;
}

/* ---- simple statements -------------------------------------------------------------- */

static bool is_augassign(TokKind k)
{
    switch (k) {
    case T_PLUSEQUAL: case T_MINEQUAL: case T_STAREQUAL: case T_SLASHEQUAL: case T_PERCENTEQUAL:
    case T_AMPEREQUAL: case T_VBAREQUAL: case T_CIRCUMFLEXEQUAL: case T_LEFTSHIFTEQUAL:
    case T_RIGHTSHIFTEQUAL: case T_DOUBLESTAREQUAL: case T_DOUBLESLASHEQUAL: case T_ATEQUAL:
        return true;
    default:
        return false;
    }
}

/* Python 2's print statement: a bare `print` followed by an expression. */
static void check_print_statement(Parser *P, Elem e)
{
    Node *n = node_at(P, e);
    if (!n || n->kind != N_NAME || P->t[n->first_tok].name != NAME_PRINT)
        return;
    if (starts_expression(cur(P)) && !at(P, T_STAR) && !at(P, T_MINUS) && !at(P, T_PLUS) &&
        !at(P, T_TILDE) && !at(P, T_LPAR) && !at(P, T_LSQB))
        error_span(P, node_start(P->S, n), P->t[P->pos].start + P->t[P->pos].len,
                   "Missing parentheses in call to 'print'. Did you mean print(...)?");
}

/* assignment:
 *     NAME ':' expression ['=' annotated_rhs]
 *   | single_target ':' expression ['=' annotated_rhs]
 *   | (star_targets '=')+ (yield_expr | star_expressions) !'='
 *   | single_target augassign ~ (yield_expr | star_expressions)
 * star_expressions (an expression statement) otherwise. */
static void parse_expr_or_assign(Parser *P)
{
    uint32_t m = mark(P);
    parse_yield_or_star_expressions(P);
    Elem first = top_elem(P);
    if (at(P, T_COLON)) {
        check_target(P, first, TGT_ANN);
        bump(P);
        parse_expression(P);
        if (accept(P, T_EQUAL))
            parse_yield_or_star_expressions(P);
        finish(P, N_ANN_ASSIGN, m);
        return;
    }
    if (is_augassign(cur(P))) {
        check_target(P, first, TGT_AUG);
        bump(P);
        parse_yield_or_star_expressions(P);
        finish(P, N_AUG_ASSIGN, m);
        return;
    }
    if (at(P, T_EQUAL)) {
        while (at(P, T_EQUAL)) {
            check_target(P, top_elem(P), TGT_ASSIGN);
            bump(P);
            parse_yield_or_star_expressions(P);
        }
        finish(P, N_ASSIGN, m);
        return;
    }
    check_print_statement(P, first);
    finish(P, N_EXPR_STMT, m);
}

/* return_stmt: 'return' [star_expressions] */
static void parse_return(Parser *P)
{
    uint32_t m = mark(P);
    bump(P);
    if (starts_expression(cur(P)))
        parse_star_expressions(P);
    finish(P, N_RETURN, m);
}

/* raise_stmt: 'raise' expression ['from' expression] | 'raise' */
static void parse_raise(Parser *P)
{
    uint32_t m = mark(P);
    bump(P);
    if (starts_expression(cur(P))) {
        parse_expression(P);
        if (accept(P, T_KW_FROM))
            parse_expression(P);
    }
    finish(P, N_RAISE, m);
}

/* global_stmt: 'global' ','.NAME+ ; nonlocal_stmt: 'nonlocal' ','.NAME+ */
static void parse_name_list_stmt(Parser *P, NodeKind kind)
{
    uint32_t m = mark(P);
    bump(P);
    do {
        expect(P, T_NAME);
    } while (accept(P, T_COMMA));
    finish(P, kind, m);
}

/* del_stmt: 'del' del_targets &(';' | NEWLINE) */
static void parse_del(Parser *P)
{
    uint32_t m = mark(P);
    bump(P);
    parse_star_expressions(P);
    check_target(P, top_elem(P), TGT_DEL);
    finish(P, N_DEL, m);
}

/* assert_stmt: 'assert' expression [',' expression] */
static void parse_assert(Parser *P)
{
    uint32_t m = mark(P);
    bump(P);
    parse_expression(P);
    if (accept(P, T_COMMA))
        parse_expression(P);
    finish(P, N_ASSERT, m);
}

/* dotted_as_name: dotted_name ['as' NAME] */
static void parse_dotted_as_name(Parser *P)
{
    uint32_t m = mark(P);
    parse_dotted_name(P);
    if (accept(P, T_KW_AS))
        expect(P, T_NAME);
    finish(P, N_IMPORT_ALIAS, m);
}

/* import_name: 'import' dotted_as_names */
static void parse_import(Parser *P)
{
    uint32_t m = mark(P);
    bump(P);
    do {
        parse_dotted_as_name(P);
    } while (accept(P, T_COMMA));
    finish(P, N_IMPORT, m);
}

/* import_from_as_name: NAME ['as' NAME] */
static void parse_import_from_as_name(Parser *P)
{
    uint32_t m = mark(P);
    expect(P, T_NAME);
    if (accept(P, T_KW_AS))
        expect(P, T_NAME);
    finish(P, N_IMPORT_ALIAS, m);
}

/* import_from:
 *     'from' ('.' | '...')* dotted_name 'import' import_from_targets
 *   | 'from' ('.' | '...')+ 'import' import_from_targets
 * import_from_targets: '(' import_from_as_names [','] ')' | import_from_as_names !',' | '*' */
static void parse_import_from(Parser *P)
{
    uint32_t m = mark(P);
    bump(P);
    bool dots = false;
    while (at(P, T_DOT) || at(P, T_ELLIPSIS)) {
        bump(P);
        dots = true;
    }
    if (!dots || !at(P, T_KW_IMPORT))
        parse_dotted_name(P);
    expect(P, T_KW_IMPORT);
    if (accept(P, T_STAR)) {
        finish(P, N_IMPORT_FROM, m);
        return;
    }
    bool paren = accept(P, T_LPAR);
    do {
        if (paren && at(P, T_RPAR))
            break;
        parse_import_from_as_name(P);
    } while (accept(P, T_COMMA));
    if (paren)
        expect(P, T_RPAR);
    else if (P->t[P->pos - 1].kind == T_COMMA)
        error_span(P, P->t[P->pos - 1].start, P->t[P->pos - 1].start + 1,
                   "trailing comma not allowed without surrounding parentheses");
    finish(P, N_IMPORT_FROM, m);
}

/* type_param: NAME [':' expression] ['=' expression]
 *           | '*' NAME ['=' star_expression] | '**' NAME ['=' expression] */
static void parse_type_param(Parser *P)
{
    uint32_t m = mark(P);
    bool star = accept(P, T_STAR);
    bool dstar = !star && accept(P, T_DOUBLESTAR);
    expect(P, T_NAME);
    if (at(P, T_COLON)) {
        if (star || dstar)
            error_here(P, star ? "cannot use bound with TypeVarTuple"
                               : "cannot use bound with ParamSpec");
        bump(P);
        parse_expression(P);
    }
    if (at(P, T_EQUAL)) {
        uint32_t eq = P->pos;
        bump(P);
        if (star && at(P, T_STAR)) {
            uint32_t sm = mark(P);
            bump(P);
            parse_expression(P);
            finish(P, N_STARRED, sm);
        } else {
            parse_expression(P);
        }
        FeatureUse u = {P->t[eq].start, P->t[eq].start + 1, FEAT_TYPE_PARAM_DEFAULT};
        VEC_PUSH(P->S->arena, P->S->features, u);
    }
    finish(P, N_TYPE_PARAM, m);
}

/* type_params: '[' type_param_seq ']' */
static void parse_type_params(Parser *P)
{
    uint32_t m = mark(P);
    bump(P);
    if (at(P, T_RSQB))
        error_here(P, "Type parameter list cannot be empty");
    do {
        if (at(P, T_RSQB))
            break;
        parse_type_param(P);
    } while (accept(P, T_COMMA));
    expect(P, T_RSQB);
    uint32_t id = finish(P, N_TYPE_PARAMS, m);
    feature_at(P, id, FEAT_TYPE_PARAMS);
}

/* type_alias: "type" NAME [type_params] '=' expression */
static void parse_type_alias(Parser *P)
{
    uint32_t m = mark(P);
    bump(P);
    parse_name(P);
    if (at(P, T_LSQB))
        parse_type_params(P);
    expect(P, T_EQUAL);
    parse_expression(P);
    uint32_t id = finish(P, N_TYPE_ALIAS, m);
    feature_at(P, id, FEAT_TYPE_ALIAS);
}

static bool at_type_alias(const Parser *P)
{
    return at_name(P, NAME_TYPE) && peek(P, 1) == T_NAME &&
           (peek(P, 2) == T_EQUAL || peek(P, 2) == T_LSQB);
}

/* simple_stmt: assignment | type_alias | star_expressions | return_stmt | import_stmt
 *            | raise_stmt | 'pass' | del_stmt | yield_stmt | assert_stmt | 'break'
 *            | 'continue' | global_stmt | nonlocal_stmt */
static void parse_small_stmt(Parser *P)
{
    uint32_t m = mark(P);
    switch (cur(P)) {
    case T_KW_PASS: bump(P); finish(P, N_PASS, m); return;
    case T_KW_BREAK: bump(P); finish(P, N_BREAK, m); return;
    case T_KW_CONTINUE: bump(P); finish(P, N_CONTINUE, m); return;
    case T_KW_RETURN: parse_return(P); return;
    case T_KW_RAISE: parse_raise(P); return;
    case T_KW_GLOBAL: parse_name_list_stmt(P, N_GLOBAL); return;
    case T_KW_NONLOCAL: parse_name_list_stmt(P, N_NONLOCAL); return;
    case T_KW_DEL: parse_del(P); return;
    case T_KW_ASSERT: parse_assert(P); return;
    case T_KW_IMPORT: parse_import(P); return;
    case T_KW_FROM: parse_import_from(P); return;
    default: break;
    }
    if (at_type_alias(P)) {
        parse_type_alias(P);
        return;
    }
    if (starts_expression(cur(P)) || at(P, T_KW_YIELD)) {
        parse_expr_or_assign(P);
        return;
    }
    error_here(P, at(P, T_INDENT) ? "unexpected indent" : "invalid syntax");
    skip_to_line_end(P);
}

/* simple_stmts: simple_stmt !';' NEWLINE | ';'.simple_stmt+ [';'] NEWLINE */
static void parse_simple_line(Parser *P)
{
    uint32_t m = mark(P);
    for (;;) {
        parse_small_stmt(P);
        if (!accept(P, T_SEMI) || at(P, T_NEWLINE) || at(P, T_ENDMARKER))
            break;
    }
    if (!at(P, T_NEWLINE) && !at(P, T_ENDMARKER)) {
        error_here(P, "invalid syntax");
        skip_to_line_end(P);
    }
    accept(P, T_NEWLINE);
    finish(P, N_SIMPLE_LINE, m);
}

/* ---- blocks ------------------------------------------------------------------------------ */

/* block: NEWLINE INDENT statements DEDENT | simple_stmts */
void parse_block(Parser *P, const char *what, uint32_t header_tok)
{
    uint32_t m = mark(P);
    if (!at(P, T_NEWLINE)) {
        if (at(P, T_ENDMARKER))
            error_expected(P, "an indented block");
        else
            parse_simple_line(P);
        finish(P, N_BLOCK, m);
        return;
    }
    bump(P);
    if (!accept(P, T_INDENT)) {
        error_here(P, arena_printf(P->S->arena,
                                   "expected an indented block after %s on line %u", what,
                                   tok_line(P, header_tok)));
        finish(P, N_BLOCK, m);
        return;
    }
    while (!at(P, T_DEDENT) && !at(P, T_ENDMARKER)) {
        uint32_t before = P->pos;
        parse_statement(P);
        if (P->pos == before) {
            uint32_t em = mark(P);
            bump(P);
            finish(P, N_ERROR, em);
        }
    }
    accept(P, T_DEDENT);
    finish(P, N_BLOCK, m);
}

/* ':' block, with the header's first token for messages */
static void parse_colon_block(Parser *P, const char *what, uint32_t header_tok)
{
    expect(P, T_COLON);
    parse_block(P, what, header_tok);
}

/* else_block: 'else' &&':' block */
static void parse_else(Parser *P, const char *what)
{
    uint32_t m = mark(P);
    uint32_t tok = P->pos;
    bump(P);
    parse_colon_block(P, what, tok);
    finish(P, N_ELSE, m);
}

/* if_stmt: 'if' named_expression ':' block (elif_stmt | [else_block]) */
static void parse_if(Parser *P)
{
    uint32_t m = mark(P);
    uint32_t tok = P->pos;
    bump(P);
    parse_named_expression(P);
    parse_colon_block(P, "'if' statement", tok);
    while (at(P, T_KW_ELIF)) {
        uint32_t em = mark(P);
        uint32_t etok = P->pos;
        P->stmt_error = false;
        bump(P);
        parse_named_expression(P);
        parse_colon_block(P, "'elif' statement", etok);
        finish(P, N_ELIF, em);
    }
    if (at(P, T_KW_ELSE)) {
        P->stmt_error = false;
        parse_else(P, "'else' statement");
    }
    finish(P, N_IF, m);
}

/* while_stmt: 'while' named_expression ':' block [else_block] */
static void parse_while(Parser *P)
{
    uint32_t m = mark(P);
    uint32_t tok = P->pos;
    bump(P);
    parse_named_expression(P);
    parse_colon_block(P, "'while' statement", tok);
    if (at(P, T_KW_ELSE)) {
        P->stmt_error = false;
        parse_else(P, "'else' statement");
    }
    finish(P, N_WHILE, m);
}

/* for_stmt: ['async'] 'for' star_targets 'in' ~ star_expressions ':' block [else_block] */
static void parse_for(Parser *P, uint32_t m)
{
    uint32_t tok = P->pos;
    bump(P);
    parse_targets(P);
    check_target(P, top_elem(P), TGT_FOR);
    expect(P, T_KW_IN);
    parse_star_expressions(P);
    parse_colon_block(P, "'for' statement", tok);
    if (at(P, T_KW_ELSE)) {
        P->stmt_error = false;
        parse_else(P, "'else' statement");
    }
    finish(P, N_FOR, m);
}

/* with_item: expression 'as' star_target &(',' | ')' | ':') | expression
 * (inside the parentheses of the 3.9+ form a walrus reads as a group) */
static void parse_with_item(Parser *P, bool parenthesized)
{
    uint32_t m = mark(P);
    if (parenthesized)
        parse_named_expression(P);
    else
        parse_expression(P);
    if (accept(P, T_KW_AS)) {
        /* a single star_target: the ',' after it separates items */
        parse_bitwise_or(P);
        check_target(P, top_elem(P), TGT_WITH);
    }
    finish(P, N_WITH_ITEM, m);
}

/* Is the '(' after `with` the parenthesized item list of 3.9+, i.e. is its
 * matching ')' followed by ':'? */
static bool with_has_paren_items(const Parser *P)
{
    if (!at(P, T_LPAR) || peek(P, 1) == T_KW_YIELD)
        return false;
    int depth = 0;
    for (uint32_t i = P->pos; i < P->ntok; i++) {
        TokKind k = (TokKind)P->t[i].kind;
        if (k == T_NEWLINE || k == T_ENDMARKER)
            return false;
        depth += (k == T_LPAR || k == T_LSQB || k == T_LBRACE);
        depth -= (k == T_RPAR || k == T_RSQB || k == T_RBRACE);
        if (depth == 0)
            return i + 1 < P->ntok && P->t[i + 1].kind == T_COLON;
    }
    return false;
}

/* with_stmt: ['async'] 'with' '(' ','.with_item+ ','? ')' ':' block
 *          | ['async'] 'with' ','.with_item+ ':' block */
static void parse_with(Parser *P, uint32_t m)
{
    uint32_t tok = P->pos;
    bump(P);
    if (with_has_paren_items(P)) {
        bump(P);
        do {
            if (at(P, T_RPAR))
                break;
            parse_with_item(P, true);
        } while (accept(P, T_COMMA));
        expect(P, T_RPAR);
    } else {
        do {
            parse_with_item(P, false);
        } while (accept(P, T_COMMA));
    }
    parse_colon_block(P, "'with' statement", tok);
    finish(P, N_WITH, m);
}

/* except_block: 'except' expression ['as' NAME] ':' block | 'except' ':' block
 * except_star_block: 'except' '*' expression ['as' NAME] ':' block */
static int parse_except(Parser *P)
{
    uint32_t m = mark(P);
    uint32_t tok = P->pos;
    P->stmt_error = false;
    bump(P);
    bool star = accept(P, T_STAR);
    if (star) {
        FeatureUse u = {P->t[tok].start, P->t[P->pos - 1].start + 1, FEAT_EXCEPT_STAR};
        VEC_PUSH(P->S->arena, P->S->features, u);
    }
    if (!at(P, T_COLON)) {
        parse_expression(P);
        if (at(P, T_COMMA)) {
            error_span(P, node_start(P->S, last_node(P)), P->t[P->pos].start + 1,
                       "multiple exception types must be parenthesized");
            while (accept(P, T_COMMA))
                parse_expression(P);
        }
        if (accept(P, T_KW_AS))
            expect(P, T_NAME);
    } else if (star) {
        error_here(P, "expected one or more exception types");
    }
    parse_colon_block(P, star ? "'except*' statement" : "'except' statement", tok);
    finish(P, N_EXCEPT, m);
    return star ? 2 : 1;
}

/* try_stmt: 'try' ':' block finally_block
 *         | 'try' ':' block except_block+ [else_block] [finally_block]
 *         | 'try' ':' block except_star_block+ [else_block] [finally_block] */
static void parse_try(Parser *P)
{
    uint32_t m = mark(P);
    uint32_t tok = P->pos;
    bump(P);
    parse_colon_block(P, "'try' statement", tok);
    int kinds = 0, handlers = 0;
    while (at(P, T_KW_EXCEPT)) {
        uint32_t etok = P->pos;
        kinds |= parse_except(P);
        handlers++;
        if (kinds == 3)
            error_span(P, P->t[etok].start, P->t[etok].start + 6,
                       "cannot have both 'except' and 'except*' on the same 'try'");
    }
    if (handlers && at(P, T_KW_ELSE)) {
        P->stmt_error = false;
        parse_else(P, "'else' statement");
    }
    if (at(P, T_KW_FINALLY)) {
        uint32_t fm = mark(P);
        uint32_t ftok = P->pos;
        P->stmt_error = false;
        bump(P);
        parse_colon_block(P, "'finally' statement", ftok);
        finish(P, N_FINALLY, fm);
    } else if (!handlers) {
        error_expected(P, "'except' or 'finally' block");
    }
    finish(P, N_TRY, m);
}

/* function_def_raw: 'def' NAME [type_params] '(' [params] ')' ['->' expression] ':' block */
static void parse_funcdef(Parser *P, uint32_t m)
{
    uint32_t tok = P->pos;
    bump(P);
    expect(P, T_NAME);
    if (at(P, T_LSQB))
        parse_type_params(P);
    parse_params(P, T_RPAR, true);
    if (accept(P, T_RARROW))
        parse_expression(P);
    parse_colon_block(P, "function definition", tok);
    finish(P, N_FUNC_DEF, m);
}

/* class_def_raw: 'class' NAME [type_params] ['(' [arguments] ')'] ':' block */
static void parse_classdef(Parser *P, uint32_t m)
{
    uint32_t tok = P->pos;
    bump(P);
    expect(P, T_NAME);
    if (at(P, T_LSQB))
        parse_type_params(P);
    if (at(P, T_LPAR))
        parse_arguments(P);
    parse_colon_block(P, "class definition", tok);
    finish(P, N_CLASS_DEF, m);
}

/* decorators: ('@' named_expression NEWLINE)+ , then a function or class */
static void parse_decorated(Parser *P)
{
    uint32_t m = mark(P);
    while (at(P, T_AT)) {
        uint32_t dm = mark(P);
        bump(P);
        parse_named_expression(P);
        if (!accept(P, T_NEWLINE)) {
            error_expected(P, "a newline after the decorator");
            skip_to_line_end(P);
            accept(P, T_NEWLINE);
        }
        finish(P, N_DECORATOR, dm);
    }
    if (at(P, T_KW_DEF)) {
        parse_funcdef(P, m);
    } else if (at(P, T_KW_CLASS)) {
        parse_classdef(P, m);
    } else if (at(P, T_KW_ASYNC) && peek(P, 1) == T_KW_DEF) {
        bump(P);
        parse_funcdef(P, m);
    } else {
        error_expected(P, "a function or class definition after decorators");
        finish(P, N_ERROR, m);
    }
}

/* ---- match ------------------------------------------------------------------------------- */

/* case_block: "case" patterns guard? ':' block */
static void parse_case(Parser *P)
{
    uint32_t m = mark(P);
    uint32_t tok = P->pos;
    P->stmt_error = false;
    bump(P);
    parse_case_patterns(P);
    if (accept(P, T_KW_IF))
        parse_named_expression(P);
    parse_colon_block(P, "'case' statement", tok);
    finish(P, N_CASE, m);
}

typedef struct Snapshot { uint32_t pos, stack, nodes, diags, features; bool err; } Snapshot;

static Snapshot snapshot(const Parser *P)
{
    Snapshot s = {P->pos, P->stack.n, P->nodes.n, P->S->diags.n, P->S->features.n,
                  P->stmt_error};
    return s;
}

static void restore(Parser *P, Snapshot s)
{
    P->pos = s.pos;
    P->stack.n = s.stack;
    P->nodes.n = s.nodes;
    P->S->diags.n = s.diags;
    P->S->features.n = s.features;
    P->stmt_error = s.err;
}

/* match_stmt: "match" subject_expr ':' NEWLINE INDENT case_block+ DEDENT
 * subject_expr: star_named_expression ',' star_named_expressions? | named_expression
 * `match` is a soft keyword: if the line does not read as a match statement
 * header, rewind and parse it as an ordinary statement. */
static bool try_match(Parser *P)
{
    TokKind next = peek(P, 1);
    if (!starts_expression(next) || next == T_KW_LAMBDA || next == T_KW_NOT)
        return false;
    Snapshot s = snapshot(P);
    uint32_t m = mark(P);
    uint32_t tok = P->pos;
    bump(P);
    uint32_t sm = mark(P);
    parse_star_named_expression(P);
    if (at(P, T_COMMA)) {
        while (accept(P, T_COMMA) && !at(P, T_COLON))
            parse_star_named_expression(P);
        finish(P, N_TUPLE, sm);
    }
    if (!at(P, T_COLON) || peek(P, 1) != T_NEWLINE || P->S->diags.n != s.diags) {
        restore(P, s);
        return false;
    }
    bump(P);
    bump(P);
    FeatureUse u = {P->t[tok].start, P->t[tok].start + 5, FEAT_MATCH_STMT};
    VEC_PUSH(P->S->arena, P->S->features, u);
    if (!accept(P, T_INDENT)) {
        error_here(P, arena_printf(P->S->arena,
                                   "expected an indented block after 'match' statement on line %u",
                                   tok_line(P, tok)));
        finish(P, N_MATCH, m);
        return true;
    }
    if (!at_name(P, NAME_CASE))
        error_expected(P, "'case' block");
    while (!at(P, T_DEDENT) && !at(P, T_ENDMARKER)) {
        uint32_t before = P->pos;
        if (at_name(P, NAME_CASE)) {
            parse_case(P);
        } else {
            error_here(P, "expected 'case' block");
            parse_statement(P);
        }
        if (P->pos == before)
            bump(P);
    }
    accept(P, T_DEDENT);
    finish(P, N_MATCH, m);
    return true;
}

/* ---- statements ------------------------------------------------------------------------- */

/* An INDENT where none may be: report it, and keep the indented statements
 * together in an ERROR node so the DEDENT that closes them is consumed. */
static void parse_unexpected_indent(Parser *P)
{
    uint32_t m = mark(P);
    error_here(P, "unexpected indent");
    bump(P);
    while (!at(P, T_DEDENT) && !at(P, T_ENDMARKER)) {
        uint32_t before = P->pos;
        parse_statement(P);
        if (P->pos == before)
            bump(P);
    }
    accept(P, T_DEDENT);
    finish(P, N_ERROR, m);
}

/* `else:` (or elif/except/finally) with no statement to belong to: report it and
 * keep its header and block together in an ERROR node. */
static void parse_orphan_clause(Parser *P)
{
    uint32_t m = mark(P);
    uint32_t tok = P->pos;
    error_here(P, arena_printf(P->S->arena, "'%s' without a matching statement",
                               tok_kind_text(cur(P))));
    skip_to_line_end(P);
    if (P->t[P->pos - 1].kind == T_COLON && peek(P, 1) == T_INDENT)
        parse_block(P, "clause", tok);
    else
        accept(P, T_NEWLINE);
    finish(P, N_ERROR, m);
}

static void parse_async(Parser *P)
{
    uint32_t m = mark(P);
    bump(P);
    switch (cur(P)) {
    case T_KW_DEF: parse_funcdef(P, m); return;
    case T_KW_FOR: parse_for(P, m); return;
    case T_KW_WITH: parse_with(P, m); return;
    default:
        error_expected(P, "'def', 'with' or 'for' after 'async'");
        skip_to_line_end(P);
        accept(P, T_NEWLINE);
        finish(P, N_ERROR, m);
    }
}

/* statement: compound_stmt | simple_stmts */
void parse_statement(Parser *P)
{
    P->stmt_error = false;
    P->too_deep = false;
    if (!enter(P)) {
        skip_to_line_end(P);
        accept(P, T_NEWLINE);
        return;
    }
    uint32_t m = mark(P);
    switch (cur(P)) {
    case T_KW_IF: parse_if(P); break;
    case T_KW_WHILE: parse_while(P); break;
    case T_KW_FOR: parse_for(P, m); break;
    case T_KW_WITH: parse_with(P, m); break;
    case T_KW_TRY: parse_try(P); break;
    case T_KW_DEF: parse_funcdef(P, m); break;
    case T_KW_CLASS: parse_classdef(P, m); break;
    case T_AT: parse_decorated(P); break;
    case T_KW_ASYNC: parse_async(P); break;
    case T_INDENT: parse_unexpected_indent(P); break;
    case T_KW_ELSE: case T_KW_ELIF: case T_KW_EXCEPT: case T_KW_FINALLY:
        parse_orphan_clause(P);
        break;
    default:
        if (!(at_name(P, NAME_MATCH) && try_match(P)))
            parse_simple_line(P);
        break;
    }
    leave(P);
}
