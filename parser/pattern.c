/* Structural pattern matching (PEP 634): the patterns of `case` clauses. */
#include "internal.h"

static void parse_pattern(Parser *P);

/* signed_number: NUMBER | '-' NUMBER
 * complex_number: signed_real_number ('+' | '-') imaginary_number */
static void parse_number_literal(Parser *P)
{
    uint32_t m = mark(P);
    bool negative = accept(P, T_MINUS);
    uint32_t nm = mark(P);
    finish(P, expect(P, T_NUMBER) ? N_NUMBER : N_ERROR, nm);
    if (negative)
        finish(P, N_UNARY_OP, m);
    if ((at(P, T_PLUS) || at(P, T_MINUS)) && peek(P, 1) == T_NUMBER) {
        bump(P);
        nm = mark(P);
        bump(P);
        finish(P, N_NUMBER, nm);
        finish(P, N_BIN_OP, m);
    }
}

/* name_or_attr: NAME ('.' NAME)* as NAME / ATTRIBUTE nodes */
static int parse_name_or_attr(Parser *P)
{
    uint32_t m = mark(P);
    int dots = 0;
    parse_name(P);
    while (at(P, T_DOT)) {
        bump(P);
        expect(P, T_NAME);
        finish(P, N_ATTRIBUTE, m);
        dots++;
    }
    return dots;
}

/* literal_expr for mapping keys and value patterns */
static void parse_literal_value(Parser *P)
{
    uint32_t m = mark(P);
    switch (cur(P)) {
    case T_NUMBER: case T_MINUS: parse_number_literal(P); break;
    case T_STRING: parse_strings(P); break;
    case T_FSTRING_START:
        parse_strings(P);
        error_node(P, top_elem(P), "patterns may only match literals and attribute lookups");
        break;
    case T_KW_NONE: case T_KW_TRUE: case T_KW_FALSE:
        bump(P);
        finish(P, N_CONSTANT, m);
        break;
    default:
        break;
    }
    finish(P, N_PAT_VALUE, m);
}

/* maybe_star_pattern: '*' (capture_pattern | wildcard_pattern) | pattern */
static void parse_maybe_star_pattern(Parser *P)
{
    if (!at(P, T_STAR)) {
        parse_pattern(P);
        return;
    }
    uint32_t m = mark(P);
    bump(P);
    expect(P, T_NAME);
    finish(P, N_PAT_STAR, m);
}

/* sequence_pattern: '[' maybe_sequence_pattern? ']' | '(' open_sequence_pattern? ')'
 * group_pattern: '(' pattern ')' */
static void parse_bracket_pattern(Parser *P)
{
    uint32_t m = mark(P);
    TokKind closer = at(P, T_LPAR) ? T_RPAR : T_RSQB;
    bump(P);
    int items = 0;
    bool comma = false, star = false;
    while (!at(P, closer) && !at(P, T_ENDMARKER) && !at(P, T_NEWLINE)) {
        uint32_t before = P->pos;
        star |= at(P, T_STAR);
        parse_maybe_star_pattern(P);
        items++;
        if (!accept(P, T_COMMA) || P->pos == before)
            break;
        comma = true;
    }
    expect(P, closer);
    if (closer == T_RPAR && items == 1 && !comma) {
        uint32_t id = finish(P, N_PAT_GROUP, m);
        if (star)
            error_node(P, id, "cannot use starred pattern here");
        return;
    }
    finish(P, N_PAT_SEQUENCE, m);
}

/* mapping_pattern: '{' [(key_value_pattern | double_star_pattern) ,* ] '}'
 * key_value_pattern: (literal_expr | attr) ':' pattern ; double_star_pattern: '**' NAME */
static void parse_mapping_pattern(Parser *P)
{
    uint32_t m = mark(P);
    bump(P);
    bool rest = false;
    while (!at(P, T_RBRACE) && !at(P, T_ENDMARKER) && !at(P, T_NEWLINE)) {
        uint32_t before = P->pos;
        if (rest)
            error_here(P, "double star pattern must be the last in a mapping pattern");
        if (accept(P, T_DOUBLESTAR)) {
            expect(P, T_NAME);
            rest = true;
        } else {
            uint32_t km = mark(P);
            if (at(P, T_NAME)) {
                if (parse_name_or_attr(P) == 0)
                    error_node(P, top_elem(P),
                               "mapping pattern keys may only match literals and attribute lookups");
                finish(P, N_PAT_VALUE, km);
            } else {
                parse_literal_value(P);
            }
            expect(P, T_COLON);
            parse_pattern(P);
            finish(P, N_PAT_KEY_VALUE, km);
        }
        if (!accept(P, T_COMMA) || P->pos == before)
            break;
    }
    expect(P, T_RBRACE);
    finish(P, N_PAT_MAPPING, m);
}

/* class_pattern: name_or_attr '(' [pattern ,* ] [keyword_pattern ,* ] ')'
 * keyword_pattern: NAME '=' pattern */
static void parse_class_pattern_args(Parser *P, uint32_t m)
{
    bump(P);
    bool keywords = false;
    while (!at(P, T_RPAR) && !at(P, T_ENDMARKER) && !at(P, T_NEWLINE)) {
        uint32_t before = P->pos;
        if (at(P, T_NAME) && peek(P, 1) == T_EQUAL) {
            uint32_t km = mark(P);
            bump(P);
            bump(P);
            parse_pattern(P);
            finish(P, N_PAT_KEYWORD, km);
            keywords = true;
        } else {
            parse_pattern(P);
            if (keywords)
                error_node(P, top_elem(P), "positional patterns follow keyword patterns");
        }
        if (!accept(P, T_COMMA) || P->pos == before)
            break;
    }
    expect(P, T_RPAR);
    finish(P, N_PAT_CLASS, m);
}

/* closed_pattern: literal_pattern | capture_pattern | wildcard_pattern | value_pattern
 *               | group_pattern | sequence_pattern | mapping_pattern | class_pattern */
static void parse_closed_pattern(Parser *P)
{
    uint32_t m = mark(P);
    switch (cur(P)) {
    case T_LPAR: case T_LSQB:
        if (!enter(P))
            return;
        parse_bracket_pattern(P);
        leave(P);
        return;
    case T_LBRACE:
        if (!enter(P))
            return;
        parse_mapping_pattern(P);
        leave(P);
        return;
    case T_NAME:
        break;
    case T_NUMBER: case T_MINUS: case T_STRING: case T_FSTRING_START: case T_KW_NONE:
    case T_KW_TRUE: case T_KW_FALSE:
        parse_literal_value(P);
        return;
    default:
        error_expected(P, "a pattern");
        finish(P, N_ERROR, m);
        return;
    }
    bool wildcard = at_name(P, NAME_UNDERSCORE);
    int dots = parse_name_or_attr(P);
    if (at(P, T_LPAR)) {
        parse_class_pattern_args(P, m);
        return;
    }
    if (dots) {
        finish(P, N_PAT_VALUE, m);
        return;
    }
    finish(P, wildcard ? N_PAT_WILDCARD : N_PAT_CAPTURE, m);
}

/* or_pattern: '|'.closed_pattern+ */
static void parse_or_pattern(Parser *P)
{
    uint32_t m = mark(P);
    parse_closed_pattern(P);
    if (!at(P, T_VBAR))
        return;
    while (accept(P, T_VBAR))
        parse_closed_pattern(P);
    finish(P, N_PAT_OR, m);
}

/* pattern: as_pattern | or_pattern ; as_pattern: or_pattern 'as' pattern_capture_target */
static void parse_pattern(Parser *P)
{
    uint32_t m = mark(P);
    parse_or_pattern(P);
    if (!accept(P, T_KW_AS))
        return;
    if (at_name(P, NAME_UNDERSCORE))
        error_here(P, "cannot use '_' as a target");
    else if (!at(P, T_NAME))
        error_expected(P, "a name after 'as'");
    accept(P, T_NAME);
    finish(P, N_PAT_AS, m);
}

/* patterns: open_sequence_pattern | pattern
 * open_sequence_pattern: maybe_star_pattern ',' maybe_sequence_pattern? */
void parse_case_patterns(Parser *P)
{
    uint32_t m = mark(P);
    parse_maybe_star_pattern(P);
    if (!at(P, T_COMMA)) {
        Node *n = last_node(P);
        if (n && n->kind == N_PAT_STAR)
            finish(P, N_PAT_SEQUENCE, m);
        return;
    }
    while (accept(P, T_COMMA)) {
        if (at(P, T_COLON) || at(P, T_KW_IF))
            break;
        parse_maybe_star_pattern(P);
    }
    finish(P, N_PAT_SEQUENCE, m);
}
