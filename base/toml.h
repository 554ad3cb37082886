/* A small TOML 1.0 reader, used to find [tool.pfc] in pyproject.toml and pfc.toml.
 *
 * The whole document is parsed and validated, not just the table we want: other
 * tools' tables may use any TOML syntax, and skipping them by a looser scan could
 * let, say, a multi-line string that contains "[tool.pfc]" be misread as a header.
 *
 * The result is a tree of values in the caller's arena; nothing else is allocated
 * and nothing is printed. Accessors accept NULL and values of the wrong kind (they
 * return 0, NULL or false), so lookups chain without checks:
 *     toml_string(toml_path(root, "tool.pfc.fail-on"), NULL)
 */
#ifndef PFC_TOML_H
#define PFC_TOML_H
#include "arena.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Limits against pathological input. Depth counts tables and arrays from the
 * root (depth 0); every container in a parsed tree is at most TOML_MAX_DEPTH deep,
 * so consumers may walk it recursively. Dotted keys have at most as many parts.
 * The size cap bounds memory: a tree costs up to ~30 bytes per input byte (a
 * file of nothing but "[]," or "[tN]"), and real config files are a few KiB. */
#define TOML_MAX_DEPTH 128
#define TOML_MAX_INPUT_MIB 4
#define TOML_MAX_INPUT ((size_t)TOML_MAX_INPUT_MIB << 20)

typedef enum TomlKind {
    TOML_NONE,      /* only for NULL: no such value */
    TOML_STRING,
    TOML_INTEGER,
    TOML_FLOAT,
    TOML_BOOL,
    TOML_DATETIME,  /* offset/local date-time, date or time, kept as written */
    TOML_ARRAY,
    TOML_TABLE,
} TomlKind;

typedef struct TomlValue TomlValue;

typedef struct TomlError {
    uint32_t line, col;     /* 1-based; col counts code points */
    const char *msg;        /* static or in the arena */
} TomlError;

/* Returns the root table, or NULL with *err set. Any bytes are accepted as input
 * (src need not be NUL-terminated); err may be NULL. */
const TomlValue *toml_parse(Arena *a, const char *src, size_t len, TomlError *err);

/* One key of a table, or NULL. */
const TomlValue *toml_table_get(const TomlValue *table, const char *key);
/* Follows '.'-separated keys through tables: "tool.pfc". Every part is taken
 * literally (no quoting), so a key containing '.' needs toml_table_get. */
const TomlValue *toml_path(const TomlValue *root, const char *dotted);

TomlKind toml_kind(const TomlValue *v);
/* Decoded UTF-8, NUL-terminated (it may also contain NULs from \u0000, hence
 * len). Also gives the text of a TOML_DATETIME. */
const char *toml_string(const TomlValue *v, size_t *len);
long long toml_integer(const TomlValue *v);
double toml_float(const TomlValue *v);     /* an integer converts */
bool toml_bool(const TomlValue *v);

size_t toml_len(const TomlValue *v);       /* array items or table entries */
const TomlValue *toml_at(const TomlValue *array, size_t i);
/* The i-th key of a table in file order (NUL-terminated); *value gets its value
 * when value is not NULL. NULL when i is out of range. */
const char *toml_key_at(const TomlValue *table, size_t i, const TomlValue **value);

#endif
