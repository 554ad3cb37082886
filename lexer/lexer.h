/* lexer: bytes -> tokens. Tokens and the trivia between them tile the file:
 * token i's leading trivia is [end of token i-1, start of token i), and the
 * ENDMARKER token (zero width, at the end of the file) owns the trailing trivia.
 * INDENT, DEDENT, ENDMARKER and a NEWLINE synthesised at end of file are zero
 * width. The lexer knows nothing about grammar. */
#ifndef PFC_LEXER_H
#define PFC_LEXER_H
#include "../base/arena.h"
#include "../base/diag.h"
#include "../base/intern.h"
#include <stdbool.h>
#include <stdint.h>

typedef enum TokKind {
#define TOK(id, text) T_##id,
#include "tokens.def"
#undef TOK
    T__COUNT
} TokKind;

#define T_FIRST_OP T_LPAR
#define T_LAST_OP T_ATEQUAL
#define T_FIRST_KW T_KW_FALSE
#define T_LAST_KW T_KW_YIELD

enum {
    TF_STRING_BYTES = 1,      /* STRING with a b prefix */
    TF_STRING_UNTERMINATED = 2,
};

/* 12 bytes: a 10 MB module has over a million tokens. The widths hold for
 * any source the lexer accepts (LEX_MAX_SOURCE): a token is shorter than the
 * file, and a file of 64 MiB has room for fewer than 2^24 distinct names
 * (each needs its own spelling and a separator: over 13 million of them take
 * 5 bytes or more). lex_file checks both. */
enum { LEX_MAX_SOURCE = 64u << 20, LEX_MAX_NAMES = 1u << 24 };
typedef struct Token {
    uint32_t start;
    uint32_t len : 29;
    uint32_t flags : 3;       /* TF_* */
    uint32_t name : 24;       /* interned id of a NAME, else 0 */
    uint32_t kind : 8;        /* TokKind */
} Token;

typedef ARENA_VEC(Token) TokenVec;

typedef struct LexInput {
    const char *src;
    uint32_t len;
    Arena *arena;
    Interner *names;
    DiagVec *diags;
    FeatureVec *features;
    uint32_t unclosed_bracket;   /* out: offset of a bracket never closed, or UINT32_MAX */
} LexInput;

/* Tokenizes the whole file; always ends with ENDMARKER. Errors are added to
 * in->diags and leave ERROR tokens that keep their bytes. */
TokenVec lex_file(LexInput *in);

const char *tok_kind_text(TokKind k);   /* as written: "(" or "name" */
const char *tok_kind_name(TokKind k);   /* identifier: LPAR, NAME */

typedef enum TriviaKind {
    TRIVIA_WHITESPACE, TRIVIA_COMMENT, TRIVIA_NEWLINE, TRIVIA_CONTINUATION, TRIVIA_BOM,
    TRIVIA_OTHER,
} TriviaKind;

/* Splits a trivia gap into pieces: returns the length of the piece at pos. */
uint32_t trivia_piece(const char *src, uint32_t pos, uint32_t end, TriviaKind *kind);
const char *trivia_kind_name(TriviaKind k);

/* Longest Python source we accept: offsets are 32-bit. */
enum { LEX_MAX_FILE = 0x7fffffff, LEX_MAX_PAREN = 200, LEX_MAX_INDENT = 100 };

#endif
