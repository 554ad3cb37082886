/* String escape validation. CPython first rewrites every non-ASCII character
 * of a str literal as a 10-character \UXXXXXXXX escape (and a backslash before
 * one as \u005c), then decodes; the positions in its messages count that
 * rewritten text, and so do the ones here. Newlines count as one character
 * (the tokenizer has already turned "\r\n" into "\n"). */
#include "escapes.h"
#include "unicode_names.h"
#include <string.h>

typedef struct Scan {
    const char *s;
    uint32_t p, end;      /* byte cursor in the source, end of the body */
    uint32_t pos;         /* position in CPython's rewritten text */
    bool utf8;
} Scan;

/* Length in bytes and in rewritten positions of the character at p. */
static uint32_t char_step(const Scan *S, uint32_t p, uint32_t *width)
{
    unsigned char c = (unsigned char)S->s[p];
    *width = 1;
    if (c == '\r' && p + 1 < S->end && S->s[p + 1] == '\n')
        return 2;
    if (c < 0x80)
        return 1;
    *width = 10;
    if (!S->utf8 || c < 0xc0)
        return 1;
    uint32_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
    uint32_t i = 1;
    while (i < n && p + i < S->end && ((unsigned char)S->s[p + i] & 0xc0) == 0x80)
        i++;
    return i;
}

static void advance(Scan *S)
{
    uint32_t w;
    S->p += char_step(S, S->p, &w);
    S->pos += w;
}

static bool is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static const char *decode_error(Arena *a, uint32_t from, uint32_t to, const char *why)
{
    return arena_printf(a,
                        "(unicode error) 'unicodeescape' codec can't decode bytes in "
                        "position %u-%u: %s",
                        from, to - 1, why);
}

/* \xXX, \uXXXX, \UXXXXXXXX after the letter (S at the first digit). */
static const char *hex_escape(Arena *a, Scan *S, uint32_t at, char kind)
{
    int count = kind == 'x' ? 2 : kind == 'u' ? 4 : 8;
    const char *why = kind == 'x'   ? "truncated \\xXX escape"
                      : kind == 'u' ? "truncated \\uXXXX escape"
                                    : "truncated \\UXXXXXXXX escape";
    uint32_t v = 0;
    for (int i = 0; i < count; i++) {
        if (S->p >= S->end || !is_hex(S->s[S->p]))
            return decode_error(a, at, S->pos, why);
        char c = S->s[S->p];
        v = v * 16 + (uint32_t)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
        advance(S);
    }
    if (v > 0x10ffff)
        return decode_error(a, at, S->pos, "illegal Unicode character");
    return NULL;
}

/* \N{NAME} after the 'N' (S at the '{' if there is one). */
static const char *name_escape(Arena *a, Scan *S, uint32_t at, uint32_t at_byte,
                               EscapeCheck *out)
{
    const char *malformed = "malformed \\N character escape";
    if (S->p >= S->end)
        return decode_error(a, at, S->pos, malformed);
    if (S->s[S->p] != '{')
        return decode_error(a, at, S->pos, malformed);
    advance(S);
    uint32_t name = S->p;
    bool ascii = true;
    while (S->p < S->end && S->s[S->p] != '}') {
        ascii &= (unsigned char)S->s[S->p] < 0x80;
        advance(S);
    }
    if (S->p >= S->end)
        return decode_error(a, at, S->pos, malformed);
    if (S->p == name)
        return decode_error(a, at, S->pos, malformed);
    int minor = ascii ? uni_name_min_minor(S->s + name, S->p - name) : -1;
    advance(S);
    if (minor < 0)
        return decode_error(a, at, S->pos, "unknown Unicode character name");
    if (minor > out->name_minor) {
        out->name_minor = minor;
        out->name_start = at_byte;
        out->name_end = S->p;
    }
    return NULL;
}

EscapeCheck esc_check_str(Arena *a, const char *src, uint32_t start, uint32_t end, bool utf8)
{
    EscapeCheck out = {NULL, 9, 0, 0};
    Scan S = {src, start, end, 0, utf8};
    while (S.p < S.end && !out.msg) {
        if (src[S.p] != '\\') {
            advance(&S);
            continue;
        }
        uint32_t at = S.pos, at_byte = S.p;
        S.p++;
        S.pos++;
        if (S.p >= S.end)
            break;   /* a backslash before an f-string field: not an escape */
        char c = src[S.p];
        if ((unsigned char)c >= 0x80)
            S.pos += 5;   /* CPython writes it as \u005c */
        advance(&S);
        if (c == 'x' || c == 'u' || c == 'U')
            out.msg = hex_escape(a, &S, at, c);
        else if (c == 'N')
            out.msg = name_escape(a, &S, at, at_byte, &out);
    }
    return out;
}

EscapeCheck esc_check_bytes(Arena *a, const char *src, uint32_t start, uint32_t end)
{
    EscapeCheck out = {NULL, 9, 0, 0};
    uint32_t pos = 0;
    for (uint32_t p = start; p < end; p++, pos++) {
        if (src[p] == '\r' && p + 1 < end && src[p + 1] == '\n')
            p++;
        if (src[p] != '\\' || p + 1 >= end)
            continue;
        if (src[p + 1] == 'x' && !(p + 3 < end && is_hex(src[p + 2]) && is_hex(src[p + 3]))) {
            out.msg = arena_printf(a, "(value error) invalid \\x escape at position %u", pos);
            return out;
        }
        /* skip the escaped character (a newline may be "\r\n") */
        p++;
        pos++;
        if (src[p] == '\r' && p + 1 < end && src[p + 1] == '\n')
            p++;
    }
    return out;
}
