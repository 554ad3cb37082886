/* A small JSON reader (RFC 8259), used to read Jupyter notebooks.
 *
 * The tree lives in the caller's arena and every value keeps its byte span in
 * the input, so that a caller can rewrite one value and keep every other byte
 * of the file as it was (pfc lint --fix on a notebook). Strings are decoded to
 * UTF-8. Python's json module is the reference it is tested against: like it,
 * the reader also takes NaN, Infinity and -Infinity, a UTF-8 byte order mark,
 * and duplicate keys (the last one wins). Unlike it, it refuses lone UTF-16
 * surrogates (\ud800), which have no UTF-8 form.
 *
 * Errors are values with a line and column: invalid UTF-8 and NUL bytes are
 * refused where they are, nesting deeper than JSON_MAX_DEPTH is refused, and
 * no input makes it crash or read outside [src, src + len). Accessors accept
 * NULL and values of the wrong kind, so lookups chain without checks:
 *     json_string(json_get(json_get(root, "metadata"), "language"), NULL)
 */
#ifndef PFC_JSON_H
#define PFC_JSON_H
#include "arena.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_MAX_DEPTH 512

typedef enum JsonKind {
    JSON_NONE,      /* only for NULL: no such value */
    JSON_NULL,
    JSON_BOOL,
    JSON_NUMBER,    /* kept as written: span only */
    JSON_STRING,
    JSON_ARRAY,
    JSON_OBJECT,
} JsonKind;

typedef struct JsonValue JsonValue;
typedef struct JsonMember { const JsonValue *key, *value; } JsonMember;

struct JsonValue {
    JsonKind kind;
    uint32_t start, end;          /* the value's bytes in the input, [start, end) */
    uint32_t n;                   /* string: decoded bytes; array, object: entries */
    bool boolean;
    const char *str;              /* string: decoded UTF-8, NUL-terminated */
    const JsonValue *const *items;   /* array */
    const JsonMember *members;    /* object, in input order */
};

typedef struct JsonError {
    uint32_t offset;        /* byte offset in the input */
    uint32_t line, col;     /* 1-based; col counts code points */
    const char *msg;        /* static */
} JsonError;

/* Returns the document's value, or NULL with *err set (err may be NULL). Any
 * bytes are accepted as input; src need not be NUL-terminated. */
const JsonValue *json_parse(Arena *a, const char *src, size_t len, JsonError *err);

JsonKind json_kind(const JsonValue *v);
/* The last member named key, or NULL. */
const JsonValue *json_get(const JsonValue *object, const char *key);
const JsonValue *json_at(const JsonValue *array, uint32_t i);
uint32_t json_count(const JsonValue *v);       /* array or object entries */
const char *json_string(const JsonValue *v, uint32_t *len);   /* NULL if not a string */
bool json_is(const JsonValue *v, const char *text);            /* a string equal to text */

/* Appends the JSON text of v to *out in a canonical form (sorted nothing,
 * ", " and ": " separators, strings escaped as Python's json.dumps with
 * ensure_ascii=False): what tests compare with Python's reading. */
struct Buf;
void json_write(struct Buf *out, const JsonValue *v, const char *src);

/* Appends s[0..n) as a JSON string literal, quotes included, escaped as
 * Python's json.dumps escapes it: ensure_ascii selects \uXXXX for every
 * non-ASCII character (surrogate pairs above U+FFFF), as Jupyter writes
 * notebooks when told to. */
void json_put_string(struct Buf *out, const char *s, size_t n, bool ensure_ascii);

#endif
