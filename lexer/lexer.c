/* Python 3.13 tokenizer. Produces the token stream of the whole file; the bytes
 * between tokens are trivia (whitespace, comments, non-logical newlines,
 * backslash continuations, the BOM). The structure follows CPython's tokenizer
 * (indent stack with an alternate tab size for TabError, a bracket stack for
 * implicit line joining, a mode stack for PEP 701 f-strings) but dispatches on a
 * 256-entry character class table, as SQLite's tokenize.c does. */
#include "lexer.h"
#include "decode_check.h"
#include "encodings.h"
#include "escapes.h"
#include "unicode_id.h"
#include <string.h>

enum {
    CC_ID = 1,        /* may start an identifier (ASCII letter, '_', any byte >= 0x80) */
    CC_DIGIT = 2,
    CC_SPACE = 4,     /* ' ', '\t', '\f' */
    CC_NL = 8,        /* '\n', '\r' */
    CC_QUOTE = 16,
    CC_OP = 32,       /* starts an operator or delimiter */
    CC_HEX = 64,
};

static const unsigned char char_class[256] = {
    ['\t'] = CC_SPACE, ['\f'] = CC_SPACE, [' '] = CC_SPACE,
    ['\n'] = CC_NL, ['\r'] = CC_NL,
    ['"'] = CC_QUOTE, ['\''] = CC_QUOTE,
    ['0' ... '9'] = CC_DIGIT | CC_HEX,
    ['a' ... 'f'] = CC_ID | CC_HEX, ['g' ... 'z'] = CC_ID,
    ['A' ... 'F'] = CC_ID | CC_HEX, ['G' ... 'Z'] = CC_ID,
    ['_'] = CC_ID,
    [0x80 ... 0xff] = CC_ID,
    ['('] = CC_OP, [')'] = CC_OP, ['['] = CC_OP, [']'] = CC_OP, ['{'] = CC_OP, ['}'] = CC_OP,
    [':'] = CC_OP, [','] = CC_OP, [';'] = CC_OP, ['.'] = CC_OP, ['+'] = CC_OP, ['-'] = CC_OP,
    ['*'] = CC_OP, ['/'] = CC_OP, ['|'] = CC_OP, ['&'] = CC_OP, ['<'] = CC_OP, ['>'] = CC_OP,
    ['='] = CC_OP, ['%'] = CC_OP, ['~'] = CC_OP, ['^'] = CC_OP, ['@'] = CC_OP, ['!'] = CC_OP,
};

static inline bool is_id_ascii(unsigned char c)
{
    return (char_class[c] & (CC_ID | CC_DIGIT)) && c < 0x80;
}

/* One entry of the f-string mode stack. */
typedef enum FrameKind { FR_FSTRING, FR_FIELD, FR_SPEC } FrameKind;
typedef struct Frame {
    uint8_t kind;
    char quote;
    bool triple, raw;
    int paren_base;        /* FR_FIELD: bracket depth just inside its '{' */
    uint32_t start;        /* FR_FSTRING: offset of its prefix, for messages */
    const char *bad_escape; /* FR_FSTRING: first invalid escape, reported at its end */
} Frame;

typedef struct Lexer {
    LexInput *in;
    const char *s;
    uint32_t n, pos;
    TokenVec toks;
    char parens[LEX_MAX_PAREN];
    uint32_t paren_at[LEX_MAX_PAREN];
    int depth;
    int indents[LEX_MAX_INDENT + 1], alt_indents[LEX_MAX_INDENT + 1], nindent;
    Frame frames[LEX_MAX_PAREN];
    int nframes;
    int fields_open;       /* FR_FIELD frames on the stack: inside an f-string expression */
    bool line_has_tokens;  /* a logical line is in progress (NEWLINE is due) */
    bool utf8;             /* the source is declared or defaulted UTF-8 */
    bool fatal_depth;      /* too many brackets: stop tracking to avoid cascades */
    bool has_nul;          /* the file holds a NUL byte, reported once at the first */
    uint32_t line_cursor, line_at_cursor;
} Lexer;

static void diag(Lexer *L, uint32_t start, uint32_t end, const char *msg)
{
    if (L->in->diags->n >= DIAG_LIMIT)
        return;
    Diag d = {start, end, msg};
    VEC_PUSH(L->in->arena, *L->in->diags, d);
}

static void feature(Lexer *L, uint32_t start, uint32_t end, PyFeature f)
{
    FeatureUse u = {start, end, (uint8_t)f};
    VEC_PUSH(L->in->arena, *L->in->features, u);
}

static Token *emit(Lexer *L, TokKind kind, uint32_t start, uint32_t end)
{
    Token t = {.start = start, .len = end - start, .kind = kind};
    VEC_PUSH(L->in->arena, L->toks, t);
    if (kind != T_INDENT && kind != T_DEDENT && kind != T_NEWLINE && kind != T_ENDMARKER)
        L->line_has_tokens = true;
    return &L->toks.v[L->toks.n - 1];
}

/* Line number for messages. Errors arrive in mostly increasing order, so a
 * cursor that only restarts when asked about an earlier offset keeps many
 * errors in a huge file linear. */
static uint32_t line_of(Lexer *L, uint32_t pos)
{
    if (pos < L->line_cursor) {
        L->line_cursor = 0;
        L->line_at_cursor = 1;
    }
    uint32_t line = L->line_at_cursor;
    for (uint32_t i = L->line_cursor; i < pos && i < L->n; i++)
        if (L->s[i] == '\n' || (L->s[i] == '\r' && (i + 1 >= L->n || L->s[i + 1] != '\n')))
            line++;
    L->line_cursor = pos;
    L->line_at_cursor = line;
    return line;
}

static const char *unterminated_msg(Lexer *L, const char *what, uint32_t at)
{
    return arena_printf(L->in->arena, "unterminated %s (detected at line %u)", what,
                        line_of(L, at));
}

static uint32_t newline_len(const Lexer *L, uint32_t p)
{
    if (p >= L->n)
        return 0;
    if (L->s[p] == '\n')
        return 1;
    if (L->s[p] == '\r')
        return (p + 1 < L->n && L->s[p + 1] == '\n') ? 2 : 1;
    return 0;
}

/* ---- UTF-8 ------------------------------------------------------------------ */

/* Decodes one code point; returns its length, or 0 if the bytes are not UTF-8. */
static uint32_t utf8_decode(const unsigned char *p, uint32_t avail, uint32_t *cp)
{
    unsigned c = p[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    uint32_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
    if (len == 0 || len > avail || c > 0xf4)
        return 0;
    uint32_t v = c & (0x3f >> (len - 1));
    for (uint32_t i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        v = (v << 6) | (p[i] & 0x3f);
    }
    static const uint32_t min_for_len[] = {0, 0, 0x80, 0x800, 0x10000};
    if (v < min_for_len[len] || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return 0;
    *cp = v;
    return len;
}

static void check_utf8(Lexer *L, uint32_t from)
{
    const unsigned char *s = (const unsigned char *)L->s;
    uint32_t i = from;
    while (i < L->n) {
        if (s[i] < 0x80) {
            i++;
            /* ASCII, most files' every byte: eight at a time */
            uint64_t w;
            while (i + 8 <= L->n && (memcpy(&w, s + i, 8), (w & 0x8080808080808080ull) == 0))
                i += 8;
            continue;
        }
        uint32_t cp;
        uint32_t len = utf8_decode(s + i, L->n - i, &cp);
        if (!len) {
            diag(L, i, i + 1,
                 arena_printf(L->in->arena,
                              "invalid UTF-8: byte 0x%02x cannot be decoded (the file declares "
                              "no other encoding)", s[i]));
            return;
        }
        i += len;
    }
}

/* CPython refuses a NUL byte anywhere in the source, strings and comments
 * included, before it tokenizes anything. */
static void check_nul(Lexer *L)
{
    const char *nul = memchr(L->s, '\0', L->n);
    if (!nul)
        return;
    uint32_t at = (uint32_t)(nul - L->s);
    diag(L, at, at + 1, "source code cannot contain null bytes");
    L->has_nul = true;
}

/* ---- encoding declaration (PEP 263) -------------------------------------------- */

/* Finds `coding[:=]\s*([-\w.]+)` in a comment-only line [p, end). */
static bool find_cookie(const char *s, uint32_t p, uint32_t end, uint32_t *name_start,
                        uint32_t *name_len)
{
    while (p < end && (char_class[(unsigned char)s[p]] & CC_SPACE))
        p++;
    if (p >= end || s[p] != '#')
        return false;
    for (; p + 6 < end; p++) {
        if (memcmp(s + p, "coding", 6) != 0 || (s[p + 6] != ':' && s[p + 6] != '='))
            continue;
        uint32_t q = p + 7;
        while (q < end && (s[q] == ' ' || s[q] == '\t'))
            q++;
        uint32_t b = q;
        while (q < end && (is_id_ascii((unsigned char)s[q]) || s[q] == '-' || s[q] == '.'))
            q++;
        if (q > b) {
            *name_start = b;
            *name_len = q - b;
            return true;
        }
    }
    return false;
}

static uint32_t line_end(const Lexer *L, uint32_t p)
{
    while (p < L->n && L->s[p] != '\n' && L->s[p] != '\r')
        p++;
    return p;
}

static bool line_is_blank_or_comment(const Lexer *L, uint32_t p, uint32_t end)
{
    while (p < end && (char_class[(unsigned char)L->s[p]] & CC_SPACE))
        p++;
    return p == end || L->s[p] == '#';
}

/* Reads the coding cookie of line 1 (or 2, when line 1 is blank or a comment) and
 * decides whether the rest of the file is UTF-8, as CPython's tokenizer does. */
static void check_encoding(Lexer *L, bool has_bom, uint32_t start)
{
    uint32_t e1 = line_end(L, start);
    uint32_t ns = 0, nl = 0;
    bool found = find_cookie(L->s, start, e1, &ns, &nl);
    if (!found && line_is_blank_or_comment(L, start, e1)) {
        uint32_t l2 = e1 + newline_len(L, e1);
        found = l2 < L->n && find_cookie(L->s, l2, line_end(L, l2), &ns, &nl);
    }
    L->utf8 = true;
    if (!found)
        return;
    const char *name = L->s + ns;
    const char *normal = enc_normal_name(name, nl);
    if (has_bom && !(normal && strcmp(normal, "utf-8") == 0)) {
        /* CPython names the codec by its normal name when it has one */
        diag(L, ns, ns + nl,
             arena_printf(L->in->arena, "encoding problem: %.*s with BOM",
                          normal ? (int)strlen(normal) : (int)nl, normal ? normal : name));
        return;
    }
    if (!normal && !enc_is_text_encoding(name, nl)) {
        const char *why = enc_is_known(name, nl)
                              ? "'%.*s' is not a text encoding; use codecs.decode() to handle "
                                "arbitrary codecs"
                              : "unknown encoding: %.*s";
        diag(L, ns, ns + nl, arena_printf(L->in->arena, why, (int)nl, name));
        return;
    }
    L->utf8 = normal ? strcmp(normal, "utf-8") == 0 : enc_is_utf8(name, nl);
    if (!L->utf8) {
        uint32_t at;
        const char *codec = normal ? normal : name;
        const char *msg = enc_check_source(L->in->arena, codec, normal ? strlen(normal) : nl,
                                           L->s, L->n, &at);
        if (msg)
            diag(L, at, at + 1, msg);
    }
}

/* ---- brackets --------------------------------------------------------------------- */

static void open_paren(Lexer *L, char c, uint32_t at)
{
    if (L->depth >= LEX_MAX_PAREN) {
        if (!L->fatal_depth)
            diag(L, at, at + 1, "too many nested parentheses");
        L->fatal_depth = true;
        L->depth++;
        return;
    }
    L->parens[L->depth] = c;
    L->paren_at[L->depth] = at;
    L->depth++;
}

static char matching_open(char close) { return close == ')' ? '(' : close == ']' ? '[' : '{'; }

/* Returns false (after reporting) when the closer does not match. */
static bool close_paren(Lexer *L, char c, uint32_t at)
{
    if (L->depth == 0) {
        diag(L, at, at + 1, arena_printf(L->in->arena, "unmatched '%c'", c));
        return false;
    }
    if (L->depth > LEX_MAX_PAREN) {
        L->depth--;
        return true;
    }
    char open = L->parens[L->depth - 1];
    if (open != matching_open(c)) {
        uint32_t oat = L->paren_at[L->depth - 1];
        if (L->in->diags->n >= DIAG_LIMIT)
            return false;   /* past the limit: do not even look up line numbers */
        const char *msg =
            line_of(L, oat) == line_of(L, at)
                ? arena_printf(L->in->arena,
                               "closing parenthesis '%c' does not match opening parenthesis '%c'",
                               c, open)
                : arena_printf(L->in->arena,
                               "closing parenthesis '%c' does not match opening parenthesis "
                               "'%c' on line %u",
                               c, open, line_of(L, oat));
        diag(L, at, at + 1, msg);
        return false;
    }
    L->depth--;
    return true;
}

/* ---- indentation ------------------------------------------------------------------ */

/* A continuation among the indentation bytes [from, to). */
static bool line_has_continuation(const Lexer *L, uint32_t from, uint32_t to)
{
    return memchr(L->s + from, '\\', to - from) != NULL;
}

/* Emits INDENT/DEDENT for a logical line whose first token is at p. */
static void indent_line(Lexer *L, uint32_t p, int col, int alt, bool continued)
{
    int top = L->indents[L->nindent];
    if (col > top) {
        if (alt <= L->alt_indents[L->nindent]) {
            diag(L, L->pos, p, "inconsistent use of tabs and spaces in indentation");
        }
        if (L->nindent >= LEX_MAX_INDENT) {
            diag(L, L->pos, p, "too many levels of indentation");
        } else {
            L->nindent++;
            L->indents[L->nindent] = col;
            L->alt_indents[L->nindent] = alt;
        }
        emit(L, T_INDENT, p, p);
        /* CPython 3.9 ignored the indentation of such a line */
        if (continued)
            feature(L, L->pos, p, FEAT_CONTINUED_INDENT);
    } else if (col < top) {
        while (L->nindent > 0 && col < L->indents[L->nindent]) {
            L->nindent--;
            emit(L, T_DEDENT, p, p);
        }
        if (col != L->indents[L->nindent])
            diag(L, p, p, "unindent does not match any outer indentation level");
        else if (alt != L->alt_indents[L->nindent])
            diag(L, L->pos, p, "inconsistent use of tabs and spaces in indentation");
    } else if (alt != L->alt_indents[L->nindent]) {
        diag(L, L->pos, p, "inconsistent use of tabs and spaces in indentation");
    }
    L->line_has_tokens = false;
    L->pos = p;
}

/* At the start of a logical line outside brackets: skips blank and comment-only
 * lines (they are trivia) and emits INDENT/DEDENT for the first real line. */
static void lex_line_start(Lexer *L)
{
    for (;;) {
        int col = 0, alt = 0, cont_col = 0;
        uint32_t p = L->pos;
        for (; p < L->n; p++) {
            char c = L->s[p];
            if (c == ' ') {
                col++;
                alt++;
            } else if (c == '\t') {
                col = (col / 8 + 1) * 8;
                alt++;
            } else if (c == '\f') {
                col = alt = 0;
            } else if (c == '\\' && newline_len(L, p + 1) && p + 1 + newline_len(L, p + 1) < L->n) {
                /* CPython 3.10+: indentation cannot be split over lines; the
                 * first backslash after some indentation sets the column
                 * (0 reads as "not set", so `\` at column 0 lets the next
                 * line's indentation count) */
                cont_col = cont_col ? cont_col : col;
                p += newline_len(L, p + 1);
            } else {
                break;
            }
        }
        if (p >= L->n)
            return;
        char c = L->s[p];
        if (c == '#' || c == '\n' || c == '\r') {
            uint32_t e = line_end(L, p);
            L->pos = e + newline_len(L, e);
            if (L->pos >= L->n)
                return;
            continue;
        }
        if (cont_col)
            col = alt = cont_col;   /* alt too, as CPython does: a TabError after tabs */
        indent_line(L, p, col, alt, p > L->pos && line_has_continuation(L, L->pos, p));
        return;
    }
}

/* ---- names and keywords ------------------------------------------------------------ */

static TokKind keyword_kind(const char *s, uint32_t len)
{
    static const struct { const char *s; uint8_t len, kind; } kw[] = {
        {"False", 5, T_KW_FALSE}, {"None", 4, T_KW_NONE}, {"True", 4, T_KW_TRUE},
        {"and", 3, T_KW_AND}, {"as", 2, T_KW_AS}, {"assert", 6, T_KW_ASSERT},
        {"async", 5, T_KW_ASYNC}, {"await", 5, T_KW_AWAIT}, {"break", 5, T_KW_BREAK},
        {"class", 5, T_KW_CLASS}, {"continue", 8, T_KW_CONTINUE}, {"def", 3, T_KW_DEF},
        {"del", 3, T_KW_DEL}, {"elif", 4, T_KW_ELIF}, {"else", 4, T_KW_ELSE},
        {"except", 6, T_KW_EXCEPT}, {"finally", 7, T_KW_FINALLY}, {"for", 3, T_KW_FOR},
        {"from", 4, T_KW_FROM}, {"global", 6, T_KW_GLOBAL}, {"if", 2, T_KW_IF},
        {"import", 6, T_KW_IMPORT}, {"in", 2, T_KW_IN}, {"is", 2, T_KW_IS},
        {"lambda", 6, T_KW_LAMBDA}, {"nonlocal", 8, T_KW_NONLOCAL}, {"not", 3, T_KW_NOT},
        {"or", 2, T_KW_OR}, {"pass", 4, T_KW_PASS}, {"raise", 5, T_KW_RAISE},
        {"return", 6, T_KW_RETURN}, {"try", 3, T_KW_TRY}, {"while", 5, T_KW_WHILE},
        {"with", 4, T_KW_WITH}, {"yield", 5, T_KW_YIELD},
    };
    /* Keywords are 2..8 bytes and start with a lowercase letter or F/N/T. */
    if (len < 2 || len > 8)
        return T_NAME;
    char c = s[0];
    if (!((c >= 'a' && c <= 'y') || c == 'F' || c == 'N' || c == 'T'))
        return T_NAME;
    /* kw is sorted by first byte: only the entries that start with c are
     * compared (every name token asks, so a scan of all 35 would show) */
    static const struct { uint8_t first, count; } by_first[128] = {
        ['F'] = {0, 1}, ['N'] = {1, 1}, ['T'] = {2, 1}, ['a'] = {3, 5}, ['b'] = {8, 1},
        ['c'] = {9, 2}, ['d'] = {11, 2}, ['e'] = {13, 3}, ['f'] = {16, 3}, ['g'] = {19, 1},
        ['i'] = {20, 4}, ['l'] = {24, 1}, ['n'] = {25, 2}, ['o'] = {27, 1}, ['p'] = {28, 1},
        ['r'] = {29, 2}, ['t'] = {31, 1}, ['w'] = {32, 2}, ['y'] = {34, 1}
    };
    for (size_t i = by_first[(unsigned char)c].first, e = i + by_first[(unsigned char)c].count; i < e; i++)
        if (kw[i].len == len && memcmp(kw[i].s, s, len) == 0)
            return (TokKind)kw[i].kind;
    return T_NAME;
}

/* Scans identifier bytes from pos; stops at the first byte that cannot continue
 * one (reporting an invalid non-ASCII character as CPython does). */
static uint32_t scan_identifier(Lexer *L, uint32_t p, bool *bad)
{
    const unsigned char *s = (const unsigned char *)L->s;
    bool first = true;
    *bad = false;
    while (p < L->n) {
        unsigned c = s[p];
        if (c < 0x80) {
            if (!is_id_ascii((unsigned char)c) || (first && (char_class[c] & CC_DIGIT)))
                break;
            p++;
        } else if (!L->utf8) {
            p++;       /* another encoding: trust the declared codec */
        } else {
            uint32_t cp;
            uint32_t len = utf8_decode(s + p, L->n - p, &cp);
            if (!len || !(first ? uni_is_id_start(cp) : uni_is_id_continue(cp))) {
                *bad = true;
                break;
            }
            p += len;
        }
        first = false;
    }
    return p;
}

static void invalid_character(Lexer *L, uint32_t p)
{
    const unsigned char *s = (const unsigned char *)L->s;
    uint32_t cp = s[p];
    uint32_t len = 1;
    if (s[p] >= 0x80) {
        len = utf8_decode(s + p, L->n - p, &cp);
        if (!len) {
            /* invalid UTF-8 was reported once for the whole file */
            emit(L, T_ERROR, p, p + 1);
            L->pos = p + 1;
            return;
        }
    }
    const char *msg;
    if (cp == 0 && L->has_nul) {
        emit(L, T_ERROR, p, p + 1);   /* reported once, at the file's first NUL */
        L->pos = p + 1;
        return;
    }
    if (cp == 0)
        msg = "source code cannot contain null bytes";
    else if (cp < 0x20 || cp == 0x7f || cp == 0xa0)
        msg = arena_printf(L->in->arena, "invalid non-printable character U+%04X", cp);
    else
        msg = arena_printf(L->in->arena, "invalid character '%.*s' (U+%04X)", (int)len,
                           L->s + p, cp);
    diag(L, p, p + len, msg);
    emit(L, T_ERROR, p, p + len);
    L->pos = p + len;
}

/* ---- strings ------------------------------------------------------------------------ */

enum { PFX_RAW = 1, PFX_BYTES = 2, PFX_FSTRING = 4, PFX_UNICODE = 8 };

/* Returns the PFX_* set of a string prefix, or -1 if [s, s+len) is not one. */
static int string_prefix(const char *s, uint32_t len)
{
    if (len > 2)
        return -1;
    int flags = 0;
    for (uint32_t i = 0; i < len; i++) {
        int f;
        switch (s[i] | 0x20) {
        case 'r': f = PFX_RAW; break;
        case 'b': f = PFX_BYTES; break;
        case 'f': f = PFX_FSTRING; break;
        case 'u': f = PFX_UNICODE; break;
        default: return -1;
        }
        if (flags & f)
            return -1;
        flags |= f;
    }
    if ((flags & PFX_UNICODE) && flags != PFX_UNICODE)
        return -1;
    if ((flags & PFX_BYTES) && (flags & PFX_FSTRING))
        return -1;
    return flags;
}

static bool in_fstring_expr(const Lexer *L) { return L->fields_open > 0; }

/* Pre-3.12 f-strings could not reuse an enclosing f-string's quote. */
static void check_nested_quote(Lexer *L, uint32_t start, char quote, bool triple)
{
    for (int i = L->nframes - 1; i >= 0; i--) {
        const Frame *f = &L->frames[i];
        if (f->kind == FR_FSTRING && f->quote == quote && (!f->triple || triple)) {
            feature(L, start, start + 1, FEAT_FSTRING_QUOTE);
            return;
        }
    }
}

static void push_frame(Lexer *L, Frame f)
{
    if (L->nframes < LEX_MAX_PAREN) {
        L->frames[L->nframes++] = f;
        if (f.kind == FR_FIELD)
            L->fields_open++;
    }
}

static void pop_frame(Lexer *L)
{
    if (L->nframes > 0 && L->frames[--L->nframes].kind == FR_FIELD)
        L->fields_open--;
}

/* Reports an invalid escape at [start, end) (CPython 3.12+ points at the
 * literal) and a \N{...} name that older Pythons do not know. */
static void escape_result(Lexer *L, const EscapeCheck *e, uint32_t start, uint32_t end)
{
    if (e->msg)
        diag(L, start, end, e->msg);
    if (e->name_minor > PY_MINOR_MIN) {
        PyFeature f = e->name_minor == 11   ? FEAT_UNICODE_14_NAME
                      : e->name_minor == 12 ? FEAT_UNICODE_15_NAME
                                            : FEAT_UNICODE_15_1_NAME;
        feature(L, e->name_start, e->name_end, f);
    }
}

/* A plain (non-f) string literal whose prefix starts at `start` and quote at q. */
/* Does none of the eight bytes in w stop a string's scan: its quote (every
 * byte of `quotes`), a backslash, a line end or a non-ASCII byte? Docstrings
 * are a good part of most files, so their text is skipped eight at a time. */
static bool string_run8(uint64_t w, uint64_t quotes)
{
#define HAS_ZERO_BYTE(v) (((v) - 0x0101010101010101ull) & ~(v) & 0x8080808080808080ull)
    return !(HAS_ZERO_BYTE(w ^ quotes) | HAS_ZERO_BYTE(w ^ 0x5c5c5c5c5c5c5c5cull) |
             HAS_ZERO_BYTE(w ^ 0x0a0a0a0a0a0a0a0aull) | HAS_ZERO_BYTE(w ^ 0x0d0d0d0d0d0d0d0dull) |
             (w & 0x8080808080808080ull));
#undef HAS_ZERO_BYTE
}

static void lex_plain_string(Lexer *L, uint32_t start, uint32_t q, int pfx)
{
    const char *s = L->s;
    char quote = s[q];
    bool triple = q + 2 < L->n && s[q + 1] == quote && s[q + 2] == quote;
    uint32_t p = q + (triple ? 3 : 1);
    bool non_ascii = false, backslash = false;
    uint64_t quotes = 0x0101010101010101ull * (unsigned char)quote;
    for (;;) {
        uint64_t w;
        while (p + 8 <= L->n && (memcpy(&w, s + p, 8), string_run8(w, quotes)))
            p += 8;
        if (p >= L->n || (!triple && (s[p] == '\n' || s[p] == '\r'))) {
            Token *t = emit(L, T_STRING, start, p);
            t->flags |= TF_STRING_UNTERMINATED | ((pfx & PFX_BYTES) ? TF_STRING_BYTES : 0);
            diag(L, start, p,
                 unterminated_msg(L, triple ? "triple-quoted string literal" : "string literal",
                                  p));
            L->pos = p;
            return;
        }
        unsigned char c = (unsigned char)s[p];
        if (c == '\\') {
            backslash = true;
            p += 1 + (p + 1 < L->n);
            if (p < L->n && s[p - 1] == '\r' && s[p] == '\n')
                p++;
            continue;
        }
        if (c == (unsigned char)quote) {
            if (!triple) {
                p++;
                break;
            }
            if (p + 2 < L->n && s[p + 1] == quote && s[p + 2] == quote) {
                p += 3;
                break;
            }
        }
        non_ascii |= c >= 0x80;
        p++;
    }
    Token *t = emit(L, T_STRING, start, p);
    if (pfx & PFX_BYTES) {
        t->flags |= TF_STRING_BYTES;
        if (non_ascii)
            diag(L, start, p, "bytes can only contain ASCII literal characters");
    }
    if (backslash && !(pfx & PFX_RAW)) {
        uint32_t qlen = triple ? 3 : 1;
        EscapeCheck e = (pfx & PFX_BYTES)
                            ? esc_check_bytes(L->in->arena, s, q + qlen, p - qlen)
                            : esc_check_str(L->in->arena, s, q + qlen, p - qlen, L->utf8);
        escape_result(L, &e, start, p);
    }
    if (in_fstring_expr(L) && backslash)
        feature(L, start, p, FEAT_FSTRING_BACKSLASH);
    L->pos = p;
}

static void lex_string(Lexer *L, uint32_t start, uint32_t q, int pfx)
{
    char quote = L->s[q];
    bool triple = q + 2 < L->n && L->s[q + 1] == quote && L->s[q + 2] == quote;
    if (in_fstring_expr(L))
        check_nested_quote(L, q, quote, triple);
    if (!(pfx & PFX_FSTRING)) {
        lex_plain_string(L, start, q, pfx);
        return;
    }
    uint32_t end = q + (triple ? 3 : 1);
    emit(L, T_FSTRING_START, start, end);
    Frame f = {FR_FSTRING, quote, triple, (pfx & PFX_RAW) != 0, 0, start, NULL};
    push_frame(L, f);
    L->pos = end;
}

/* The innermost f-string: its quote decides where literal text ends. */
static const Frame *current_fstring(const Lexer *L)
{
    for (int i = L->nframes - 1; i >= 0; i--)
        if (L->frames[i].kind == FR_FSTRING)
            return &L->frames[i];
    return NULL;
}

/* The innermost f-string frame, to record an escape error in. */
static Frame *current_fstring_frame(Lexer *L)
{
    for (int i = L->nframes - 1; i >= 0; i--)
        if (L->frames[i].kind == FR_FSTRING)
            return &L->frames[i];
    return NULL;
}

static void check_fstring_piece(Lexer *L, Frame *fs, uint32_t start, uint32_t end)
{
    if (fs->bad_escape || !memchr(L->s + start, '\\', end - start))
        return;
    EscapeCheck e = esc_check_str(L->in->arena, L->s, start, end, L->utf8);
    fs->bad_escape = e.msg;
    e.msg = NULL;   /* reported at the f-string's end, as CPython 3.12+ does */
    escape_result(L, &e, start, end);
}

/* Checks the escapes of f-string text [start, end): CPython decodes the text
 * between doubled braces as separate pieces, so positions restart after each. */
static void check_middle_escapes(Lexer *L, uint32_t start, uint32_t end)
{
    Frame *fs = current_fstring_frame(L);
    if (!fs || fs->raw || !memchr(L->s + start, '\\', end - start))
        return;
    uint32_t piece = start, p = start;
    while (p < end) {
        char c = L->s[p];
        if (c == '\\' && p + 1 < end && L->s[p + 1] != '{' && L->s[p + 1] != '}') {
            p += 2;
        } else if ((c == '{' || c == '}') && p + 1 < end && L->s[p + 1] == c) {
            check_fstring_piece(L, fs, piece, p + 1);
            p += 2;
            piece = p;
        } else {
            p++;
        }
    }
    check_fstring_piece(L, fs, piece, end);
}

static void emit_middle(Lexer *L, uint32_t start, uint32_t end)
{
    if (end > start) {
        emit(L, T_FSTRING_MIDDLE, start, end);
        check_middle_escapes(L, start, end);
    }
}

/* Skips a backslash escape in f-string text; a backslash before a brace leaves
 * the brace to start or end a field, as in CPython. */
static uint32_t skip_fstring_escape(const Lexer *L, uint32_t p, bool raw)
{
    if (p + 1 >= L->n)
        return p + 1;
    char next = L->s[p + 1];
    if (!raw && next == 'N' && p + 2 < L->n && L->s[p + 2] == '{') {
        uint32_t q = p + 3;
        while (q < L->n && L->s[q] != '}' && L->s[q] != '\n' && q - p < 200)
            q++;
        return q < L->n && L->s[q] == '}' ? q + 1 : p + 1;
    }
    if (next == '{' || next == '}')
        return p + 1;
    if (raw && next != '\\' && next != '"' && next != '\'')
        return p + 1;
    uint32_t q = p + 2;
    if (next == '\r' && q < L->n && L->s[q] == '\n')
        q++;
    return q;
}

/* Literal text of an f-string (top frame FR_FSTRING) or of a format spec
 * (FR_SPEC). Stops at a field, the closing quote or, for single-quoted strings,
 * the end of the line. */
static void lex_fstring_text(Lexer *L)
{
    const Frame *fs = current_fstring(L);
    bool spec = L->frames[L->nframes - 1].kind == FR_SPEC;
    char quote = fs->quote;
    bool triple = fs->triple, raw = fs->raw;
    const char *s = L->s;
    uint32_t start = L->pos, p = L->pos;
    while (p < L->n) {
        char c = s[p];
        if (c == quote && (!triple || (p + 2 < L->n && s[p + 1] == quote && s[p + 2] == quote)))
            break;
        if (!triple && (c == '\n' || c == '\r'))
            break;
        if (c == '\\') {
            p = skip_fstring_escape(L, p, raw);
            continue;
        }
        /* doubled braces are literal text, except in a format spec, where
         * `{{` opens a field holding a dict or set and `}}` closes two fields */
        if (!spec && (c == '{' || c == '}') && p + 1 < L->n && s[p + 1] == c) {
            p += 2;
            continue;
        }
        if (c == '{') {
            emit_middle(L, start, p);
            emit(L, T_LBRACE, p, p + 1);
            open_paren(L, '{', p);
            Frame f = {FR_FIELD, 0, false, false, L->depth, p, NULL};
            push_frame(L, f);
            L->pos = p + 1;
            return;
        }
        if (c == '}') {
            emit_middle(L, start, p);
            if (spec) {
                emit(L, T_RBRACE, p, p + 1);
                close_paren(L, '}', p);
                pop_frame(L); /* the spec */
                pop_frame(L); /* its field */
            } else {
                diag(L, p, p + 1, "f-string: single '}' is not allowed");
                emit(L, T_ERROR, p, p + 1);
            }
            L->pos = p + 1;
            return;
        }
        p++;
    }
    emit_middle(L, start, p);
    if (p < L->n && s[p] == quote && !spec) {
        uint32_t e = p + (triple ? 3 : 1);
        emit(L, T_FSTRING_END, p, e);
        if (fs->bad_escape)
            diag(L, p, e, fs->bad_escape);
        pop_frame(L);
        L->pos = e;
        return;
    }
    /* end of line or file inside the literal, or the quote inside a format spec */
    if (spec) {
        diag(L, p, p, "f-string: expecting '}'");
        pop_frame(L);
        pop_frame(L);
        if (L->depth > 0)
            L->depth--;
    } else {
        diag(L, fs->start, p,
             unterminated_msg(L, triple ? "triple-quoted f-string literal" : "f-string literal",
                              p));
        pop_frame(L);
    }
    L->pos = p;
}

/* ---- numbers -------------------------------------------------------------------------- */

static uint32_t scan_digits(const Lexer *L, uint32_t p, int base, bool *bad_underscore)
{
    const char *s = L->s;
    for (;;) {
        while (p < L->n) {
            unsigned char c = (unsigned char)s[p];
            bool ok = base == 16 ? (char_class[c] & CC_HEX) != 0
                      : base == 10 ? (char_class[c] & CC_DIGIT) != 0
                                   : (c >= '0' && c < '0' + base);
            if (!ok)
                break;
            p++;
        }
        if (p < L->n && s[p] == '_') {
            unsigned char n = p + 1 < L->n ? (unsigned char)s[p + 1] : 0;
            bool next_ok = base == 16 ? (char_class[n] & CC_HEX) != 0
                           : base == 10 ? (char_class[n] & CC_DIGIT) != 0
                                        : (n >= '0' && n < '0' + base);
            if (!next_ok) {
                *bad_underscore = true;
                return p + 1;
            }
            p++;
            continue;
        }
        return p;
    }
}

/* CPython accepts a number directly followed by some keywords (`1if x else y`). */
static bool keyword_may_follow_number(const char *s, uint32_t p, uint32_t n)
{
    static const char *const ok[] = {"and", "else", "for", "if", "in", "is", "not", "or"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        size_t len = strlen(ok[i]);
        if (p + len <= n && memcmp(s + p, ok[i], len) == 0)
            return true;
    }
    return false;
}

static void number_error(Lexer *L, uint32_t start, uint32_t p, const char *msg)
{
    /* swallow the rest of the would-be literal so that one error is reported */
    while (p < L->n && is_id_ascii((unsigned char)L->s[p]))
        p++;
    diag(L, start, p, msg);
    emit(L, T_ERROR, start, p);
    L->pos = p;
}

static bool lex_radix_number(Lexer *L, uint32_t start)
{
    char kind = L->s[start + 1] | 0x20;
    int base = kind == 'x' ? 16 : kind == 'o' ? 8 : 2;
    const char *name = base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary";
    bool bad = false;
    uint32_t p = start + 2;
    if (p < L->n && L->s[p] == '_')
        p++;
    uint32_t d = scan_digits(L, p, base, &bad);
    if (d == p && !bad && d < L->n && (char_class[(unsigned char)L->s[d]] & CC_DIGIT)) {
        number_error(L, start, d,
                     arena_printf(L->in->arena, "invalid digit '%c' in %s literal", L->s[d],
                                  name));
        return true;
    }
    if (d == p || bad) {
        number_error(L, start, d, arena_printf(L->in->arena, "invalid %s literal", name));
        return true;
    }
    if (d < L->n && (char_class[(unsigned char)L->s[d]] & CC_DIGIT)) {
        number_error(L, start, d,
                     arena_printf(L->in->arena, "invalid digit '%c' in %s literal", L->s[d],
                                  name));
        return true;
    }
    L->pos = d;
    return false;
}

static uint32_t scan_exponent(Lexer *L, uint32_t p, bool *bad)
{
    if (p < L->n && (L->s[p] | 0x20) == 'e') {
        uint32_t q = p + 1;
        if (q < L->n && (L->s[q] == '+' || L->s[q] == '-'))
            q++;
        if (q < L->n && (char_class[(unsigned char)L->s[q]] & CC_DIGIT))
            return scan_digits(L, q, 10, bad);
        if (q < L->n && is_id_ascii((unsigned char)L->s[q]) && q == p + 1)
            return p;  /* `1else` style keyword after the number */
        *bad = true;
        return q;
    }
    return p;
}

static void lex_number(Lexer *L)
{
    uint32_t start = L->pos;
    const char *s = L->s;
    if (s[start] == '0' && start + 1 < L->n && strchr("xXoObB", s[start + 1]) && s[start + 1]) {
        if (lex_radix_number(L, start))
            return;
    } else {
        bool bad = false, is_float = false;
        uint32_t p = start;
        if (s[p] != '.')
            p = scan_digits(L, p, 10, &bad);
        if (!bad && p < L->n && s[p] == '.') {
            is_float = true;
            p++;
            if (p < L->n && (char_class[(unsigned char)s[p]] & CC_DIGIT))
                p = scan_digits(L, p, 10, &bad);
        }
        uint32_t e = bad ? p : scan_exponent(L, p, &bad);
        is_float |= e != p;
        p = e;
        bool imag = !bad && p < L->n && (s[p] | 0x20) == 'j';
        if (imag)
            p++;
        if (bad) {
            number_error(L, start, p, "invalid decimal literal");
            return;
        }
        if (!is_float && !imag && s[start] == '0') {
            for (uint32_t i = start; i < p; i++)
                if (s[i] != '0' && s[i] != '_') {
                    number_error(L, start, p,
                                 "leading zeros in decimal integer literals are not permitted; "
                                 "use an 0o prefix for octal integers");
                    return;
                }
        }
        L->pos = p;
    }
    uint32_t p = L->pos;
    if (p < L->n && is_id_ascii((unsigned char)s[p]) && !keyword_may_follow_number(s, p, L->n)) {
        number_error(L, start, p, "invalid decimal literal");
        return;
    }
    emit(L, T_NUMBER, start, p);
}

/* ---- operators ------------------------------------------------------------------------- */

static void lex_operator(Lexer *L)
{
    const char *s = L->s + L->pos;
    uint32_t avail = L->n - L->pos;
    char c0 = s[0], c1 = avail > 1 ? s[1] : 0, c2 = avail > 2 ? s[2] : 0;
    TokKind k;
    uint32_t len = 1;
#define TWO(ch, k2) if (c1 == ch) { k = k2; len = 2; break; }
    switch (c0) {
    case '(': k = T_LPAR; break;
    case ')': k = T_RPAR; break;
    case '[': k = T_LSQB; break;
    case ']': k = T_RSQB; break;
    case '{': k = T_LBRACE; break;
    case '}': k = T_RBRACE; break;
    case ',': k = T_COMMA; break;
    case ';': k = T_SEMI; break;
    case '~': k = T_TILDE; break;
    case ':':
        k = T_COLON;
        /* at a replacement field's top level ':' starts the format spec, even
         * before '=' (f"{x:=10}" is x formatted with "=10") */
        if (!(L->nframes && L->frames[L->nframes - 1].kind == FR_FIELD &&
              L->depth == L->frames[L->nframes - 1].paren_base))
            TWO('=', T_COLONEQUAL)
        break;
    case '.':
        k = T_DOT;
        if (c1 == '.' && c2 == '.') { k = T_ELLIPSIS; len = 3; }
        break;
    case '+': k = T_PLUS; TWO('=', T_PLUSEQUAL) break;
    case '-': k = T_MINUS; TWO('=', T_MINEQUAL) TWO('>', T_RARROW) break;
    case '%': k = T_PERCENT; TWO('=', T_PERCENTEQUAL) break;
    case '&': k = T_AMPER; TWO('=', T_AMPEREQUAL) break;
    case '|': k = T_VBAR; TWO('=', T_VBAREQUAL) break;
    case '^': k = T_CIRCUMFLEX; TWO('=', T_CIRCUMFLEXEQUAL) break;
    case '@': k = T_AT; TWO('=', T_ATEQUAL) break;
    case '=': k = T_EQUAL; TWO('=', T_EQEQUAL) break;
    case '!': k = T_EXCLAMATION; TWO('=', T_NOTEQUAL) break;
    case '*':
        k = T_STAR;
        if (c1 == '*') { k = T_DOUBLESTAR; len = 2; if (c2 == '=') { k = T_DOUBLESTAREQUAL; len = 3; } }
        else if (c1 == '=') { k = T_STAREQUAL; len = 2; }
        break;
    case '/':
        k = T_SLASH;
        if (c1 == '/') { k = T_DOUBLESLASH; len = 2; if (c2 == '=') { k = T_DOUBLESLASHEQUAL; len = 3; } }
        else if (c1 == '=') { k = T_SLASHEQUAL; len = 2; }
        break;
    case '<':
        k = T_LESS;
        if (c1 == '<') { k = T_LEFTSHIFT; len = 2; if (c2 == '=') { k = T_LEFTSHIFTEQUAL; len = 3; } }
        else if (c1 == '=') { k = T_LESSEQUAL; len = 2; }
        else if (c1 == '>') { k = T_NOTEQUAL; len = 2; }  /* `<>`: parser reports it */
        break;
    case '>':
        k = T_GREATER;
        if (c1 == '>') { k = T_RIGHTSHIFT; len = 2; if (c2 == '=') { k = T_RIGHTSHIFTEQUAL; len = 3; } }
        else if (c1 == '=') { k = T_GREATEREQUAL; len = 2; }
        break;
    default: k = T_ERROR; break;
    }
#undef TWO
    uint32_t start = L->pos;
    if (k == T_NOTEQUAL && c0 == '<') {
        diag(L, start, start + 2, "invalid syntax: '<>' is not an operator (use '!=')");
        k = T_ERROR;
    }
    L->pos += len;
    const Frame *top = L->nframes ? &L->frames[L->nframes - 1] : NULL;
    switch (k) {
    case T_LPAR: case T_LSQB: case T_LBRACE:
        open_paren(L, c0, start);
        break;
    case T_RPAR: case T_RSQB: case T_RBRACE:
        if (top && top->kind == FR_FIELD && L->depth == top->paren_base && k == T_RBRACE) {
            close_paren(L, '}', start);
            pop_frame(L);
        } else if (top && top->kind == FR_FIELD && L->depth == top->paren_base) {
            /* a stray closer would end the field's brace: report, keep the field */
            diag(L, start, start + 1,
                 arena_printf(L->in->arena, "f-string: unmatched '%c'", c0));
            k = T_ERROR;
        } else if (!close_paren(L, c0, start)) {
            k = T_ERROR;
        }
        break;
    case T_COLON:
        if (top && top->kind == FR_FIELD && L->depth == top->paren_base) {
            emit(L, T_COLON, start, L->pos);
            Frame f = {FR_SPEC, 0, false, false, L->depth, start, NULL};
            push_frame(L, f);
            return;
        }
        break;
    default:
        break;
    }
    emit(L, k, start, L->pos);
}

/* ---- main loop --------------------------------------------------------------------------- */

static void lex_name_or_string(Lexer *L)
{
    uint32_t start = L->pos;
    bool bad;
    uint32_t p = scan_identifier(L, start, &bad);
    if (p == start) {
        invalid_character(L, start);
        return;
    }
    if (p < L->n && (L->s[p] == '"' || L->s[p] == '\'')) {
        int pfx = string_prefix(L->s + start, p - start);
        if (pfx >= 0) {
            lex_string(L, start, p, pfx);
            return;
        }
    }
    TokKind k = keyword_kind(L->s + start, p - start);
    Token *t = emit(L, k, start, p);
    if (k == T_NAME) {
        uint32_t id = intern(L->in->names, L->s + start, p - start);
        if (id >= LEX_MAX_NAMES) {   /* cannot happen below LEX_MAX_SOURCE (lexer.h) */
            diag(L, start, p, "too many distinct names for pfc (at most 16777215)");
            id = 0;
        }
        t->name = id;
    }
    L->pos = p;
    if (bad)
        invalid_character(L, p);
}

static void lex_newline(Lexer *L)
{
    uint32_t len = newline_len(L, L->pos);
    if (L->depth > 0) {
        if (in_fstring_expr(L)) {
            const Frame *fs = current_fstring(L);
            if (fs && !fs->triple)
                feature(L, L->pos, L->pos + len, FEAT_FSTRING_NEWLINE);
        }
        L->pos += len;  /* implicit line joining: trivia */
        return;
    }
    if (L->line_has_tokens) {
        emit(L, T_NEWLINE, L->pos, L->pos + len);
        L->line_has_tokens = false;
    }
    L->pos += len;
    lex_line_start(L);
}

static void lex_backslash(Lexer *L)
{
    uint32_t len = newline_len(L, L->pos + 1);
    if (len) {
        if (in_fstring_expr(L))
            feature(L, L->pos, L->pos + 1, FEAT_FSTRING_BACKSLASH);
        if (L->pos + 1 + len >= L->n)
            diag(L, L->pos, L->pos + 1, "unexpected end of file after line continuation");
        L->pos += 1 + len;
        return;
    }
    uint32_t p = L->pos;
    diag(L, p, p + 1,
         p + 1 >= L->n ? "unexpected end of file after line continuation character"
                       : "unexpected character after line continuation character");
    emit(L, T_ERROR, p, p + 1);
    L->pos = p + 1;
}

static void lex_comment(Lexer *L)
{
    if (in_fstring_expr(L))
        feature(L, L->pos, L->pos + 1, FEAT_FSTRING_COMMENT);
    L->pos = line_end(L, L->pos);
}

static void lex_one(Lexer *L)
{
    unsigned char c = (unsigned char)L->s[L->pos];
    int cc = char_class[c];
    if (cc & CC_SPACE) {
        L->pos++;
    } else if (cc & CC_ID) {
        lex_name_or_string(L);
    } else if ((cc & CC_DIGIT) ||
               (c == '.' && L->pos + 1 < L->n &&
                (char_class[(unsigned char)L->s[L->pos + 1]] & CC_DIGIT))) {
        lex_number(L);
    } else if (cc & CC_QUOTE) {
        lex_string(L, L->pos, L->pos, 0);
    } else if (cc & CC_NL) {
        lex_newline(L);
    } else if (c == '#') {
        lex_comment(L);
    } else if (c == '\\') {
        lex_backslash(L);
    } else if (cc & CC_OP) {
        lex_operator(L);
    } else {
        invalid_character(L, L->pos);
    }
}

static void lex_end_of_file(Lexer *L)
{
    for (int i = L->nframes - 1; i >= 0; i--) {
        if (L->frames[i].kind == FR_FSTRING) {
            diag(L, L->n, L->n, "unterminated f-string literal at end of file");
            break;
        }
    }
    if (L->depth > 0 && L->depth <= LEX_MAX_PAREN) {
        /* name the innermost bracket, as CPython does; errors after the
         * outermost one are the parser's noise */
        uint32_t at = L->paren_at[L->depth - 1];
        L->in->unclosed_bracket = L->paren_at[0];
        diag(L, at, at + 1,
             arena_printf(L->in->arena, "'%c' was never closed", L->parens[L->depth - 1]));
    }
    if (L->line_has_tokens)
        emit(L, T_NEWLINE, L->n, L->n);
    for (; L->nindent > 0; L->nindent--)
        emit(L, T_DEDENT, L->n, L->n);
    emit(L, T_ENDMARKER, L->n, L->n);
}

TokenVec lex_file(LexInput *in)
{
    Lexer L;
    memset(&L, 0, sizeof L);
    L.in = in;
    L.s = in->src;
    L.n = in->len;
    if (L.n > LEX_MAX_SOURCE) {   /* the token widths hold up to here (lexer.h): not read */
        diag(&L, 0, 0, "file too large for pfc (at most 64 MiB)");
        emit(&L, T_ENDMARKER, L.n, L.n);
        return L.toks;
    }
    bool bom = L.n >= 3 && memcmp(L.s, "\xef\xbb\xbf", 3) == 0;
    L.pos = bom ? 3 : 0;
    L.line_at_cursor = 1;
    check_encoding(&L, bom, L.pos);
    check_nul(&L);
    if (L.utf8)
        check_utf8(&L, L.pos);
    /* the arena vector starts near the expected size: about one token per 4 bytes */
    L.toks.cap = in->len / 5 + 16;
    L.toks.v = arena_alloc(in->arena, L.toks.cap * sizeof(Token));
    lex_line_start(&L);
    while (L.pos < L.n) {
        uint32_t before = L.pos;
        uint32_t ntok = L.toks.n;
        int nframes = L.nframes;
        const Frame *top = L.nframes ? &L.frames[L.nframes - 1] : NULL;
        if (top && top->kind != FR_FIELD)
            lex_fstring_text(&L);
        else
            lex_one(&L);
        /* progress guard: every step consumes a byte, emits a token or
         * leaves an f-string mode */
        if (L.pos == before && L.toks.n == ntok && L.nframes == nframes) {
            invalid_character(&L, L.pos);
        }
    }
    lex_end_of_file(&L);
    return L.toks;
}

const char *tok_kind_name(TokKind k)
{
    static const char *const names[] = {
#define TOK(id, text) #id,
#include "tokens.def"
#undef TOK
    };
    return k < T__COUNT ? names[k] : "?";
}

const char *tok_kind_text(TokKind k)
{
    static const char *const names[] = {
#define TOK(id, text) text,
#include "tokens.def"
#undef TOK
    };
    return k < T__COUNT ? names[k] : "?";
}

/* ---- trivia ------------------------------------------------------------------------------ */

uint32_t trivia_piece(const char *src, uint32_t pos, uint32_t end, TriviaKind *kind)
{
    const unsigned char *s = (const unsigned char *)src;
    uint32_t p = pos;
    if (pos == 0 && end >= 3 && memcmp(src, "\xef\xbb\xbf", 3) == 0) {
        *kind = TRIVIA_BOM;
        return 3;
    }
    if (char_class[s[p]] & CC_SPACE) {
        while (p < end && (char_class[s[p]] & CC_SPACE))
            p++;
        *kind = TRIVIA_WHITESPACE;
    } else if (s[p] == '#') {
        while (p < end && s[p] != '\n' && s[p] != '\r')
            p++;
        *kind = TRIVIA_COMMENT;
    } else if (s[p] == '\n' || s[p] == '\r') {
        p += (s[p] == '\r' && p + 1 < end && s[p + 1] == '\n') ? 2 : 1;
        *kind = TRIVIA_NEWLINE;
    } else if (s[p] == '\\' && p + 1 < end && (s[p + 1] == '\n' || s[p + 1] == '\r')) {
        p += (s[p + 1] == '\r' && p + 2 < end && s[p + 2] == '\n') ? 3 : 2;
        *kind = TRIVIA_CONTINUATION;
    } else {
        while (p < end && !(char_class[s[p]] & (CC_SPACE | CC_NL)) && s[p] != '#')
            p++;
        if (p == pos)
            p++;
        *kind = TRIVIA_OTHER;
    }
    return p - pos;
}

const char *trivia_kind_name(TriviaKind k)
{
    static const char *const names[] = {"ws", "comment", "newline", "continuation", "bom",
                                        "other"};
    return names[k];
}
