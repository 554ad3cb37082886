/* Expressions, by precedence from loosest to tightest, as in CPython's
 * Grammar/python.gram (3.13). Each function pushes exactly one element. */
#include "internal.h"
#include <string.h>

static void parse_atom(Parser *P);
static void parse_factor(Parser *P);
static void parse_comp_for_clauses(Parser *P);

bool starts_expression(TokKind k)
{
    switch (k) {
    case T_NAME: case T_NUMBER: case T_STRING: case T_FSTRING_START: case T_LPAR: case T_LSQB:
    case T_LBRACE: case T_MINUS: case T_PLUS: case T_TILDE: case T_ELLIPSIS: case T_KW_NONE:
    case T_KW_TRUE: case T_KW_FALSE: case T_KW_NOT: case T_KW_LAMBDA: case T_KW_AWAIT:
    case T_STAR:
        return true;
    default:
        return false;
    }
}

/* An empty ERROR node standing for a missing expression. */
static void missing_expression(Parser *P)
{
    error_expected(P, "an expression");
    uint32_t m = mark(P);
    if (at(P, T_ERROR))
        bump(P);
    finish(P, N_ERROR, m);
}

void parse_name(Parser *P)
{
    uint32_t m = mark(P);
    if (!expect(P, T_NAME) && at(P, T_ERROR))
        bump(P);
    finish(P, N_NAME, m);
}

/* dotted_name: NAME ('.' NAME)* */
void parse_dotted_name(Parser *P)
{
    uint32_t m = mark(P);
    expect(P, T_NAME);
    while (at(P, T_DOT)) {
        bump(P);
        expect(P, T_NAME);
    }
    finish(P, N_DOTTED_NAME, m);
}

/* ---- strings ------------------------------------------------------------------- */

static void parse_fstring(Parser *P);

/* fstring_format_spec: (FSTRING_MIDDLE | fstring_replacement_field)* */
static void parse_format_spec(Parser *P)
{
    uint32_t m = mark(P);
    while (at(P, T_FSTRING_MIDDLE) || at(P, T_LBRACE)) {
        uint32_t before = P->pos;
        if (at(P, T_FSTRING_MIDDLE))
            bump(P);
        else
            parse_fstring(P);   /* a nested field: handled below by the '{' branch */
        if (P->pos == before)
            break;              /* too deep: the field was not entered */
    }
    finish(P, N_FORMAT_SPEC, m);
}

static bool at_field_end(const Parser *P)
{
    TokKind k = cur(P);
    return k == T_RBRACE || k == T_EXCLAMATION || k == T_COLON || k == T_FSTRING_END ||
           k == T_ENDMARKER;
}

/* fstring_conversion: '!' NAME  (the name follows the '!' directly) */
static void parse_conversion(Parser *P)
{
    bump(P);  /* '!' */
    const Token *t = &P->t[P->pos];
    const Token *bang = &P->t[P->pos - 1];
    if (t->kind != T_NAME || t->start != bang->start + 1) {
        error_here(P, "f-string: missing conversion character");
        return;
    }
    if (t->len != 1 || !strchr("sra", P->S->src[t->start]))
        error_here(P, arena_printf(P->S->arena,
                                   "f-string: invalid conversion character '%.*s': expected "
                                   "'s', 'r', or 'a'",
                                   (int)t->len, P->S->src + t->start));
    bump(P);
}

/* fstring_replacement_field:
 *     '{' (yield_expr | star_expressions) ['='] [fstring_conversion]
 *         [':' fstring_format_spec*] '}' */
static void parse_fstring_field(Parser *P)
{
    uint32_t m = mark(P);
    bump(P);  /* '{' */
    if (at_field_end(P) || at(P, T_EQUAL)) {
        error_here(P, "f-string: valid expression required before '}'");
        uint32_t em = mark(P);
        finish(P, N_ERROR, em);
    } else {
        parse_yield_or_star_expressions(P);
    }
    accept(P, T_EQUAL);
    if (at(P, T_EXCLAMATION))
        parse_conversion(P);
    if (accept(P, T_COLON))
        parse_format_spec(P);
    if (!accept(P, T_RBRACE)) {
        error_here(P, "f-string: expecting '}'");
        /* keep the field's remaining tokens inside it */
        uint32_t em = mark(P);
        while (!at(P, T_RBRACE) && !at(P, T_FSTRING_END) && !at(P, T_NEWLINE) &&
               !at(P, T_ENDMARKER) && !at(P, T_FSTRING_MIDDLE))
            bump(P);
        if (mark(P) > em)
            finish(P, N_ERROR, em);
        accept(P, T_RBRACE);
    }
    finish(P, N_FSTRING_FIELD, m);
}

/* fstring: FSTRING_START (FSTRING_MIDDLE | fstring_replacement_field)* FSTRING_END
 * (entered at '{' for a field nested in a format spec) */
static void parse_fstring(Parser *P)
{
    if (at(P, T_LBRACE)) {
        if (enter(P)) {
            parse_fstring_field(P);
            leave(P);
        } else {
            missing_expression(P);
        }
        return;
    }
    uint32_t m = mark(P);
    bump(P);  /* FSTRING_START */
    for (uint32_t before = UINT32_MAX; before != P->pos;) {
        before = P->pos;
        if (at(P, T_FSTRING_MIDDLE)) {
            bump(P);
        } else if (at(P, T_LBRACE)) {
            parse_fstring(P);
        } else if (at(P, T_ERROR)) {
            bump(P);   /* a single '}' the lexer reported */
        } else {
            break;
        }
    }
    if (!accept(P, T_FSTRING_END))
        P->stmt_error = true;   /* unterminated: the lexer reported it */
    finish(P, N_FSTRING, m);
}

/* strings: (FSTRING | STRING)+ */
void parse_strings(Parser *P)
{
    uint32_t m = mark(P);
    int count = 0, bytes = 0;
    while (at(P, T_STRING) || at(P, T_FSTRING_START)) {
        if (at(P, T_STRING)) {
            bytes += (P->t[P->pos].flags & TF_STRING_BYTES) != 0;
            uint32_t sm = mark(P);
            bump(P);
            finish(P, N_STRING, sm);
        } else {
            parse_fstring(P);
        }
        count++;
    }
    if (count > 1) {
        uint32_t id = finish(P, N_STRINGS, m);
        if (bytes && bytes != count)
            error_node(P, id, "cannot mix bytes and nonbytes literals");
    }
}

/* ---- atoms ----------------------------------------------------------------------- */

/* The elements of a display after its first: (',' star_named_expression)* [','] */
static void parse_display_rest(Parser *P, TokKind closer)
{
    while (accept(P, T_COMMA)) {
        if (at(P, closer))
            break;
        parse_star_named_expression(P);
    }
}

static void expect_closer(Parser *P, TokKind closer)
{
    if (accept(P, closer))
        return;
    error_expected(P, arena_printf(P->S->arena, "',' or '%s'", tok_kind_text(closer)));
    /* recover per enclosing bracket list: skip to the closer */
    uint32_t m = mark(P);
    int depth = 0;
    while (!at(P, T_ENDMARKER) && !at(P, T_NEWLINE)) {
        TokKind k = cur(P);
        if (depth == 0 && k == closer)
            break;
        depth += (k == T_LPAR || k == T_LSQB || k == T_LBRACE);
        depth -= (k == T_RPAR || k == T_RSQB || k == T_RBRACE);
        if (depth < 0)
            break;
        bump(P);
    }
    if (mark(P) > m)
        finish(P, N_ERROR, m);
    accept(P, closer);
}

static bool at_comp_for(const Parser *P)
{
    return at(P, T_KW_FOR) || (at(P, T_KW_ASYNC) && peek(P, 1) == T_KW_FOR);
}

static void reject_bare_starred(Parser *P, Elem e, const char *where)
{
    Node *n = node_at(P, e);
    if (n && n->kind == N_STARRED)
        error_node(P, e, arena_printf(P->S->arena, "cannot use starred expression %s", where));
}

/* tuple | group | genexp:
 *     '(' [star_named_expression ',' [star_named_expressions]] ')'
 *   | '(' (yield_expr | named_expression) ')'
 *   | '(' named_expression for_if_clauses ')' */
static void parse_paren_atom(Parser *P)
{
    uint32_t m = mark(P);
    bump(P);
    if (accept(P, T_RPAR)) {
        finish(P, N_TUPLE, m);
        return;
    }
    if (at(P, T_KW_YIELD)) {
        parse_yield_expr(P);
        expect_closer(P, T_RPAR);
        finish(P, N_PAREN, m);
        return;
    }
    parse_star_named_expression(P);
    if (at_comp_for(P)) {
        reject_bare_starred(P, top_elem(P), "here");
        parse_comp_for_clauses(P);
        expect_closer(P, T_RPAR);
        finish(P, N_GENERATOR, m);
        return;
    }
    if (at(P, T_COMMA)) {
        parse_display_rest(P, T_RPAR);
        expect_closer(P, T_RPAR);
        finish(P, N_TUPLE, m);
        return;
    }
    reject_bare_starred(P, top_elem(P), "here");
    expect_closer(P, T_RPAR);
    finish(P, N_PAREN, m);
}

/* list | listcomp: '[' [star_named_expressions] ']' | '[' named_expression for_if_clauses ']' */
static void parse_list_atom(Parser *P)
{
    uint32_t m = mark(P);
    bump(P);
    if (accept(P, T_RSQB)) {
        finish(P, N_LIST, m);
        return;
    }
    parse_star_named_expression(P);
    if (at_comp_for(P)) {
        reject_bare_starred(P, top_elem(P), "here");
        parse_comp_for_clauses(P);
        expect_closer(P, T_RSQB);
        finish(P, N_LIST_COMP, m);
        return;
    }
    parse_display_rest(P, T_RSQB);
    expect_closer(P, T_RSQB);
    finish(P, N_LIST, m);
}

/* double_starred_kvpair: '**' bitwise_or | expression ':' expression */
static void parse_dict_entry(Parser *P)
{
    uint32_t m = mark(P);
    if (accept(P, T_DOUBLESTAR)) {
        parse_bitwise_or(P);
        finish(P, N_DOUBLE_STARRED, m);
        return;
    }
    parse_expression(P);
    expect(P, T_COLON);
    parse_expression(P);
    finish(P, N_DICT_ITEM, m);
}

/* dict | set | dictcomp | setcomp:
 *     '{' [double_starred_kvpairs] '}' | '{' star_named_expressions '}'
 *   | '{' kvpair for_if_clauses '}' | '{' named_expression for_if_clauses '}' */
static void parse_brace_atom(Parser *P)
{
    uint32_t m = mark(P);
    bump(P);
    if (accept(P, T_RBRACE)) {
        finish(P, N_DICT, m);
        return;
    }
    bool dict;
    if (at(P, T_DOUBLESTAR)) {
        parse_dict_entry(P);
        dict = true;
    } else {
        uint32_t em = mark(P);
        parse_star_named_expression(P);
        dict = at(P, T_COLON);
        if (dict && node_at(P, top_elem(P)) && node_at(P, top_elem(P))->kind == N_STARRED)
            error_node(P, top_elem(P), "cannot use a starred expression as a dictionary key");
        if (dict) {
            bump(P);
            parse_expression(P);
            finish(P, N_DICT_ITEM, em);
        }
    }
    if (at_comp_for(P)) {
        reject_bare_starred(P, top_elem(P), "here");
        parse_comp_for_clauses(P);
        expect_closer(P, T_RBRACE);
        finish(P, dict ? N_DICT_COMP : N_SET_COMP, m);
        return;
    }
    while (accept(P, T_COMMA)) {
        if (at(P, T_RBRACE))
            break;
        if (dict)
            parse_dict_entry(P);
        else
            parse_star_named_expression(P);
    }
    expect_closer(P, T_RBRACE);
    finish(P, dict ? N_DICT : N_SET, m);
}

/* atom: NAME | 'True' | 'False' | 'None' | strings | NUMBER | tuple | group | genexp
 *     | list | listcomp | dict | set | dictcomp | setcomp | '...' */
static void parse_atom(Parser *P)
{
    uint32_t m = mark(P);
    switch (cur(P)) {
    case T_NAME: bump(P); finish(P, N_NAME, m); return;
    case T_NUMBER: bump(P); finish(P, N_NUMBER, m); return;
    case T_KW_TRUE: case T_KW_FALSE: case T_KW_NONE: case T_ELLIPSIS:
        bump(P);
        finish(P, N_CONSTANT, m);
        return;
    case T_STRING: case T_FSTRING_START: parse_strings(P); return;
    default: break;
    }
    if (!at(P, T_LPAR) && !at(P, T_LSQB) && !at(P, T_LBRACE)) {
        missing_expression(P);
        return;
    }
    if (!enter(P)) {
        missing_expression(P);
        return;
    }
    if (at(P, T_LPAR))
        parse_paren_atom(P);
    else if (at(P, T_LSQB))
        parse_list_atom(P);
    else
        parse_brace_atom(P);
    leave(P);
}

/* ---- calls and subscripts ------------------------------------------------------------- */

/* kwarg: NAME '=' expression | '**' expression ; arg: starred_expression | named_expression */
static int parse_argument(Parser *P)
{
    enum { ARG_POS = 1, ARG_KW = 2, ARG_STAR = 3, ARG_DSTAR = 4, ARG_GEN = 5 };
    uint32_t m = mark(P);
    if (accept(P, T_STAR)) {
        parse_expression(P);
        finish(P, N_STARRED, m);
        return ARG_STAR;
    }
    if (accept(P, T_DOUBLESTAR)) {
        parse_expression(P);
        finish(P, N_DOUBLE_STARRED, m);
        return ARG_DSTAR;
    }
    if (at(P, T_NAME) && peek(P, 1) == T_EQUAL) {
        parse_name(P);
        bump(P);
        parse_expression(P);
        finish(P, N_KEYWORD, m);
        return ARG_KW;
    }
    parse_named_expression(P);
    if (at(P, T_EQUAL)) {
        error_here(P, "expression cannot contain assignment, perhaps you meant \"==\"?");
        bump(P);
        parse_expression(P);
        finish(P, N_ERROR, m);
        return ARG_KW;
    }
    if (at_comp_for(P)) {
        parse_comp_for_clauses(P);
        finish(P, N_GENERATOR, m);
        return ARG_GEN;
    }
    return ARG_POS;
}

/* arguments: '(' [args [',']] ')'
 * args: ','.(starred_expression | named_expression !'=')+ [',' kwargs] | kwargs */
void parse_arguments(Parser *P)
{
    uint32_t m = mark(P);
    bump(P);  /* '(' */
    bool seen_kw = false, seen_dstar = false;
    int count = 0, gens = 0;
    Elem first_gen = 0;
    while (!at(P, T_RPAR) && !at(P, T_ENDMARKER) && !at(P, T_NEWLINE)) {
        uint32_t before = P->pos;
        int kind = parse_argument(P);
        Elem e = top_elem(P);
        count++;
        if (kind == 5 && !gens++)
            first_gen = e;
        if (kind == 1 || kind == 5) {
            if (seen_dstar)
                error_node(P, e, "positional argument follows keyword argument unpacking");
            else if (seen_kw)
                error_node(P, e, "positional argument follows keyword argument");
        } else if (kind == 3 && seen_dstar) {
            error_node(P, e, "iterable argument unpacking follows keyword argument unpacking");
        }
        seen_kw |= kind == 2;
        seen_dstar |= kind == 4;
        if (!accept(P, T_COMMA) || P->pos == before)
            break;
        if (gens)
            gens = 2;  /* a generator followed by a comma is never alone */
    }
    if (gens && (count > 1 || gens == 2))
        error_node(P, first_gen, "Generator expression must be parenthesized");
    expect_closer(P, T_RPAR);
    finish(P, N_ARGUMENTS, m);
}

/* slice: [expression] ':' [expression] [':' [expression]] | named_expression
 * (returns true for a plain named expression, to spot unparenthesized walrus) */
static void parse_slice(Parser *P)
{
    uint32_t m = mark(P);
    if (at(P, T_STAR)) {
        parse_star_named_expression(P);
        feature_at(P, top_elem(P), FEAT_STAR_INDEX);
        return;
    }
    if (!at(P, T_COLON)) {
        parse_named_expression(P);
        Node *n = last_node(P);
        if (n && n->kind == N_NAMED_EXPR)
            feature_at(P, top_elem(P), FEAT_WALRUS_INDEX);
        if (!at(P, T_COLON))
            return;
    }
    bump(P);
    if (!at(P, T_COLON) && !at(P, T_COMMA) && !at(P, T_RSQB))
        parse_expression(P);
    if (accept(P, T_COLON) && !at(P, T_COMMA) && !at(P, T_RSQB))
        parse_expression(P);
    finish(P, N_SLICE, m);
}

/* '[' slices ']' where slices: slice !',' | ','.(slice | starred_expression)+ [','] */
static void parse_subscript(Parser *P, uint32_t m)
{
    bump(P);
    uint32_t sm = mark(P);
    parse_slice(P);
    if (at(P, T_COMMA)) {
        while (accept(P, T_COMMA) && !at(P, T_RSQB))
            parse_slice(P);
        finish(P, N_TUPLE, sm);
    }
    expect_closer(P, T_RSQB);
    finish(P, N_SUBSCRIPT, m);
}

/* primary: atom ('.' NAME | genexp | '(' [arguments] ')' | '[' slices ']')* */
static void parse_primary(Parser *P)
{
    uint32_t m = mark(P);
    parse_atom(P);
    for (;;) {
        if (at(P, T_DOT)) {
            bump(P);
            if (!accept(P, T_NAME))
                error_expected(P, "a name after '.'");
            finish(P, N_ATTRIBUTE, m);
        } else if (at(P, T_LPAR)) {
            if (!enter(P))
                return;
            parse_arguments(P);
            leave(P);
            finish(P, N_CALL, m);
        } else if (at(P, T_LSQB)) {
            if (!enter(P))
                return;
            parse_subscript(P, m);
            leave(P);
        } else {
            return;
        }
    }
}

/* await_primary: 'await' primary | primary */
static void parse_await_primary(Parser *P)
{
    if (!at(P, T_KW_AWAIT)) {
        parse_primary(P);
        return;
    }
    uint32_t m = mark(P);
    bump(P);
    parse_primary(P);
    finish(P, N_AWAIT, m);
}

/* power: await_primary '**' factor | await_primary */
static void parse_power(Parser *P)
{
    uint32_t m = mark(P);
    parse_await_primary(P);
    if (!at(P, T_DOUBLESTAR))
        return;
    bump(P);
    if (!enter(P)) {   /* a ** b ** c ... recurses to the right */
        missing_expression(P);
        finish(P, N_POWER, m);
        return;
    }
    parse_factor(P);
    leave(P);
    finish(P, N_POWER, m);
}

/* factor: '+' factor | '-' factor | '~' factor | power */
static void parse_factor(Parser *P)
{
    if (!at(P, T_PLUS) && !at(P, T_MINUS) && !at(P, T_TILDE)) {
        parse_power(P);
        return;
    }
    if (!enter(P)) {
        missing_expression(P);
        return;
    }
    uint32_t m = mark(P);
    bump(P);
    parse_factor(P);
    finish(P, N_UNARY_OP, m);
    leave(P);
}

/* Binary operator levels, loosest first:
 * bitwise_or: bitwise_or '|' bitwise_xor | bitwise_xor
 * bitwise_xor: bitwise_xor '^' bitwise_and | bitwise_and
 * bitwise_and: bitwise_and '&' shift_expr | shift_expr
 * shift_expr: shift_expr ('<<' | '>>') sum | sum
 * sum: sum ('+' | '-') term | term
 * term: term ('*' | '/' | '//' | '%' | '@') factor | factor */
static int binary_level(TokKind k)
{
    switch (k) {
    case T_VBAR: return 0;
    case T_CIRCUMFLEX: return 1;
    case T_AMPER: return 2;
    case T_LEFTSHIFT: case T_RIGHTSHIFT: return 3;
    case T_PLUS: case T_MINUS: return 4;
    case T_STAR: case T_SLASH: case T_DOUBLESLASH: case T_PERCENT: case T_AT: return 5;
    default: return -1;
    }
}

static void parse_binary(Parser *P, int level)
{
    if (level > 5) {
        parse_factor(P);
        return;
    }
    uint32_t m = mark(P);
    parse_binary(P, level + 1);
    while (binary_level(cur(P)) == level) {
        bump(P);
        parse_binary(P, level + 1);
        finish(P, N_BIN_OP, m);
    }
}

void parse_bitwise_or(Parser *P) { parse_binary(P, 0); }

/* compare_op: '==' | '!=' | '<=' | '<' | '>=' | '>' | 'not' 'in' | 'in' | 'is' 'not' | 'is' */
static bool accept_compare_op(Parser *P)
{
    switch (cur(P)) {
    case T_EQEQUAL: case T_NOTEQUAL: case T_LESSEQUAL: case T_LESS: case T_GREATEREQUAL:
    case T_GREATER: case T_KW_IN:
        bump(P);
        return true;
    case T_KW_NOT:
        if (peek(P, 1) != T_KW_IN)
            return false;
        bump(P);
        bump(P);
        return true;
    case T_KW_IS:
        bump(P);
        accept(P, T_KW_NOT);
        return true;
    default:
        return false;
    }
}

/* comparison: bitwise_or (compare_op bitwise_or)+ | bitwise_or */
static void parse_comparison(Parser *P)
{
    uint32_t m = mark(P);
    parse_bitwise_or(P);
    bool any = false;
    while (accept_compare_op(P)) {
        parse_bitwise_or(P);
        any = true;
    }
    if (any)
        finish(P, N_COMPARE, m);
}

/* inversion: 'not' inversion | comparison */
static void parse_inversion(Parser *P)
{
    if (!at(P, T_KW_NOT)) {
        parse_comparison(P);
        return;
    }
    if (!enter(P)) {
        missing_expression(P);
        return;
    }
    uint32_t m = mark(P);
    bump(P);
    parse_inversion(P);
    finish(P, N_NOT, m);
    leave(P);
}

/* conjunction: inversion ('and' inversion)+ | inversion */
static void parse_conjunction(Parser *P)
{
    uint32_t m = mark(P);
    parse_inversion(P);
    if (!at(P, T_KW_AND))
        return;
    while (accept(P, T_KW_AND))
        parse_inversion(P);
    finish(P, N_BOOL_OP, m);
}

/* disjunction: conjunction ('or' conjunction)+ | conjunction */
void parse_disjunction(Parser *P)
{
    uint32_t m = mark(P);
    parse_conjunction(P);
    if (!at(P, T_KW_OR))
        return;
    while (accept(P, T_KW_OR))
        parse_conjunction(P);
    finish(P, N_BOOL_OP, m);
}

/* lambdef: 'lambda' [lambda_params] ':' expression */
static void parse_lambda(Parser *P)
{
    uint32_t m = mark(P);
    bump(P);
    if (!at(P, T_COLON))
        parse_params(P, T_COLON, false);
    expect(P, T_COLON);
    parse_expression(P);
    finish(P, N_LAMBDA, m);
}

/* expression: disjunction 'if' disjunction 'else' expression | disjunction | lambdef */
void parse_expression(Parser *P)
{
    if (!enter(P)) {
        missing_expression(P);
        return;
    }
    if (at(P, T_KW_LAMBDA)) {
        parse_lambda(P);
        leave(P);
        return;
    }
    uint32_t m = mark(P);
    parse_disjunction(P);
    if (accept(P, T_KW_IF)) {
        parse_disjunction(P);
        if (!accept(P, T_KW_ELSE))
            error_expected(P, "'else' after 'if' expression");
        else
            parse_expression(P);
        finish(P, N_IF_EXP, m);
    }
    leave(P);
}

/* named_expression: NAME ':=' ~ expression | expression !':=' */
void parse_named_expression(Parser *P)
{
    uint32_t m = mark(P);
    if (at(P, T_NAME) && peek(P, 1) == T_COLONEQUAL) {
        parse_name(P);
        bump(P);
        parse_expression(P);
        finish(P, N_NAMED_EXPR, m);
        return;
    }
    parse_expression(P);
    if (at(P, T_COLONEQUAL)) {
        error_node(P, top_elem(P),
                   arena_printf(P->S->arena, "cannot use assignment expressions with %s",
                                "this target"));
        bump(P);
        parse_expression(P);
        finish(P, N_ERROR, m);
    }
}

/* star_named_expression: '*' bitwise_or | named_expression */
void parse_star_named_expression(Parser *P)
{
    if (!at(P, T_STAR)) {
        parse_named_expression(P);
        return;
    }
    uint32_t m = mark(P);
    bump(P);
    parse_bitwise_or(P);
    finish(P, N_STARRED, m);
}

/* star_expression: '*' bitwise_or | expression */
static void parse_star_expression(Parser *P)
{
    if (!at(P, T_STAR)) {
        parse_expression(P);
        return;
    }
    uint32_t m = mark(P);
    bump(P);
    parse_bitwise_or(P);
    finish(P, N_STARRED, m);
}

/* star_expressions: star_expression (',' star_expression)* [','] */
void parse_star_expressions(Parser *P)
{
    uint32_t m = mark(P);
    parse_star_expression(P);
    if (!at(P, T_COMMA))
        return;
    while (accept(P, T_COMMA)) {
        if (!starts_expression(cur(P)) && !at(P, T_KW_YIELD))
            break;
        parse_star_expression(P);
    }
    finish(P, N_TUPLE, m);
}

/* yield_expr: 'yield' 'from' expression | 'yield' [star_expressions] */
void parse_yield_expr(Parser *P)
{
    uint32_t m = mark(P);
    bump(P);
    if (accept(P, T_KW_FROM)) {
        parse_expression(P);
        finish(P, N_YIELD_FROM, m);
        return;
    }
    if (starts_expression(cur(P)))
        parse_star_expressions(P);
    finish(P, N_YIELD, m);
}

void parse_yield_or_star_expressions(Parser *P)
{
    if (at(P, T_KW_YIELD))
        parse_yield_expr(P);
    else
        parse_star_expressions(P);
}

/* star_targets: star_target (',' star_target)* [','], parsed as bitwise_or-level
 * expressions (so that 'in' ends them) and checked afterwards. */
void parse_targets(Parser *P)
{
    uint32_t m = mark(P);
    uint32_t tm = mark(P);
    if (at(P, T_STAR)) {
        bump(P);
        parse_bitwise_or(P);
        finish(P, N_STARRED, tm);
    } else {
        parse_bitwise_or(P);
    }
    if (!at(P, T_COMMA))
        return;
    while (accept(P, T_COMMA)) {
        if (at(P, T_KW_IN) || at(P, T_EQUAL) || !starts_expression(cur(P)))
            break;
        uint32_t em = mark(P);
        if (accept(P, T_STAR)) {
            parse_bitwise_or(P);
            finish(P, N_STARRED, em);
        } else {
            parse_bitwise_or(P);
        }
    }
    finish(P, N_TUPLE, m);
}

/* for_if_clause: ['async'] 'for' star_targets 'in' ~ disjunction ('if' disjunction)* */
static void parse_comp_for_clauses(Parser *P)
{
    while (at_comp_for(P)) {
        uint32_t m = mark(P);
        accept(P, T_KW_ASYNC);
        bump(P);  /* 'for' */
        parse_targets(P);
        check_target(P, top_elem(P), TGT_COMP);
        expect(P, T_KW_IN);
        parse_disjunction(P);
        while (at(P, T_KW_IF)) {
            uint32_t im = mark(P);
            bump(P);
            parse_disjunction(P);
            finish(P, N_COMP_IF, im);
        }
        finish(P, N_COMP_FOR, m);
    }
}

/* ---- parameters -------------------------------------------------------------------- */

typedef struct ParamState {
    bool slash, star, dstar, default_seen, star_needs_name;
    uint32_t count;
    uint32_t bare_star_tok;
} ParamState;

/* param: NAME [':' expression] ['=' expression] | '*' [NAME [':' star_expression]]
 *      | '**' NAME [':' expression] | '/'  (lambda: no annotations) */
static void parse_param(Parser *P, ParamState *st, bool annotations)
{
    uint32_t m = mark(P);
    if (st->dstar)
        error_here(P, "arguments cannot follow var-keyword argument");
    if (accept(P, T_SLASH)) {
        if (st->slash)
            error_span(P, P->t[P->pos - 1].start, P->t[P->pos - 1].start + 1,
                       "/ may appear only once");
        else if (st->star)
            error_span(P, P->t[P->pos - 1].start, P->t[P->pos - 1].start + 1,
                       "/ must be ahead of *");
        else if (st->count == 0)
            error_span(P, P->t[P->pos - 1].start, P->t[P->pos - 1].start + 1,
                       "at least one argument must precede /");
        st->slash = true;
        finish(P, N_PARAM, m);
        return;
    }
    if (accept(P, T_STAR)) {
        if (st->star)
            error_span(P, P->t[P->pos - 1].start, P->t[P->pos - 1].start + 1,
                       "* argument may appear only once");
        st->star = true;
        if (at(P, T_NAME)) {
            bump(P);
            if (annotations && accept(P, T_COLON)) {
                if (at(P, T_STAR)) {
                    parse_star_expression(P);
                    feature_at(P, top_elem(P), FEAT_STAR_ANNOTATION);
                } else {
                    parse_expression(P);
                }
            }
        } else {
            st->star_needs_name = true;
            st->bare_star_tok = P->pos - 1;
        }
        if (at(P, T_EQUAL))
            error_here(P, "var-positional argument cannot have default value");
        finish(P, N_PARAM, m);
        return;
    }
    bool dstar = accept(P, T_DOUBLESTAR);
    if (!accept(P, T_NAME))
        error_expected(P, "a parameter name");
    if (annotations && accept(P, T_COLON))
        parse_expression(P);
    bool has_default = accept(P, T_EQUAL);
    if (has_default) {
        if (dstar)
            error_span(P, P->t[P->pos - 1].start, P->t[P->pos - 1].start + 1,
                       "var-keyword argument cannot have default value");
        parse_expression(P);
    }
    uint32_t id = finish(P, N_PARAM, m);
    if (dstar) {
        st->dstar = true;
        return;
    }
    st->star_needs_name = false;
    if (!st->star && has_default)
        st->default_seen = true;
    else if (!st->star && st->default_seen)
        error_node(P, id, "parameter without a default follows parameter with a default");
}

/* parameters / lambda_params (ends before `closer`) */
void parse_params(Parser *P, TokKind closer, bool annotations)
{
    uint32_t m = mark(P);
    bool parens = closer == T_RPAR;
    if (parens)
        expect(P, T_LPAR);
    ParamState st = {0};
    while (!at(P, closer) && !at(P, T_NEWLINE) && !at(P, T_ENDMARKER)) {
        uint32_t before = P->pos;
        parse_param(P, &st, annotations);
        st.count++;
        if (!accept(P, T_COMMA) || P->pos == before)
            break;
    }
    if (st.star_needs_name)
        error_node(P, ELEM_TOKEN | st.bare_star_tok, "named arguments must follow bare *");
    if (parens)
        expect_closer(P, T_RPAR);
    finish(P, N_PARAMS, m);
}
