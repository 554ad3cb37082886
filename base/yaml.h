/* A reader for the subset of YAML that training configs use: block
 * mappings (nested by indentation), scalars (plain, 'single' and "double"
 * quoted), lists of scalars (block `- item` or flow `[a, b]`), empty flow
 * containers, comments and a leading `---`.
 *
 * Anything outside the subset (anchors, aliases, tags, block scalars,
 * lists of mappings, flow mappings with entries, several documents) is an
 * error with its line, as is malformed input, so a caller never reads a
 * config it only half understood. Tabs in indentation are errors, as in
 * YAML. Duplicate keys: the last one wins, as in PyYAML. The tree lives in
 * the caller's arena; the source need not be NUL-terminated. Accessors
 * accept NULL and values of the wrong kind. */
#ifndef PFC_YAML_H
#define PFC_YAML_H
#include "arena.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define YAML_MAX_DEPTH 64

typedef enum YamlKind {
    YAML_NONE,      /* only for NULL: no such value */
    YAML_NULL,      /* an empty value, ~ or null */
    YAML_SCALAR,
    YAML_SEQ,
    YAML_MAP,
} YamlKind;

typedef struct YamlValue YamlValue;
struct YamlValue {
    YamlKind kind;
    uint32_t line;                /* 1-based line where the value starts */
    const char *str;              /* scalar: its text without quotes, NUL-terminated */
    bool quoted;                  /* scalar: quoted, so a string whatever it spells */
    uint32_t n;                   /* seq, map: entries */
    const char *const *keys;      /* map, in input order */
    const YamlValue *const *items;
};

typedef struct YamlError {
    uint32_t line;          /* 1-based */
    const char *msg;        /* static */
} YamlError;

/* The document's value (a map, a seq, a scalar, or YAML_NULL when empty),
 * or NULL with *err set (err may be NULL). */
const YamlValue *yaml_parse(Arena *a, const char *src, size_t len, YamlError *err);

YamlKind yaml_kind(const YamlValue *v);
/* The last entry named key, or NULL. */
const YamlValue *yaml_get(const YamlValue *map, const char *key);

#endif
