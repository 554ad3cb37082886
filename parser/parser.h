/* parser: tokens -> lossless concrete syntax tree. Every token of the file is
 * a child of exactly one node, in order, so re-emitting the tree's tokens with
 * their leading trivia reproduces the file byte for byte, valid or not.
 * Syntax errors are values (Diag) plus ERROR nodes that keep their tokens. */
#ifndef PFC_PARSER_H
#define PFC_PARSER_H
#include "../lexer/lexer.h"

typedef enum NodeKind {
#define NODE(id) N_##id,
#include "nodes.def"
#undef NODE
    N__COUNT
} NodeKind;

/* A child: a token index (ELEM_TOKEN set) or a node index. */
typedef uint32_t Elem;
#define ELEM_TOKEN 0x80000000u
static inline int elem_is_token(Elem e) { return (e & ELEM_TOKEN) != 0; }
static inline uint32_t elem_index(Elem e) { return e & ~ELEM_TOKEN; }

typedef struct Node {
    uint16_t kind;
    uint16_t flags;
    uint32_t nkids;
    Elem *kids;
    uint32_t first_tok, end_tok;   /* tokens [first_tok, end_tok); empty when equal */
} Node;

/* One parsed file. All memory belongs to the arena passed to parse_file. */
typedef struct Syntax {
    const char *src;
    uint32_t len;
    Arena *arena;
    Interner names;
    TokenVec toks;
    Node *nodes;
    uint32_t nnodes;
    uint32_t root;             /* the MODULE node */
    DiagVec diags;             /* syntax errors, sorted by position */
    FeatureVec features;       /* version-dependent syntax used */
    uint32_t *line_starts;     /* computed on first use by syntax_line_col */
    uint32_t nlines;
    /* code points before each SYNTAX_CP_STRIDE-byte block, with line_starts:
     * a column costs one block's scan however long its line is */
    uint32_t *cp_before;
} Syntax;

void parse_file(Syntax *out, const char *src, uint32_t len, Arena *arena);

/* Adds a diagnostic for each use of syntax newer than Python 3.<target_minor>. */
void parse_check_target(Syntax *s, int target_minor);

const char *node_kind_name(NodeKind k);

/* Navigation for later stages: children that are nodes, skipping tokens. */
static inline const Node *syn_node(const Syntax *s, uint32_t id) { return &s->nodes[id]; }
uint32_t node_nkids(const Syntax *s, const Node *n);              /* node children */
const Node *node_kid(const Syntax *s, const Node *n, uint32_t i);   /* i-th node child or NULL */
uint32_t node_kid_id(const Syntax *s, const Node *n, uint32_t i);   /* its id, or UINT32_MAX */
/* The first token child of kind k, or NULL. */
const Token *node_token(const Syntax *s, const Node *n, TokKind k);
static inline uint32_t node_id(const Syntax *s, const Node *n) { return (uint32_t)(n - s->nodes); }

/* Iterates the node children of `n` (ids in `var`), skipping tokens, in order:
 * node_kid_id(i) is linear, so loops over all children must use this. */
#define FOR_EACH_KID(n, var)                                                     \
    for (uint32_t var##_i = 0, var = 0; var##_i < (n)->nkids; var##_i++)       \
        if (!elem_is_token((n)->kids[var##_i]) && ((var = (n)->kids[var##_i]), 1))

enum { SYNTAX_CP_STRIDE = 64 };

/* 1-based line and column (in code points) of a byte offset. */
void syntax_line_col(Syntax *s, uint32_t offset, uint32_t *line, uint32_t *col);
uint32_t node_start(const Syntax *s, const Node *n);
uint32_t node_end(const Syntax *s, const Node *n);

#endif
