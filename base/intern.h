/* Per-file string interner: names become small integer ids, so comparing a name
 * with a soft keyword or a known identifier is an integer test. Keys point into
 * the source buffer (or arena copies); nothing is copied on insert. */
#ifndef PFC_INTERN_H
#define PFC_INTERN_H
#include "arena.h"
#include <stdbool.h>
#include <stdint.h>

/* Names every file knows in advance, with fixed ids (1-based, 0 means "none"). */
#define PREINTERNED_NAMES(X) \
    X(MATCH, "match") X(CASE, "case") X(TYPE, "type") X(UNDERSCORE, "_") \
    X(PRINT, "print") X(EXEC, "exec")

enum {
    NAME_NONE = 0,
#define X(id, s) NAME_##id,
    PREINTERNED_NAMES(X)
#undef X
    NAME_FIRST_DYNAMIC
};

typedef struct InternEntry { const char *s; uint32_t len; uint32_t id; uint64_t hash; } InternEntry;

typedef struct Interner {
    Arena *arena;
    InternEntry *slots;     /* open addressing, power-of-two size */
    uint32_t mask, count;
    ARENA_VEC(InternEntry *) by_id;   /* id -> entry */
} Interner;

void intern_init(Interner *in, Arena *arena);
uint32_t intern(Interner *in, const char *s, uint32_t len);
/* The id of s if it was interned, else 0; inserts nothing. */
uint32_t intern_lookup(const Interner *in, const char *s, uint32_t len);
const char *intern_str(const Interner *in, uint32_t id, uint32_t *len);
/* Tests of an interned string against a C string (false for id 0), so that
 * every pass compares names the same way. */
bool intern_is(const Interner *in, uint32_t id, const char *s);
bool intern_has_prefix(const Interner *in, uint32_t id, const char *prefix);
bool intern_has_suffix(const Interner *in, uint32_t id, const char *suffix);
bool intern_contains(const Interner *in, uint32_t id, const char *part);

#endif
