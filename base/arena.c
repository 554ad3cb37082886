#include "arena.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ArenaChunk {
    ArenaChunk *prev;
    size_t size;
    _Alignas(16) char data[];
};

enum { ARENA_MIN_CHUNK = 64 * 1024 };

struct ArenaAdopted {
    void *p;
    ArenaAdopted *next;
};

void arena_init(Arena *a) { memset(a, 0, sizeof *a); }

/* The adopted blocks, before the chunks that hold their list go. */
static void free_adopted(Arena *a)
{
    for (ArenaAdopted *d = a->adopted; d; d = d->next)
        free(d->p);
    a->adopted = NULL;
}

enum { ARENA_IDS_BLOCK = 16 * 1024 };   /* ids per block */

uint32_t *arena_ids(Arena *a, ArenaIds *p, uint32_t n)
{
    if ((size_t)(p->end - p->cur) < n) {
        uint32_t block = n > ARENA_IDS_BLOCK ? n : ARENA_IDS_BLOCK;
        p->cur = arena_alloc(a, (size_t)block * sizeof *p->cur);
        p->end = p->cur + block;
    }
    uint32_t *at = p->cur;
    p->cur += n;
    return at;
}

void *arena_adopt(Arena *a, void *p)
{
    ArenaAdopted *d = arena_alloc(a, sizeof *d);
    d->p = p;
    d->next = a->adopted;
    a->adopted = d;
    return p;
}

void arena_free(Arena *a)
{
    free_adopted(a);
    ArenaChunk *c = a->head;
    while (c) {
        ArenaChunk *prev = c->prev;
        free(c);
        c = prev;
    }
    arena_init(a);
}

enum { ARENA_KEEP_MAX = 8 << 20 };

void arena_reset(Arena *a)
{
    free_adopted(a);
    ArenaChunk *keep = a->head;
    if (!keep || keep->size > ARENA_KEEP_MAX) {
        arena_free(a);
        return;
    }
    for (ArenaChunk *c = keep->prev; c;) {
        ArenaChunk *prev = c->prev;
        free(c);
        c = prev;
    }
    keep->prev = NULL;
    a->head = keep;
    a->cur = keep->data;
    a->end = keep->data + keep->size;
    a->total = keep->size;
}

static void *arena_new_chunk(Arena *a, size_t size)
{
    size_t want = size > ARENA_MIN_CHUNK ? size : ARENA_MIN_CHUNK;
    /* Grow chunk sizes with the arena so big files need few mallocs. */
    if (want < a->total / 2)
        want = a->total / 2;
    ArenaChunk *c = malloc(sizeof *c + want);
    if (!c) {
        fputs("pfc: out of memory\n", stderr);
        abort();
    }
    c->prev = a->head;
    c->size = want;
    a->head = c;
    a->total += want;
    a->cur = c->data + size;
    a->end = c->data + want;
    return c->data;
}

void *arena_alloc(Arena *a, size_t size)
{
    size = size ? (size + 15) & ~(size_t)15 : 16;   /* never a NULL or shared pointer */
    if ((size_t)(a->end - a->cur) < size)
        return arena_new_chunk(a, size);
    void *p = a->cur;
    a->cur += size;
    return p;
}

void *arena_zalloc(Arena *a, size_t size)
{
    void *p = arena_alloc(a, size);
    memset(p, 0, size);
    return p;
}

void *arena_copy(Arena *a, const void *src, size_t size)
{
    void *p = arena_alloc(a, size ? size : 1);
    if (size)
        memcpy(p, src, size);
    return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *arena_printf(Arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = arena_alloc(a, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

void *arena_grow(Arena *a, void *old, uint32_t n, uint32_t *cap, size_t elem)
{
    uint32_t ncap = *cap ? *cap * 2 : 16;
    void *p = arena_alloc(a, ncap * elem);
    if (n)
        memcpy(p, old, n * elem);
    *cap = ncap;
    return p;
}
