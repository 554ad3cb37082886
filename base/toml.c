/* TOML 1.0 reader: a recursive-descent parser working directly on the bytes.
 * There is no separate token stream because TOML's lexing depends on context:
 * "1979-05-27" or "true" is a bare key left of '=' and a value right of it. */
#include "toml.h"
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the tree ------------------------------------------------------------------- */

/* How a table came to be decides whether it may be defined or extended later
 * (TOML 1.0, "Table"). A table with no flag was created implicitly as a parent in
 * a header ([a.b] creates a) and may still get its own header once. */
enum {
    TBL_HEADER = 1,     /* defined by [header], or an element of [[header]] */
    TBL_DOTTED = 2,     /* created or extended by dotted keys: no header may define it */
    TBL_INLINE = 4,     /* { ... }: closed for good once parsed */
    ARR_OF_TABLES = 8,  /* created by [[header]]; static arrays cannot be appended to */
};

typedef struct TomlEntry {
    const char *key;    /* arena copy, NUL-terminated */
    uint32_t len, hash;
    TomlValue *value;
} TomlEntry;

struct TomlValue {
    TomlKind kind;
    uint8_t flags;
    uint16_t depth;     /* of containers: 0 for the root */
    union {
        struct { const char *s; size_t len; } str;   /* STRING and DATETIME */
        long long i;
        double f;
        bool b;
        ARENA_VEC(TomlValue *) arr;
        struct {
            ARENA_VEC(TomlEntry) e;     /* file order */
            uint32_t *index;            /* open addressing over e, entry + 1; NULL while small */
            uint32_t mask;
        } tab;
    } u;
};

/* Small tables are searched linearly; larger ones get a hash index so that a file
 * with many keys in one table stays linear instead of quadratic. */
enum { TABLE_LINEAR_MAX = 8 };

static uint32_t hash_key(const char *s, size_t len)
{
    uint32_t h = 2166136261u;   /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static bool entry_is(const TomlEntry *e, const char *key, size_t len, uint32_t hash)
{
    return e->hash == hash && e->len == len && memcmp(e->key, key, len) == 0;
}

static const TomlEntry *table_find(const TomlValue *t, const char *key, size_t len)
{
    uint32_t h = hash_key(key, len);
    const TomlEntry *e = t->u.tab.e.v;
    if (!t->u.tab.index) {
        for (uint32_t i = 0; i < t->u.tab.e.n; i++)
            if (entry_is(&e[i], key, len, h))
                return &e[i];
        return NULL;
    }
    uint32_t mask = t->u.tab.mask;
    for (uint32_t j = h & mask; t->u.tab.index[j]; j = (j + 1) & mask)
        if (entry_is(&e[t->u.tab.index[j] - 1], key, len, h))
            return &e[t->u.tab.index[j] - 1];
    return NULL;
}

static void index_put(uint32_t *index, uint32_t mask, uint32_t hash, uint32_t entry)
{
    uint32_t j = hash & mask;
    while (index[j])
        j = (j + 1) & mask;
    index[j] = entry + 1;
}

/* Rebuilds at a load of 1/4 and is called again at 1/2: amortised O(1) per key. */
static void table_reindex(Arena *a, TomlValue *t)
{
    uint32_t n = t->u.tab.e.n, cap = 32;
    while (cap < n * 4)
        cap *= 2;
    t->u.tab.index = arena_zalloc(a, cap * sizeof *t->u.tab.index);
    t->u.tab.mask = cap - 1;
    for (uint32_t i = 0; i < n; i++)
        index_put(t->u.tab.index, t->u.tab.mask, t->u.tab.e.v[i].hash, i);
}

/* VEC_PUSH, but a vector's first block holds 2 items instead of 16: most tables
 * and arrays in a config file are tiny, and a file of thousands of tiny tables
 * should not cost 16 slots each (that multiplied memory use about fivefold). */
#define SMALL_PUSH(arena, vec, x) do { \
        if ((vec).cap == 0) { \
            (vec).v = arena_alloc((arena), 2 * sizeof *(vec).v); \
            (vec).cap = 2; \
        } \
        VEC_PUSH(arena, vec, x); \
    } while (0)

/* The caller has checked that the key is absent. */
static void table_add(Arena *a, TomlValue *t, const char *key, size_t len, TomlValue *v)
{
    TomlEntry e = { arena_strndup(a, key, len), (uint32_t)len, hash_key(key, len), v };
    SMALL_PUSH(a, t->u.tab.e, e);
    uint32_t n = t->u.tab.e.n;
    if (n <= TABLE_LINEAR_MAX)
        return;
    if (!t->u.tab.index || n * 2 > t->u.tab.mask + 1)
        table_reindex(a, t);
    else
        index_put(t->u.tab.index, t->u.tab.mask, e.hash, n - 1);
}

/* ---- parser state and small helpers ---------------------------------------------- */

typedef struct KeyPart {
    const char *s;      /* decoded (quoted keys) or pointing into the source (bare) */
    size_t len;
    const char *at;     /* in the source, for errors */
} KeyPart;

typedef struct Parser {
    Arena *arena;
    const char *src, *end, *p;
    TomlValue *root, *cur;          /* cur receives the key/value lines */
    const char *err_at, *err_msg;   /* the first error wins */
    /* The key just parsed. One buffer serves all nesting levels because a key is
     * fully resolved before its value (which may hold more keys) is parsed. */
    KeyPart key[TOML_MAX_DEPTH];
    uint32_t nkey;
    const char *key_start, *key_end;  /* its source text, for messages */
} Parser;

#define TOML_STR_(x) #x
#define TOML_STR(x) TOML_STR_(x)

static bool fail(Parser *ps, const char *at, const char *msg)
{
    if (!ps->err_msg) {
        ps->err_at = at;
        ps->err_msg = msg;
    }
    return false;
}

static TomlValue *fail_null(Parser *ps, const char *at, const char *msg)
{
    fail(ps, at, msg);
    return NULL;
}

/* "<pre>'<key as written>'<post>", clipped so a huge key cannot flood a message. */
static const char *key_msg(Parser *ps, const char *pre, const char *post)
{
    size_t n = (size_t)(ps->key_end - ps->key_start);
    if (n > 80) {
        n = 80;
        while (n && ((unsigned char)ps->key_start[n] & 0xC0) == 0x80)
            n--;    /* do not cut a UTF-8 sequence */
    }
    return arena_printf(ps->arena, "%s'%.*s'%s", pre, (int)n, ps->key_start, post);
}

/* The byte k places ahead, or -1 past the end: the input is not NUL-terminated
 * and may contain NUL bytes. */
static int peek(const Parser *ps, size_t k)
{
    return (size_t)(ps->end - ps->p) > k ? (unsigned char)ps->p[k] : -1;
}

static bool is_digit(int c) { return c >= '0' && c <= '9'; }

static bool is_bare_key_char(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' || c == '-';
}

/* TOML forbids these raw in strings and comments; tab is the one exception. */
static bool is_control(int c) { return (c >= 0 && c < 0x20 && c != '\t') || c == 0x7f; }

static void skip_ws(Parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t'))
        ps->p++;
}

/* 1 for LF, 2 for CRLF, 0 when no newline starts at p. */
static size_t newline_len(const Parser *ps)
{
    int c = peek(ps, 0);
    return c == '\n' ? 1 : c == '\r' && peek(ps, 1) == '\n' ? 2 : 0;
}

static bool skip_comment(Parser *ps)
{
    if (peek(ps, 0) != '#')
        return true;
    for (ps->p++; ps->p < ps->end; ps->p++) {
        int c = (unsigned char)*ps->p;
        if (c == '\n' || newline_len(ps) == 2)
            return true;
        if (is_control(c))
            return fail(ps, ps->p, "control character in comment");
    }
    return true;
}

/* After a key/value pair or a header only a comment may follow on the line. */
static bool finish_line(Parser *ps, const char *junk_msg)
{
    skip_ws(ps);
    if (!skip_comment(ps))
        return false;
    if (ps->p == ps->end)
        return true;
    size_t nl = newline_len(ps);
    if (!nl)
        return fail(ps, ps->p, *ps->p == '\r' ? "carriage return without a line feed" : junk_msg);
    ps->p += nl;
    return true;
}

/* Between array items: whitespace, comments and newlines in any number. */
static bool skip_ws_comments_newlines(Parser *ps)
{
    for (;;) {
        skip_ws(ps);
        if (!skip_comment(ps))
            return false;
        size_t nl = newline_len(ps);
        if (!nl)
            return true;
        ps->p += nl;
    }
}

static TomlValue *new_value(Parser *ps, TomlKind kind, uint32_t depth, const char *at)
{
    if ((kind == TOML_TABLE || kind == TOML_ARRAY) && depth > TOML_MAX_DEPTH)
        return fail_null(ps, at, "tables and arrays nested deeper than " TOML_STR(TOML_MAX_DEPTH) " levels");
    TomlValue *v = arena_zalloc(ps->arena, sizeof *v);
    v->kind = kind;
    v->depth = (uint16_t)depth;
    return v;
}

/* ---- UTF-8 ---------------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if invalid:
 * overlong forms, surrogates and code points above U+10FFFF are rejected. */
static size_t utf8_seq_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    unsigned lo = 0x80, hi = 0xBF;      /* allowed range of the second byte */
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0)
            lo = 0xA0;      /* overlong */
        else if (c == 0xED)
            hi = 0x9F;      /* surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0)
            lo = 0x90;      /* overlong */
        else if (c == 0xF4)
            hi = 0x8F;      /* above U+10FFFF */
    } else
        return 0;
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    return len;
}

/* Offset of the first invalid byte, or len. Checked once up front so that every
 * later scan can copy non-ASCII bytes without looking at them. */
static size_t utf8_invalid_at(const char *src, size_t len)
{
    const unsigned char *s = (const unsigned char *)src;
    size_t i = 0;
    while (i < len) {
        size_t n = utf8_seq_len(s + i, len - i);
        if (!n)
            return i;
        i += n;
    }
    return len;
}

static char *put_utf8(char *o, uint32_t cp)
{
    if (cp < 0x80) {
        *o++ = (char)cp;
    } else if (cp < 0x800) {
        *o++ = (char)(0xC0 | cp >> 6);
        *o++ = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        *o++ = (char)(0xE0 | cp >> 12);
        *o++ = (char)(0x80 | (cp >> 6 & 0x3F));
        *o++ = (char)(0x80 | (cp & 0x3F));
    } else {
        *o++ = (char)(0xF0 | cp >> 18);
        *o++ = (char)(0x80 | (cp >> 12 & 0x3F));
        *o++ = (char)(0x80 | (cp >> 6 & 0x3F));
        *o++ = (char)(0x80 | (cp & 0x3F));
    }
    return o;
}

/* ---- strings -------------------------------------------------------------------- */

typedef struct Str { const char *s; size_t len; } Str;

static int hex_value(int c)
{
    if (is_digit(c))
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Finds the closing quote of a one-line string whose body starts at ps->p; returns
 * the end of the body and moves past the quote, or NULL if the line ends first. */
static const char *scan_single_line(Parser *ps, char quote)
{
    const char *s = ps->p;
    while (s < ps->end && *s != '\n') {
        if (*s == quote) {
            ps->p = s + 1;
            return s;
        }
        /* \" does not close a basic string; a backslash before the newline is left
         * for the newline test so the string stays on one line */
        if (quote == '"' && *s == '\\' && s + 1 < ps->end && s[1] != '\n')
            s++;
        s++;
    }
    return NULL;
}

/* The same for """ and ''' strings. Up to two quotes may end the body right
 * before the closing delimiter, so the delimiter is the last three of a run. */
static const char *scan_multi_line(Parser *ps, char quote)
{
    const char *s = ps->p;
    while (ps->end - s >= 3) {
        if (quote == '"' && *s == '\\') {
            s += 2;
            continue;
        }
        if (s[0] == quote && s[1] == quote && s[2] == quote) {
            for (int extra = 0; extra < 2 && ps->end - s > 3 && s[3] == quote; extra++)
                s++;
            ps->p = s + 3;
            return s;
        }
        s++;
    }
    return NULL;
}

/* A backslash at the end of a line in a """ string: returns where the text goes
 * on (after all whitespace and newlines), or NULL if s is no such backslash. */
static const char *line_ending_backslash(const char *s, const char *e)
{
    const char *t = s + 1;
    while (t < e && (*t == ' ' || *t == '\t'))
        t++;
    if (!(t < e && (*t == '\n' || (*t == '\r' && t + 1 < e && t[1] == '\n'))))
        return NULL;
    for (;;) {
        if (t < e && (*t == ' ' || *t == '\t' || *t == '\n'))
            t++;
        else if (t + 1 < e && t[0] == '\r' && t[1] == '\n')
            t += 2;
        else
            return t;
    }
}

/* Decodes the escape at s (a backslash) into *o; returns the text after it or NULL. */
static const char *decode_escape(Parser *ps, const char *s, const char *e, bool multi, char **o)
{
    if (multi) {
        const char *t = line_ending_backslash(s, e);
        if (t)
            return t;
    }
    int c = s + 1 < e ? (unsigned char)s[1] : -1;
    static const char simple_from[] = "btnfr\"\\", simple_to[] = "\b\t\n\f\r\"\\";
    const char *hit = c > 0 ? strchr(simple_from, c) : NULL;
    if (hit) {
        *(*o)++ = simple_to[hit - simple_from];
        return s + 2;
    }
    if (c != 'u' && c != 'U') {
        fail(ps, s, "invalid escape sequence");
        return NULL;
    }
    int digits = c == 'u' ? 4 : 8;
    uint32_t cp = 0;
    for (int i = 0; i < digits; i++) {
        int h = s + 2 + i < e ? hex_value((unsigned char)s[2 + i]) : -1;
        if (h < 0) {
            fail(ps, s, c == 'u' ? "\\u needs 4 hex digits" : "\\U needs 8 hex digits");
            return NULL;
        }
        cp = cp << 4 | (uint32_t)h;
    }
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        fail(ps, s, "escape is not a Unicode scalar value");
        return NULL;
    }
    *o = put_utf8(*o, cp);
    return s + 2 + digits;
}

/* Decodes a string body [s, e) into the arena. The result is never longer than
 * the source (escapes shrink, CRLF becomes LF), so one allocation suffices. */
static bool decode_string(Parser *ps, const char *s, const char *e, bool basic, bool multi, Str *out)
{
    char *buf = arena_alloc(ps->arena, (size_t)(e - s) + 1), *o = buf;
    while (s < e) {
        int c = (unsigned char)*s;
        if (c == '\\' && basic) {
            s = decode_escape(ps, s, e, multi, &o);
            if (!s)
                return false;
        } else if (multi && c == '\n') {
            *o++ = '\n';
            s++;
        } else if (multi && c == '\r' && s + 1 < e && s[1] == '\n') {
            *o++ = '\n';    /* normalised, so values do not depend on the platform */
            s += 2;
        } else if (is_control(c)) {
            return fail(ps, s, c == '\r' ? "carriage return without a line feed in string"
                                         : "control character in string");
        } else {
            *o++ = (char)c;
            s++;
        }
    }
    *o = 0;
    out->s = buf;
    out->len = (size_t)(o - buf);
    return true;
}

/* Any of the four string forms at ps->p; keys may not be multi-line. */
static bool parse_string(Parser *ps, bool allow_multi, Str *out)
{
    const char *start = ps->p;
    char quote = *ps->p;
    bool basic = quote == '"';
    if (peek(ps, 1) == quote && peek(ps, 2) == quote) {
        if (!allow_multi)
            return fail(ps, start, "a key cannot be a multi-line string");
        ps->p += 3;
        ps->p += newline_len(ps);   /* a newline right after the delimiter is trimmed */
        const char *body = ps->p, *e = scan_multi_line(ps, quote);
        if (!e)
            return fail(ps, start, "unterminated multi-line string");
        return decode_string(ps, body, e, basic, true, out);
    }
    ps->p++;
    const char *body = ps->p, *e = scan_single_line(ps, quote);
    if (!e)
        return fail(ps, start, "unterminated string");
    return decode_string(ps, body, e, basic, false, out);
}

/* ---- keys ----------------------------------------------------------------------- */

static bool parse_key_part(Parser *ps, KeyPart *kp)
{
    kp->at = ps->p;
    int c = peek(ps, 0);
    if (c == '"' || c == '\'') {
        Str s;
        if (!parse_string(ps, false, &s))
            return false;
        kp->s = s.s;
        kp->len = s.len;
        return true;
    }
    while (ps->p < ps->end && is_bare_key_char((unsigned char)*ps->p))
        ps->p++;
    if (ps->p == kp->at)
        return fail(ps, ps->p, "expected a key");
    kp->s = kp->at;
    kp->len = (size_t)(ps->p - kp->at);
    return true;
}

/* A possibly dotted key into ps->key; skips the whitespace after it. */
static bool parse_key(Parser *ps)
{
    ps->nkey = 0;
    ps->key_start = ps->p;
    for (;;) {
        if (ps->nkey == TOML_MAX_DEPTH)
            return fail(ps, ps->p, "key has more than " TOML_STR(TOML_MAX_DEPTH) " dotted parts");
        if (!parse_key_part(ps, &ps->key[ps->nkey++]))
            return false;
        ps->key_end = ps->p;
        skip_ws(ps);
        if (peek(ps, 0) != '.')
            return true;
        ps->p++;
        skip_ws(ps);
    }
}

/* ---- values --------------------------------------------------------------------- */

static TomlValue *parse_value(Parser *ps, uint32_t depth);
static bool parse_keyval(Parser *ps, TomlValue *table);

static TomlValue *parse_string_value(Parser *ps)
{
    Str s;
    if (!parse_string(ps, true, &s))
        return NULL;
    TomlValue *v = new_value(ps, TOML_STRING, 0, NULL);
    v->u.str.s = s.s;
    v->u.str.len = s.len;
    return v;
}

static bool match_word(Parser *ps, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, w, n) != 0)
        return false;
    ps->p += n;
    return true;
}

static TomlValue *parse_bool(Parser *ps)
{
    bool b = *ps->p == 't';
    if (!match_word(ps, b ? "true" : "false"))
        return fail_null(ps, ps->p, "expected a value");
    TomlValue *v = new_value(ps, TOML_BOOL, 0, NULL);
    v->u.b = b;
    return v;
}

/* Exactly n decimal digits at offset off. */
static bool fixed_digits(const Parser *ps, size_t off, int n, int *val)
{
    *val = 0;
    for (int i = 0; i < n; i++) {
        int c = peek(ps, off + (size_t)i);
        if (!is_digit(c))
            return false;
        *val = *val * 10 + (c - '0');
    }
    return true;
}

static int days_in_month(int y, int m)
{
    static const int days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : days[m - 1];
}

/* HH:MM:SS[.fraction] at offset *off (seconds are required in TOML 1.0). */
static bool scan_time(Parser *ps, size_t *off)
{
    int h, m, s;
    size_t o = *off;
    if (!fixed_digits(ps, o, 2, &h) || peek(ps, o + 2) != ':' || !fixed_digits(ps, o + 3, 2, &m)
        || peek(ps, o + 5) != ':' || !fixed_digits(ps, o + 6, 2, &s))
        return fail(ps, ps->p + o, "invalid time (expected HH:MM:SS)");
    if (h > 23 || m > 59 || s > 60)     /* 60: RFC 3339 leap second */
        return fail(ps, ps->p + o, "time out of range");
    o += 8;
    if (peek(ps, o) == '.') {
        if (!is_digit(peek(ps, o + 1)))
            return fail(ps, ps->p + o, "expected digits after '.' in time");
        for (o++; is_digit(peek(ps, o)); o++)
            ;
    }
    *off = o;
    return true;
}

/* Z or +HH:MM / -HH:MM at offset *off, when present. */
static bool scan_offset(Parser *ps, size_t *off)
{
    int c = peek(ps, *off), h, m;
    if (c == 'Z' || c == 'z') {
        (*off)++;
    } else if (c == '+' || c == '-') {
        size_t o = *off + 1;
        if (!fixed_digits(ps, o, 2, &h) || peek(ps, o + 2) != ':' || !fixed_digits(ps, o + 3, 2, &m))
            return fail(ps, ps->p + *off, "invalid time offset (expected +HH:MM)");
        if (h > 23 || m > 59)
            return fail(ps, ps->p + *off, "time offset out of range");
        *off = o + 5;
    }
    return true;
}

/* Dates, times and date-times are validated and then kept as written: pfc needs
 * none of them, and the text is the most faithful form to hand on. */
static TomlValue *parse_datetime(Parser *ps)
{
    size_t off = 0;
    if (peek(ps, 4) == '-') {
        int y, mo, d;
        if (!fixed_digits(ps, 0, 4, &y) || !fixed_digits(ps, 5, 2, &mo) || peek(ps, 7) != '-'
            || !fixed_digits(ps, 8, 2, &d))
            return fail_null(ps, ps->p, "invalid date (expected YYYY-MM-DD)");
        if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo))
            return fail_null(ps, ps->p, "date out of range");
        off = 10;
        int c = peek(ps, off);
        /* a space separates date and time only when a time follows; otherwise it
         * is ordinary whitespace after a local date */
        if (c == 'T' || c == 't'
            || (c == ' ' && is_digit(peek(ps, off + 1)) && is_digit(peek(ps, off + 2)) && peek(ps, off + 3) == ':')) {
            off++;
            if (!scan_time(ps, &off) || !scan_offset(ps, &off))
                return NULL;
        }
    } else if (!scan_time(ps, &off)) {  /* a local time has no offset */
        return NULL;
    }
    TomlValue *v = new_value(ps, TOML_DATETIME, 0, NULL);
    v->u.str.s = arena_strndup(ps->arena, ps->p, off);
    v->u.str.len = off;
    ps->p += off;
    return v;
}

/* A run of digits in the given base with single '_' between digits; NULL if well
 * formed, else the message. */
static const char *check_digits(const char *s, const char *e, int base)
{
    if (s == e)
        return "invalid number";
    bool prev_digit = false;
    for (; s < e; s++) {
        if (*s == '_') {
            if (!prev_digit || s + 1 == e)
                return "'_' in a number must be between two digits";
            prev_digit = false;
        } else if (hex_value((unsigned char)*s) >= 0 && hex_value((unsigned char)*s) < base) {
            prev_digit = true;
        } else {
            return "invalid number";
        }
    }
    return NULL;
}

/* The value of a checked digit run; false on overflow past limit. */
static bool digits_value(const char *s, const char *e, int base, unsigned long long limit,
                         unsigned long long *out)
{
    unsigned long long v = 0;
    for (; s < e; s++) {
        if (*s == '_')
            continue;
        unsigned d = (unsigned)hex_value((unsigned char)*s);
        if (v > (limit - d) / (unsigned)base)
            return false;
        v = v * (unsigned)base + d;
    }
    *out = v;
    return true;
}

static TomlValue *integer_value(Parser *ps, const char *at, const char *s, const char *e, int base,
                                bool negative)
{
    unsigned long long u, limit = negative ? (unsigned long long)LLONG_MAX + 1 : LLONG_MAX;
    if (!digits_value(s, e, base, limit, &u))
        return fail_null(ps, at, "integer does not fit in 64 bits");
    TomlValue *v = new_value(ps, TOML_INTEGER, 0, NULL);
    /* -(u - 1) - 1 avoids overflowing on LLONG_MIN */
    v->u.i = negative ? (u ? -(long long)(u - 1) - 1 : 0) : (long long)u;
    return v;
}

/* strtod on a copy without underscores. The C locale is assumed: pfc never calls
 * setlocale, so '.' is the decimal point strtod expects. */
static TomlValue *float_value(Parser *ps, const char *s, const char *e)
{
    char *buf = arena_alloc(ps->arena, (size_t)(e - s) + 1), *o = buf;
    for (; s < e; s++)
        if (*s != '_')
            *o++ = *s;
    *o = 0;
    TomlValue *v = new_value(ps, TOML_FLOAT, 0, NULL);
    v->u.f = strtod(buf, NULL);
    return v;
}

static const char *find_any(const char *s, const char *e, const char *set)
{
    while (s < e && !strchr(set, *s))
        s++;
    return s;
}

/* Decimal integer or float: int part, optional .fraction, optional exponent. */
static TomlValue *parse_decimal(Parser *ps, const char *tok, const char *body, const char *e)
{
    const char *int_end = find_any(body, e, ".eE");
    const char *msg = check_digits(body, int_end, 10);
    if (msg)
        return fail_null(ps, tok, msg);
    if (*body == '0' && int_end - body > 1)
        return fail_null(ps, tok, "leading zeros are not allowed in numbers");
    if (int_end == e)
        return integer_value(ps, tok, body, e, 10, *tok == '-');
    const char *s = int_end;
    if (*s == '.') {
        const char *frac_end = find_any(s + 1, e, "eE");
        if ((msg = check_digits(s + 1, frac_end, 10)))
            return fail_null(ps, tok, msg);
        s = frac_end;
    }
    if (s < e) {    /* at 'e' or 'E' */
        s++;
        if (s < e && (*s == '+' || *s == '-'))
            s++;
        if ((msg = check_digits(s, e, 10)))
            return fail_null(ps, tok, msg);
    }
    return float_value(ps, tok, e);
}

static bool is_number_char(int c) { return is_bare_key_char(c) || c == '+' || c == '.'; }

/* Takes the whole run of number-like characters first so that "1.2.3" or "0x1g"
 * is one bad number rather than a number followed by junk. */
static TomlValue *parse_number(Parser *ps)
{
    const char *tok = ps->p;
    while (ps->p < ps->end && is_number_char((unsigned char)*ps->p))
        ps->p++;
    const char *e = ps->p, *body = tok;
    bool sign = *tok == '+' || *tok == '-';
    body += sign;
    size_t n = (size_t)(e - body);
    if (n == 3 && (memcmp(body, "inf", 3) == 0 || memcmp(body, "nan", 3) == 0)) {
        TomlValue *v = new_value(ps, TOML_FLOAT, 0, NULL);
        v->u.f = body[0] == 'i' ? (double)INFINITY : (double)NAN;
        if (*tok == '-')
            v->u.f = -v->u.f;
        return v;
    }
    if (n >= 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'o' || body[1] == 'b')) {
        int base = body[1] == 'x' ? 16 : body[1] == 'o' ? 8 : 2;
        if (sign)
            return fail_null(ps, tok, "hex, octal and binary integers cannot have a sign");
        const char *msg = check_digits(body + 2, e, base);
        if (msg)
            return fail_null(ps, tok, msg);
        return integer_value(ps, tok, body + 2, e, base, false);
    }
    return parse_decimal(ps, tok, body, e);
}

/* Past blanks, comments and newlines inside an array: 1 at its ']', 0 at
 * anything else, -1 after an error (the array never closes). */
static int array_closes(Parser *ps, const char *start)
{
    if (!skip_ws_comments_newlines(ps))
        return -1;
    if (ps->p == ps->end) {
        fail_null(ps, start, "unterminated array");
        return -1;
    }
    return *ps->p == ']';
}

static TomlValue *parse_array(Parser *ps, uint32_t depth)
{
    const char *start = ps->p;
    TomlValue *arr = new_value(ps, TOML_ARRAY, depth, start);
    if (!arr)
        return NULL;
    ps->p++;
    /* a trailing comma is allowed: the loop then finds ']' */
    int closes;
    while ((closes = array_closes(ps, start)) == 0) {
        TomlValue *v = parse_value(ps, depth + 1);
        if (!v)
            return NULL;
        SMALL_PUSH(ps->arena, arr->u.arr, v);
        if ((closes = array_closes(ps, start)) != 0)
            break;
        if (*ps->p != ',')
            return fail_null(ps, ps->p, "expected ',' or ']' in array");
        ps->p++;
    }
    if (closes < 0)
        return NULL;
    ps->p++;   /* the ']' */
    return arr;
}

static TomlValue *parse_inline_table(Parser *ps, uint32_t depth)
{
    const char *start = ps->p;
    TomlValue *t = new_value(ps, TOML_TABLE, depth, start);
    if (!t)
        return NULL;
    ps->p++;
    skip_ws(ps);
    if (peek(ps, 0) != '}') {
        for (;;) {
            if (newline_len(ps) || peek(ps, 0) == '\r')
                return fail_null(ps, ps->p, "inline tables must be on one line");
            if (!parse_keyval(ps, t))
                return NULL;
            skip_ws(ps);
            int c = peek(ps, 0);
            if (c == '}')
                break;
            if (c != ',')
                return fail_null(ps, c < 0 ? start : ps->p,
                                 c < 0 ? "unterminated inline table"
                                 : c == '\n' || c == '\r' ? "inline tables must be on one line"
                                 : "expected ',' or '}' in inline table");
            ps->p++;
            skip_ws(ps);
            if (peek(ps, 0) == '}')
                return fail_null(ps, ps->p, "trailing comma in inline table");
        }
    }
    ps->p++;
    t->flags = TBL_INLINE;
    return t;
}

/* "DDDD-" starts a date, "DD:" a time; anything else with digits is a number. */
static bool starts_datetime(const Parser *ps)
{
    if (!is_digit(peek(ps, 0)) || !is_digit(peek(ps, 1)))
        return false;
    return peek(ps, 2) == ':' || (is_digit(peek(ps, 2)) && is_digit(peek(ps, 3)) && peek(ps, 4) == '-');
}

/* depth: what a container value would have. */
static TomlValue *parse_value(Parser *ps, uint32_t depth)
{
    int c = peek(ps, 0);
    if (c == '"' || c == '\'')
        return parse_string_value(ps);
    if (c == '[')
        return parse_array(ps, depth);
    if (c == '{')
        return parse_inline_table(ps, depth);
    if (c == 't' || c == 'f')
        return parse_bool(ps);
    if (starts_datetime(ps))
        return parse_datetime(ps);
    if (is_digit(c) || c == '+' || c == '-' || c == 'i' || c == 'n')
        return parse_number(ps);
    return fail_null(ps, ps->p, "expected a value");
}

/* ---- key/value pairs and headers ------------------------------------------------ */

/* Walks the parent parts of a key from t, creating missing tables. The two
 * callers differ in what they may walk through: a [header] goes through an
 * array of tables to its last element and may extend a [header] table; a
 * dotted key may do neither. */
static TomlValue *resolve_parents(Parser *ps, TomlValue *t, bool header)
{
    const char *what = header ? "header " : "dotted key ";
    for (uint32_t i = 0; i + 1 < ps->nkey; i++) {
        const KeyPart *kp = &ps->key[i];
        const TomlEntry *e = table_find(t, kp->s, kp->len);
        TomlValue *child;
        if (!e) {
            if (!(child = new_value(ps, TOML_TABLE, t->depth + 1u, kp->at)))
                return NULL;
            table_add(ps->arena, t, kp->s, kp->len, child);
        } else {
            child = e->value;
            if (header && child->kind == TOML_ARRAY && (child->flags & ARR_OF_TABLES))
                child = child->u.arr.v[child->u.arr.n - 1];
            if (child->kind != TOML_TABLE)
                return fail_null(ps, kp->at, key_msg(ps, what, " goes through a value that is not a table"));
            if (child->flags & TBL_INLINE)
                return fail_null(ps, kp->at, key_msg(ps, what, " adds to an inline table"));
            if (!header && (child->flags & TBL_HEADER))
                return fail_null(ps, kp->at, key_msg(ps, what, " adds to a table defined by a [header]"));
        }
        if (!header)
            child->flags |= TBL_DOTTED;
        t = child;
    }
    return t;
}

static bool parse_keyval(Parser *ps, TomlValue *table)
{
    if (!parse_key(ps))
        return false;
    if (peek(ps, 0) != '=')
        return fail(ps, ps->p, "expected '=' after key");
    ps->p++;
    skip_ws(ps);
    TomlValue *t = resolve_parents(ps, table, false);
    if (!t)
        return false;
    /* ps->key is reused by keys inside the value, so keep the last part */
    KeyPart last = ps->key[ps->nkey - 1];
    if (table_find(t, last.s, last.len))
        return fail(ps, last.at, key_msg(ps, "duplicate key ", ""));
    TomlValue *v = parse_value(ps, t->depth + 1u);
    if (!v)
        return false;
    table_add(ps->arena, t, last.s, last.len, v);
    return true;
}

/* [a.b]: a table may be defined once, unless dotted keys or an inline table made it. */
static TomlValue *define_table(Parser *ps, TomlValue *parent, const KeyPart *kp)
{
    const TomlEntry *e = table_find(parent, kp->s, kp->len);
    if (!e) {
        TomlValue *t = new_value(ps, TOML_TABLE, parent->depth + 1u, kp->at);
        if (!t)
            return NULL;
        t->flags = TBL_HEADER;
        table_add(ps->arena, parent, kp->s, kp->len, t);
        return t;
    }
    TomlValue *t = e->value;
    if (t->kind == TOML_TABLE && t->flags == 0) {   /* so far only implicit */
        t->flags = TBL_HEADER;
        return t;
    }
    return fail_null(ps, kp->at, t->kind == TOML_TABLE ? key_msg(ps, "table ", " is defined more than once")
                                                       : key_msg(ps, "key ", " already has a value"));
}

/* [[a.b]]: appends a new table to the array of tables a.b, creating it first. */
static TomlValue *append_table(Parser *ps, TomlValue *parent, const KeyPart *kp)
{
    const TomlEntry *e = table_find(parent, kp->s, kp->len);
    TomlValue *arr;
    if (!e) {
        if (!(arr = new_value(ps, TOML_ARRAY, parent->depth + 1u, kp->at)))
            return NULL;
        arr->flags = ARR_OF_TABLES;
        table_add(ps->arena, parent, kp->s, kp->len, arr);
    } else {
        arr = e->value;
        if (arr->kind != TOML_ARRAY || !(arr->flags & ARR_OF_TABLES))
            return fail_null(ps, kp->at, key_msg(ps, "cannot append to ", ": it is not an array of tables"));
    }
    TomlValue *t = new_value(ps, TOML_TABLE, arr->depth + 1u, kp->at);
    if (!t)
        return NULL;
    t->flags = TBL_HEADER;
    SMALL_PUSH(ps->arena, arr->u.arr, t);
    return t;
}

static bool parse_header(Parser *ps)
{
    bool aot = peek(ps, 1) == '[';
    ps->p += aot ? 2 : 1;
    skip_ws(ps);
    if (!parse_key(ps))
        return false;
    if (peek(ps, 0) != ']' || (aot && peek(ps, 1) != ']'))
        return fail(ps, ps->p, aot ? "expected ']]' after array of tables header" : "expected ']' after table header");
    ps->p += aot ? 2 : 1;
    TomlValue *parent = resolve_parents(ps, ps->root, true);
    if (!parent)
        return false;
    const KeyPart *last = &ps->key[ps->nkey - 1];
    ps->cur = aot ? append_table(ps, parent, last) : define_table(ps, parent, last);
    return ps->cur != NULL;
}

static bool parse_document(Parser *ps)
{
    while (ps->p < ps->end) {
        skip_ws(ps);
        int c = peek(ps, 0);
        bool ok;
        if (c == '[')
            ok = parse_header(ps) && finish_line(ps, "unexpected text after table header");
        else if (c == '#' || c == '\n' || c == '\r' || c < 0)
            ok = finish_line(ps, "");   /* blank or comment line; "" is never used */
        else
            ok = parse_keyval(ps, ps->cur) && finish_line(ps, "unexpected text after value");
        if (!ok)
            return false;
    }
    return true;
}

/* 1-based line and column (in code points) of an error. */
static void locate(const char *src, const char *at, TomlError *err)
{
    uint32_t line = 1, col = 1;
    for (const char *s = src; s < at; s++) {
        if (*s == '\n') {
            line++;
            col = 1;
        } else if (((unsigned char)*s & 0xC0) != 0x80) {
            col++;
        }
    }
    err->line = line;
    err->col = col;
}

const TomlValue *toml_parse(Arena *a, const char *src, size_t len, TomlError *err)
{
    TomlError dummy;
    if (!err)
        err = &dummy;
    *err = (TomlError){ 0, 0, NULL };
    if (!src && len) {
        *err = (TomlError){ 1, 1, "no input" };
        return NULL;
    }
    if (len > TOML_MAX_INPUT) {
        *err = (TomlError){ 1, 1, "input larger than " TOML_STR(TOML_MAX_INPUT_MIB) " MiB" };
        return NULL;
    }
    if (!src)
        src = "";   /* NULL with length 0: an empty document */
    /* Some editors start UTF-8 files with a byte order mark; it is not content. */
    if (len >= 3 && memcmp(src, "\xEF\xBB\xBF", 3) == 0)
        src += 3, len -= 3;

    Parser ps;
    memset(&ps, 0, sizeof ps);
    ps.arena = a;
    ps.src = ps.p = src;
    ps.end = src + len;
    ps.root = ps.cur = new_value(&ps, TOML_TABLE, 0, src);
    size_t bad = utf8_invalid_at(src, len);
    bool ok = bad < len ? fail(&ps, src + bad, "invalid UTF-8") : parse_document(&ps);
    if (!ok) {
        locate(ps.src, ps.err_at, err);
        err->msg = ps.err_msg;
        return NULL;
    }
    return ps.root;
}

/* ---- accessors ------------------------------------------------------------------ */

const TomlValue *toml_table_get(const TomlValue *table, const char *key)
{
    if (!table || table->kind != TOML_TABLE || !key)
        return NULL;
    const TomlEntry *e = table_find(table, key, strlen(key));
    return e ? e->value : NULL;
}

const TomlValue *toml_path(const TomlValue *root, const char *dotted)
{
    if (!dotted)
        return NULL;
    const TomlValue *v = root;
    for (;;) {
        const char *dot = strchr(dotted, '.');
        size_t n = dot ? (size_t)(dot - dotted) : strlen(dotted);
        if (!v || v->kind != TOML_TABLE)
            return NULL;
        const TomlEntry *e = table_find(v, dotted, n);
        v = e ? e->value : NULL;
        if (!dot)
            return v;
        dotted = dot + 1;
    }
}

TomlKind toml_kind(const TomlValue *v) { return v ? v->kind : TOML_NONE; }

const char *toml_string(const TomlValue *v, size_t *len)
{
    bool ok = v && (v->kind == TOML_STRING || v->kind == TOML_DATETIME);
    if (len)
        *len = ok ? v->u.str.len : 0;
    return ok ? v->u.str.s : NULL;
}

long long toml_integer(const TomlValue *v) { return v && v->kind == TOML_INTEGER ? v->u.i : 0; }

double toml_float(const TomlValue *v)
{
    if (v && v->kind == TOML_FLOAT)
        return v->u.f;
    return v && v->kind == TOML_INTEGER ? (double)v->u.i : 0.0;
}

bool toml_bool(const TomlValue *v) { return v && v->kind == TOML_BOOL && v->u.b; }

size_t toml_len(const TomlValue *v)
{
    if (!v)
        return 0;
    return v->kind == TOML_ARRAY ? v->u.arr.n : v->kind == TOML_TABLE ? v->u.tab.e.n : 0;
}

const TomlValue *toml_at(const TomlValue *array, size_t i)
{
    return array && array->kind == TOML_ARRAY && i < array->u.arr.n ? array->u.arr.v[i] : NULL;
}

const char *toml_key_at(const TomlValue *table, size_t i, const TomlValue **value)
{
    bool ok = table && table->kind == TOML_TABLE && i < table->u.tab.e.n;
    if (value)
        *value = ok ? table->u.tab.e.v[i].value : NULL;
    return ok ? table->u.tab.e.v[i].key : NULL;
}
