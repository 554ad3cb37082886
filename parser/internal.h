/* Shared by the parser's files: the tree builder and token cursor. The builder
 * keeps a stack of child elements; a production marks the stack, parses its
 * parts (each pushes one element) and folds everything above the mark into a
 * node. Wrapping after the fact (binary operators, calls) reuses an old mark. */
#ifndef PFC_PARSER_INTERNAL_H
#define PFC_PARSER_INTERNAL_H
#include "parser.h"
#include <stdbool.h>

enum { PARSE_MAX_DEPTH = 800 };

typedef struct Parser {
    Syntax *S;
    const Token *t;
    uint32_t pos, ntok;
    ARENA_VEC(Node) nodes;
    ARENA_VEC(Elem) stack;
    ArenaIds kids;               /* where nodes' children are packed */
    int depth;
    bool stmt_error;      /* one diagnostic per statement: later ones are noise */
    bool too_deep;
} Parser;

/* cursor */
static inline TokKind cur(const Parser *P) { return (TokKind)P->t[P->pos].kind; }
static inline TokKind peek(const Parser *P, uint32_t k)
{
    uint32_t i = P->pos + k;
    return (TokKind)P->t[i < P->ntok ? i : P->ntok - 1].kind;
}
static inline bool at(const Parser *P, TokKind k) { return cur(P) == k; }
static inline bool at_name(const Parser *P, uint32_t name)
{
    return cur(P) == T_NAME && P->t[P->pos].name == name;
}
static inline uint32_t mark(const Parser *P) { return P->stack.n; }

void bump(Parser *P);
bool accept(Parser *P, TokKind k);
bool expect(Parser *P, TokKind k);
uint32_t finish(Parser *P, NodeKind kind, uint32_t m);
Node *last_node(Parser *P);          /* node on top of the stack, or NULL */
Node *node_at(Parser *P, Elem e);
Elem top_elem(Parser *P);

/* errors */
void error_span(Parser *P, uint32_t start, uint32_t end, const char *msg);
void error_here(Parser *P, const char *msg);
void error_node(Parser *P, Elem e, const char *msg);
void error_expected(Parser *P, const char *what);
void feature_at(Parser *P, Elem e, PyFeature f);
void skip_to_line_end(Parser *P);
bool enter(Parser *P);
static inline void leave(Parser *P) { P->depth--; }

/* targets */
typedef enum TargetCtx { TGT_ASSIGN, TGT_AUG, TGT_ANN, TGT_DEL, TGT_FOR, TGT_WITH, TGT_COMP }
    TargetCtx;
void check_target(Parser *P, Elem e, TargetCtx ctx);

/* expressions (expr.c) */
bool starts_expression(TokKind k);
void parse_expression(Parser *P);
void parse_named_expression(Parser *P);
void parse_star_expressions(Parser *P);
void parse_star_named_expression(Parser *P);
void parse_yield_or_star_expressions(Parser *P);
void parse_yield_expr(Parser *P);
void parse_disjunction(Parser *P);
void parse_bitwise_or(Parser *P);
void parse_targets(Parser *P);
void parse_arguments(Parser *P);
void parse_params(Parser *P, TokKind closer, bool annotations);
void parse_strings(Parser *P);
void parse_name(Parser *P);
void parse_dotted_name(Parser *P);

/* statements (stmt.c) and patterns (pattern.c) */
void parse_statement(Parser *P);
void parse_block(Parser *P, const char *what, uint32_t header_tok);
void parse_case_patterns(Parser *P);

#endif
