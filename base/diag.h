/* Syntax diagnostics and version-gated features, shared by lexer and parser.
 * Both are values stored in the file's arena: libraries never print or exit. */
#ifndef PFC_DIAG_H
#define PFC_DIAG_H
#include "arena.h"
#include <stdint.h>

typedef struct Diag {
    uint32_t start, end;    /* byte span the message is about */
    const char *msg;        /* arena or static string */
} Diag;
typedef ARENA_VEC(Diag) DiagVec;

/* Syntax that only some Python versions accept. The parser always parses the
 * newest grammar (3.13) and records uses; the driver reports those newer than
 * --target-version. Versions are encoded as minor numbers of 3.x. */
#define PY_FEATURES(X) \
    X(MATCH_STMT,         10, "match statement") \
    X(CONTINUED_INDENT,   10, "indentation set by a line continuation at the start of a line") \
    X(WALRUS_INDEX,       10, "unparenthesized assignment expression in an index") \
    X(EXCEPT_STAR,        11, "except* clause") \
    X(STAR_INDEX,         11, "starred expression in an index") \
    X(STAR_ANNOTATION,    11, "starred annotation on *args") \
    X(TYPE_ALIAS,         12, "type alias statement") \
    X(TYPE_PARAMS,        12, "type parameter list") \
    X(FSTRING_QUOTE,      12, "f-string reusing its own quote inside a replacement field") \
    X(FSTRING_BACKSLASH,  12, "backslash inside an f-string replacement field") \
    X(FSTRING_COMMENT,    12, "comment inside an f-string replacement field") \
    X(FSTRING_NEWLINE,    12, "line break inside a single-quoted f-string replacement field") \
    X(TYPE_PARAM_DEFAULT, 13, "type parameter default") \
    X(UNICODE_14_NAME,    11, "\\N{...} name from Unicode 14.0") \
    X(UNICODE_15_NAME,    12, "\\N{...} name from Unicode 15.0") \
    X(UNICODE_15_1_NAME,  13, "\\N{...} name from Unicode 15.1")

typedef enum PyFeature {
#define X(id, minor, desc) FEAT_##id,
    PY_FEATURES(X)
#undef X
    FEAT__COUNT
} PyFeature;

typedef struct FeatureUse { uint32_t start, end; uint8_t feature; } FeatureUse;
typedef ARENA_VEC(FeatureUse) FeatureVec;

int feature_min_minor(PyFeature f);
const char *feature_name(PyFeature f);

enum { PY_MINOR_MIN = 9, PY_MINOR_MAX = 13 };

/* Diagnostics kept per file: past this, later errors are noise and would make
 * pathological inputs quadratic to report. */
enum { DIAG_LIMIT = 100 };

#endif
