/* The result cache: .pfc_cache/<key>, where the key is an XXH3 hash of the
 * file's bytes, its path, the pfc version and every setting that changes the
 * output. A hit replays the stored output without parsing the file. An entry
 * also lists the project modules the file's facts read, with their hashes:
 * the caller checks them before it trusts the entry.
 *
 * An entry is trusted only if it is a regular file of exactly the size its
 * header announces, with sane counts, the key it was looked up under and an
 * XXH3 checksum of its bytes: anything else (truncated, corrupt, copied from
 * another key, a FIFO) is a miss, and the entry is rewritten. Reading never
 * blocks. A cache that cannot be written is only slower: the first failure
 * disables it for the run with one notice on stderr. */
#ifndef PFC_CACHE_H
#define PFC_CACHE_H
#include "../base/buf.h"
#include <stdbool.h>
#include <stdint.h>

enum { CACHE_MAX_STATS = 32 };

typedef struct CachedResult {
    uint32_t counts[3];
    uint32_t nstats;
    struct { char code[8]; char name[48]; uint32_t n, safe_fixes, unsafe_fixes; } stats[CACHE_MAX_STATS];
    Buf out;
    Buf deps;   /* the project modules its facts read (cli/project.h); empty if none */
} CachedResult;

enum { CACHE_KEY_LEN = 32 };

typedef struct Cache Cache;

/* key = hash(settings, path, bytes) as 32 hex digits */
void cache_key(char key[CACHE_KEY_LEN + 1], uint64_t settings, const char *path,
               const char *src, uint32_t len);
/* Opens the directory, creating it; NULL (after the notice) when it cannot be
 * used. Thread-safe after opening: load and store from any thread. */
Cache *cache_open(const char *dir);
void cache_close(Cache *c);   /* NULL is fine */
bool cache_load(Cache *c, const char *key, CachedResult *r);
/* Writes atomically (temporary file + rename). */
void cache_store(Cache *c, const char *key, const CachedResult *r);

#endif
