/* A finding: what a rule (or the parser) reports about a span of a file.
 * Produced by passes/, formatted by emit/, filtered by the CLI. */
#ifndef PFC_FINDING_H
#define PFC_FINDING_H
#include "arena.h"
#include <stdint.h>

typedef enum Severity { SEV_NOTE, SEV_WARNING, SEV_ERROR } Severity;

typedef struct Finding {
    const char *code, *name;
    Severity severity;
    uint32_t start, end;        /* byte span */
    const char *message;
    const char *help;           /* may be NULL */
} Finding;

typedef ARENA_VEC(Finding) FindingVec;

#endif
