/* Bump arena: one per file, owns tokens, CST and (later) IR; freed in one call.
 * Allocation never fails silently: arena_alloc aborts the process only when the
 * system is out of memory, which the CLI reports as an internal error. */
#ifndef PFC_ARENA_H
#define PFC_ARENA_H
#include <stddef.h>
#include <stdint.h>

typedef struct ArenaChunk ArenaChunk;
typedef struct ArenaAdopted ArenaAdopted;
typedef struct Arena {
    ArenaChunk *head;   /* chunk being filled */
    char *cur, *end;    /* free space of head */
    size_t total;       /* bytes reserved from the system, for statistics */
    ArenaAdopted *adopted;   /* malloc'ed blocks freed with the arena */
} Arena;

void arena_init(Arena *a);
void arena_free(Arena *a);
/* Empties the arena for the next file but keeps its newest chunk (up to a
 * few MB): a worker reuses memory the system already mapped for it instead of
 * freeing it and faulting fresh pages in again. */
void arena_reset(Arena *a);
void *arena_alloc(Arena *a, size_t size);            /* 16-byte aligned, uninitialised */
void *arena_zalloc(Arena *a, size_t size);           /* zeroed */
void *arena_copy(Arena *a, const void *src, size_t size);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_printf(Arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Short lists of 32-bit ids (a node's children, a value's operands) packed
 * back to back in blocks of the arena: arena_alloc rounds every allocation up
 * to 16 bytes, and most such lists hold one to three. Room for n ids, stable
 * once returned; a list reserved first may be filled after later ones. */
typedef struct ArenaIds { uint32_t *cur, *end; } ArenaIds;
uint32_t *arena_ids(Arena *a, ArenaIds *p, uint32_t n);

/* Hands a malloc'ed block to the arena, which frees it with everything else:
 * a large array built by realloc joins the arena without a copy (a copy would
 * hold both at once). Returns p. */
void *arena_adopt(Arena *a, void *p);

/* Growable array living in an arena. Doubling wastes at most the final size again,
 * which is cheaper than a malloc per element and keeps "free the arena" the only
 * cleanup. */
#define ARENA_VEC(T) struct { T *v; uint32_t n, cap; }
void *arena_grow(Arena *a, void *old, uint32_t n, uint32_t *cap, size_t elem);
#define VEC_PUSH(arena, vec, x) do { \
        if ((vec).n == (vec).cap) \
            (vec).v = arena_grow((arena), (vec).v, (vec).n, &(vec).cap, sizeof *(vec).v); \
        (vec).v[(vec).n++] = (x); \
    } while (0)

#endif
