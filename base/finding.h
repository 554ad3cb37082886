/* A finding: what a rule (or the parser) reports about a span of a file.
 * Produced by passes/, formatted by emit/, filtered by the CLI. */
#ifndef PFC_FINDING_H
#define PFC_FINDING_H
#include "arena.h"
#include <stdint.h>

typedef enum Severity { SEV_NOTE, SEV_WARNING, SEV_ERROR } Severity;

/* A fix replaces byte ranges of the file; every other byte stays as it was.
 * Edits of one fix never overlap; an insertion has start == end. */
typedef struct Edit {
    uint32_t start, end;
    const char *text;
} Edit;

typedef enum Applicability { FIX_SAFE, FIX_UNSAFE } Applicability;

typedef struct Fix {
    Applicability applicability;
    const char *message;        /* "add .detach()" */
    uint32_t nedits;
    Edit *edits;
} Fix;

typedef struct Finding {
    const char *code, *name;
    Severity severity;
    uint32_t start, end;        /* byte span */
    const char *message;
    const char *help;           /* may be NULL */
    const Fix *fix;             /* NULL when the rule cannot fix this one */
} Finding;

typedef ARENA_VEC(Finding) FindingVec;

#endif
