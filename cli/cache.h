/* The result cache: .pfc_cache/<key>, where the key is an XXH3 hash of the
 * file's bytes, its path, the pfc version and every setting that changes the
 * output. A hit replays the stored output without parsing the file. */
#ifndef PFC_CACHE_H
#define PFC_CACHE_H
#include "../base/buf.h"
#include <stdbool.h>
#include <stdint.h>

typedef struct CachedResult {
    uint32_t counts[3];
    uint32_t nstats;
    struct { char code[8]; char name[48]; uint32_t n; } stats[32];
    Buf out;
} CachedResult;

enum { CACHE_KEY_LEN = 32 };

/* key = hash(settings, path, bytes) as 32 hex digits */
void cache_key(char key[CACHE_KEY_LEN + 1], uint64_t settings, const char *path,
               const char *src, uint32_t len);
bool cache_load(const char *dir, const char *key, CachedResult *r);
/* Writes atomically (temporary file + rename); failures are silent: a cache
 * that cannot be written is only slower. */
void cache_store(const char *dir, const char *key, const CachedResult *r);

#endif
