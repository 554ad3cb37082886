#include "intern.h"
#include <string.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

static void table_alloc(Interner *in, uint32_t size)
{
    in->slots = arena_zalloc(in->arena, size * sizeof *in->slots);
    in->mask = size - 1;
}

static InternEntry *find_slot(InternEntry *slots, uint32_t mask, const char *s, uint32_t len,
                              uint64_t h)
{
    for (uint32_t i = (uint32_t)h & mask;; i = (i + 1) & mask) {
        InternEntry *e = &slots[i];
        if (!e->s || (e->hash == h && e->len == len && memcmp(e->s, s, len) == 0))
            return e;
    }
}

static void rehash(Interner *in)
{
    InternEntry *old = in->slots;
    uint32_t oldsize = in->mask + 1;
    table_alloc(in, oldsize * 2);
    for (uint32_t i = 0; i < in->by_id.n; i++)
        in->by_id.v[i] = NULL;
    for (uint32_t i = 0; i < oldsize; i++) {
        if (!old[i].s)
            continue;
        InternEntry *e = find_slot(in->slots, in->mask, old[i].s, old[i].len, old[i].hash);
        *e = old[i];
        in->by_id.v[e->id] = e;
    }
}

void intern_init(Interner *in, Arena *arena)
{
    memset(in, 0, sizeof *in);
    in->arena = arena;
    table_alloc(in, 256);
    VEC_PUSH(arena, in->by_id, NULL); /* id 0 is "none" */
#define X(id, s) intern(in, s, sizeof s - 1);
    PREINTERNED_NAMES(X)
#undef X
}

uint32_t intern(Interner *in, const char *s, uint32_t len)
{
    uint64_t h = XXH3_64bits(s, len);
    InternEntry *e = find_slot(in->slots, in->mask, s, len, h);
    if (e->s)
        return e->id;
    e->s = s;
    e->len = len;
    e->hash = h;
    e->id = in->by_id.n;
    VEC_PUSH(in->arena, in->by_id, e);
    if (++in->count * 2 > in->mask) {
        uint32_t id = e->id;
        rehash(in);
        return id;
    }
    return e->id;
}

uint32_t intern_lookup(const Interner *in, const char *s, uint32_t len)
{
    const InternEntry *e = find_slot(in->slots, in->mask, s, len, XXH3_64bits(s, len));
    return e->s ? e->id : 0;
}

const char *intern_str(const Interner *in, uint32_t id, uint32_t *len)
{
    if (id == 0 || id >= in->by_id.n) {
        *len = 0;
        return "";
    }
    *len = in->by_id.v[id]->len;
    return in->by_id.v[id]->s;
}

/* Byte by byte, stopping at the first difference: the passes test one name
 * against long lists of known names, and most differ in their first bytes,
 * so neither string's length is worth computing. */
bool intern_is(const Interner *in, uint32_t id, const char *s)
{
    uint32_t len;
    const char *q = intern_str(in, id, &len);
    for (uint32_t i = 0; i < len; i++)
        if (q[i] != s[i] || !s[i])
            return false;
    return id && s[len] == 0;
}

bool intern_has_prefix(const Interner *in, uint32_t id, const char *prefix)
{
    uint32_t len;
    const char *q = intern_str(in, id, &len);
    size_t n = strlen(prefix);
    return id && len >= n && memcmp(q, prefix, n) == 0;
}

bool intern_has_suffix(const Interner *in, uint32_t id, const char *suffix)
{
    uint32_t len;
    const char *q = intern_str(in, id, &len);
    size_t n = strlen(suffix);
    return id && len >= n && memcmp(q + len - n, suffix, n) == 0;
}

bool intern_contains(const Interner *in, uint32_t id, const char *part)
{
    uint32_t len;
    const char *q = intern_str(in, id, &len);
    size_t n = strlen(part);
    for (uint32_t i = 0; id && i + n <= len; i++)
        if (memcmp(q + i, part, n) == 0)
            return true;
    return false;
}
