/* JSON reader: recursive descent over the bytes, one function per production
 * of RFC 8259's grammar; the tree goes to the caller's arena. */
#include "json.h"
#include "buf.h"
#include <string.h>

typedef struct Reader {
    const unsigned char *s;
    uint32_t len, pos;
    Arena *a;
    const char *msg;     /* the first error; parsing stops there */
    uint32_t err_at;
} Reader;

static bool fail(Reader *r, uint32_t at, const char *msg)
{
    if (!r->msg) {
        r->msg = msg;
        r->err_at = at;
    }
    return false;
}

static int peek(const Reader *r) { return r->pos < r->len ? r->s[r->pos] : -1; }

// ws = *( %x20 / %x09 / %x0A / %x0D )
static void skip_ws(Reader *r)
{
    while (r->pos < r->len && (r->s[r->pos] == ' ' || r->s[r->pos] == '\t' ||
                               r->s[r->pos] == '\n' || r->s[r->pos] == '\r'))
        r->pos++;
}

/* Length of the UTF-8 sequence at p (1..4), or 0 if it is not well formed
 * (overlong forms, surrogates and code points past U+10FFFF included). */
static uint32_t utf8_length(const unsigned char *p, uint32_t avail)
{
    unsigned c = p[0];
    uint32_t n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
               : (c & 0xf8) == 0xf0 ? 4 : 0;
    if (n == 0 || n > avail || (n == 2 && c < 0xc2))
        return 0;
    for (uint32_t i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if (n == 3 && ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0)))
        return 0;
    if (n == 4 && ((c == 0xf0 && p[1] < 0x90) || c > 0xf4 || (c == 0xf4 && p[1] >= 0x90)))
        return 0;
    return n;
}

static void put_utf8(Buf *b, uint32_t cp)
{
    if (cp < 0x80) {
        buf_putc(b, (char)cp);
    } else if (cp < 0x800) {
        buf_putc(b, (char)(0xc0 | cp >> 6));
        buf_putc(b, (char)(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
        buf_putc(b, (char)(0xe0 | cp >> 12));
        buf_putc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
        buf_putc(b, (char)(0x80 | (cp & 0x3f)));
    } else {
        buf_putc(b, (char)(0xf0 | cp >> 18));
        buf_putc(b, (char)(0x80 | ((cp >> 12) & 0x3f)));
        buf_putc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
        buf_putc(b, (char)(0x80 | (cp & 0x3f)));
    }
}

static int hex_digit(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Four hex digits after "\u" at r->pos; -1 if they are not there. */
static long read_hex4(Reader *r)
{
    if (r->len - r->pos < 4)
        return -1;
    long v = 0;
    for (int i = 0; i < 4; i++) {
        int d = hex_digit(r->s[r->pos + i]);
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    r->pos += 4;
    return v;
}

// unicode-escape = "u" 4HEXDIG [ "\u" 4HEXDIG ]   (a surrogate pair)
static bool unicode_escape(Reader *r, Buf *out, uint32_t at)
{
    long hi = read_hex4(r);
    if (hi < 0)
        return fail(r, at, "\\u must be followed by four hex digits");
    uint32_t cp = (uint32_t)hi;
    if (hi >= 0xdc00 && hi <= 0xdfff)
        return fail(r, at, "lone UTF-16 low surrogate in \\u escape");
    if (hi >= 0xd800 && hi <= 0xdbff) {
        uint32_t save = r->pos;
        long lo = -1;
        if (r->len - r->pos >= 2 && r->s[r->pos] == '\\' && r->s[r->pos + 1] == 'u') {
            r->pos += 2;
            lo = read_hex4(r);
        }
        if (lo < 0xdc00 || lo > 0xdfff) {
            r->pos = save;
            return fail(r, at, "lone UTF-16 high surrogate in \\u escape");
        }
        cp = 0x10000 + (((uint32_t)hi - 0xd800) << 10) + ((uint32_t)lo - 0xdc00);
    }
    put_utf8(out, cp);
    return true;
}

// escape = "\" ( %x22 / %x5C / %x2F / %x62 / %x66 / %x6E / %x72 / %x74 / unicode-escape )
static bool escape(Reader *r, Buf *out)
{
    uint32_t at = r->pos++;
    int c = peek(r);
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    const char *k = c > 0 ? strchr(from, c) : NULL;
    if (c == 'u') {
        r->pos++;
        return unicode_escape(r, out, at);
    }
    if (!k)
        return fail(r, at, c < 0 ? "unterminated string" : "invalid escape in string");
    buf_putc(out, to[k - from]);
    r->pos++;
    return true;
}

// string = quotation-mark *char quotation-mark
static bool string(Reader *r, JsonValue *v)
{
    uint32_t open = r->pos++;
    Buf out = {0};
    bool ok = true;
    for (;;) {
        int c = peek(r);
        if (c < 0) {
            ok = fail(r, open, "unterminated string");
            break;
        }
        if (c == '"') {
            r->pos++;
            break;
        }
        if (c == '\\') {
            if (!(ok = escape(r, &out)))
                break;
            continue;
        }
        if (c < 0x20) {
            ok = fail(r, r->pos, c == 0 ? "NUL byte in string" : "control character in string");
            break;
        }
        uint32_t n = utf8_length(r->s + r->pos, r->len - r->pos);
        if (!n) {
            ok = fail(r, r->pos, "invalid UTF-8");
            break;
        }
        buf_put(&out, (const char *)r->s + r->pos, n);
        r->pos += n;
    }
    if (ok) {
        v->kind = JSON_STRING;
        v->n = (uint32_t)out.n;
        v->str = arena_strndup(r->a, out.v ? out.v : "", out.n);
    }
    buf_free(&out);
    return ok;
}

static uint32_t digits(Reader *r)
{
    uint32_t from = r->pos;
    while (r->pos < r->len && r->s[r->pos] >= '0' && r->s[r->pos] <= '9')
        r->pos++;
    return r->pos - from;
}

static bool literal(Reader *r, const char *word)
{
    size_t n = strlen(word);
    if (r->len - r->pos < n || memcmp(r->s + r->pos, word, n) != 0)
        return false;
    r->pos += (uint32_t)n;
    return true;
}

// number = [ "-" ] int [ frac ] [ exp ]  (and NaN, Infinity, -Infinity, as Python reads)
static bool number(Reader *r, JsonValue *v)
{
    uint32_t at = r->pos;
    v->kind = JSON_NUMBER;
    if (literal(r, "NaN") || literal(r, "Infinity") || literal(r, "-Infinity"))
        return true;
    if (peek(r) == '-')
        r->pos++;
    if (peek(r) == '0')
        r->pos++;
    else if (!digits(r))
        return fail(r, at, "invalid number");
    if (peek(r) == '.') {
        r->pos++;
        if (!digits(r))
            return fail(r, at, "invalid number: digits must follow '.'");
    }
    if (peek(r) == 'e' || peek(r) == 'E') {
        r->pos++;
        if (peek(r) == '+' || peek(r) == '-')
            r->pos++;
        if (!digits(r))
            return fail(r, at, "invalid number: digits must follow the exponent");
    }
    return true;
}

static bool value(Reader *r, JsonValue *v, int depth);

static JsonValue *new_value(Reader *r)
{
    return arena_zalloc(r->a, sizeof(JsonValue));
}

// array = begin-array [ value *( value-separator value ) ] end-array
static bool array(Reader *r, JsonValue *v, int depth)
{
    ARENA_VEC(const JsonValue *) items = {0};
    r->pos++;
    skip_ws(r);
    if (peek(r) == ']') {
        r->pos++;
    } else {
        for (;;) {
            JsonValue *item = new_value(r);
            if (!value(r, item, depth + 1))
                return false;
            VEC_PUSH(r->a, items, item);
            skip_ws(r);
            int c = peek(r);
            r->pos += c >= 0;
            if (c == ']')
                break;
            if (c != ',')
                return fail(r, r->pos - (c >= 0), c < 0 ? "unterminated array"
                                                        : "expected ',' or ']' in array");
        }
    }
    v->kind = JSON_ARRAY;
    v->items = items.v;
    v->n = items.n;
    return true;
}

// member = string name-separator value
static bool member(Reader *r, JsonMember *m, int depth)
{
    skip_ws(r);
    if (peek(r) != '"')
        return fail(r, r->pos, peek(r) < 0 ? "unterminated object"
                                           : "expected a string key in object");
    JsonValue *key = new_value(r);
    key->start = r->pos;
    if (!string(r, key))
        return false;
    key->end = r->pos;
    skip_ws(r);
    if (peek(r) != ':')
        return fail(r, r->pos, "expected ':' after the key in object");
    r->pos++;
    JsonValue *val = new_value(r);
    if (!value(r, val, depth + 1))
        return false;
    m->key = key;
    m->value = val;
    return true;
}

// object = begin-object [ member *( value-separator member ) ] end-object
static bool object(Reader *r, JsonValue *v, int depth)
{
    ARENA_VEC(JsonMember) members = {0};
    r->pos++;
    skip_ws(r);
    if (peek(r) == '}') {
        r->pos++;
    } else {
        for (;;) {
            JsonMember m;
            if (!member(r, &m, depth))
                return false;
            VEC_PUSH(r->a, members, m);
            skip_ws(r);
            int c = peek(r);
            r->pos += c >= 0;
            if (c == '}')
                break;
            if (c != ',')
                return fail(r, r->pos - (c >= 0), c < 0 ? "unterminated object"
                                                        : "expected ',' or '}' in object");
        }
    }
    v->kind = JSON_OBJECT;
    v->members = members.v;
    v->n = members.n;
    return true;
}

static const char *unexpected(int c)
{
    return c < 0 ? "unexpected end of input, expected a value"
         : c == 0 ? "NUL byte"
         : c >= 0x80 ? "unexpected non-ASCII character, expected a value"
         : "expected a value";
}

static bool keyword(JsonValue *v, unsigned char first)
{
    v->kind = first == 'n' ? JSON_NULL : JSON_BOOL;
    v->boolean = first == 't';
    return true;
}

// value = false / null / true / object / array / number / string
static bool value(Reader *r, JsonValue *v, int depth)
{
    skip_ws(r);
    if (depth > JSON_MAX_DEPTH)
        return fail(r, r->pos, "nesting deeper than 512 levels");
    v->start = r->pos;
    int c = peek(r);
    bool ok;
    if (c == '{')
        ok = object(r, v, depth);
    else if (c == '[')
        ok = array(r, v, depth);
    else if (c == '"')
        ok = string(r, v);
    else if (c == '-' || (c >= '0' && c <= '9') || c == 'N' || c == 'I')
        ok = number(r, v);
    else if (literal(r, "true") || literal(r, "false") || literal(r, "null"))
        ok = keyword(v, r->s[v->start]);
    else
        ok = fail(r, r->pos, unexpected(c));
    v->end = r->pos;
    return ok;
}

/* Line and column (in code points) of a byte offset. */
static void locate(const unsigned char *s, uint32_t offset, uint32_t *line, uint32_t *col)
{
    *line = 1;
    *col = 1;
    for (uint32_t i = 0; i < offset; i++) {
        if (s[i] == '\n') {
            ++*line;
            *col = 1;
        } else if ((s[i] & 0xc0) != 0x80) {
            ++*col;
        }
    }
}

const JsonValue *json_parse(Arena *a, const char *src, size_t len, JsonError *err)
{
    Reader r = {(const unsigned char *)src, 0, 0, a, NULL, 0};
    JsonValue *root = NULL;
    if (len >= UINT32_MAX)
        fail(&r, 0, "input too large");
    else
        r.len = (uint32_t)len;
    if (!r.msg && r.len >= 3 && memcmp(src, "\xef\xbb\xbf", 3) == 0)
        r.pos = 3;   /* Python's json.loads(bytes) reads a byte order mark */
    if (!r.msg) {
        root = new_value(&r);
        if (value(&r, root, 1)) {
            skip_ws(&r);
            if (r.pos < r.len)
                fail(&r, r.pos, r.s[r.pos] == 0 ? "NUL byte" : "extra data after the value");
        }
    }
    if (err) {
        memset(err, 0, sizeof *err);
        if (r.msg) {
            err->msg = r.msg;
            err->offset = r.err_at;
            locate(r.s, r.err_at, &err->line, &err->col);
        }
    }
    return r.msg ? NULL : root;
}

/* ---- access ------------------------------------------------------------------------ */

JsonKind json_kind(const JsonValue *v) { return v ? v->kind : JSON_NONE; }

const JsonValue *json_get(const JsonValue *object, const char *key)
{
    if (json_kind(object) != JSON_OBJECT)
        return NULL;
    for (uint32_t i = object->n; i-- > 0;)
        if (json_is(object->members[i].key, key))
            return object->members[i].value;
    return NULL;
}

const JsonValue *json_at(const JsonValue *array, uint32_t i)
{
    return json_kind(array) == JSON_ARRAY && i < array->n ? array->items[i] : NULL;
}

uint32_t json_count(const JsonValue *v)
{
    return json_kind(v) == JSON_ARRAY || json_kind(v) == JSON_OBJECT ? v->n : 0;
}

const char *json_string(const JsonValue *v, uint32_t *len)
{
    if (json_kind(v) != JSON_STRING)
        return NULL;
    if (len)
        *len = v->n;
    return v->str;
}

bool json_is(const JsonValue *v, const char *text)
{
    return json_kind(v) == JSON_STRING && v->n == strlen(text) && memcmp(v->str, text, v->n) == 0;
}

/* ---- writing ----------------------------------------------------------------------- */

void json_put_string(Buf *out, const char *s, size_t n, bool ensure_ascii)
{
    static const char short_escape[] = "\"\\\b\f\n\r\t", letter[] = "\"\\bfnrt";
    buf_putc(out, '"');
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        const char *k = c ? memchr(short_escape, c, sizeof short_escape - 1) : NULL;
        uint32_t len = c < 0x80 ? 1 : utf8_length((const unsigned char *)s + i, (uint32_t)(n - i));
        if (k) {
            buf_putc(out, '\\');
            buf_putc(out, letter[k - short_escape]);
        } else if (c < 0x20) {
            buf_printf(out, "\\u%04x", c);
        } else if (c >= 0x80 && ensure_ascii && len) {
            uint32_t cp = len == 2 ? (c & 0x1fu) : len == 3 ? (c & 0x0fu) : (c & 0x07u);
            for (uint32_t j = 1; j < len; j++)
                cp = cp << 6 | ((unsigned char)s[i + j] & 0x3fu);
            if (cp >= 0x10000)
                buf_printf(out, "\\u%04x\\u%04x", 0xd800 + ((cp - 0x10000) >> 10),
                           0xdc00 + ((cp - 0x10000) & 0x3ff));
            else
                buf_printf(out, "\\u%04x", cp);
        } else {
            buf_put(out, s + i, len ? len : 1);   /* invalid bytes are passed on as they are */
        }
        i += len ? len : 1;
    }
    buf_putc(out, '"');
}

static bool same_key(const JsonMember *a, const JsonMember *b)
{
    return a->key->n == b->key->n && memcmp(a->key->str, b->key->str, a->key->n) == 0;
}

/* Python's dict keeps a repeated key at its first place with its last value:
 * the index of that value, or -1 when member i is a repeat. */
static int64_t member_shown(const JsonValue *v, uint32_t i)
{
    for (uint32_t k = 0; k < i; k++)
        if (same_key(&v->members[k], &v->members[i]))
            return -1;
    uint32_t last = i;
    for (uint32_t k = i + 1; k < v->n; k++)
        if (same_key(&v->members[k], &v->members[i]))
            last = k;
    return last;
}

void json_write(Buf *out, const JsonValue *v, const char *src)
{
    switch (json_kind(v)) {
    case JSON_NONE: case JSON_NULL: buf_puts(out, "null"); break;
    case JSON_BOOL: buf_puts(out, v->boolean ? "true" : "false"); break;
    case JSON_NUMBER: buf_put(out, src + v->start, v->end - v->start); break;
    case JSON_STRING: json_put_string(out, v->str, v->n, false); break;
    case JSON_ARRAY:
        buf_putc(out, '[');
        for (uint32_t i = 0; i < v->n; i++) {
            if (i)
                buf_puts(out, ", ");
            json_write(out, v->items[i], src);
        }
        buf_putc(out, ']');
        break;
    case JSON_OBJECT: {
        buf_putc(out, '{');
        bool first = true;
        for (uint32_t i = 0; i < v->n; i++) {
            int64_t shown = member_shown(v, i);
            if (shown < 0)
                continue;
            if (!first)
                buf_puts(out, ", ");
            first = false;
            const JsonValue *key = v->members[i].key;
            json_put_string(out, key->str, key->n, false);
            buf_puts(out, ": ");
            json_write(out, v->members[shown].value, src);
        }
        buf_putc(out, '}');
        break;
    }
    }
}
