#define _DEFAULT_SOURCE
#include "cache.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

void cache_key(char key[CACHE_KEY_LEN + 1], uint64_t settings, const char *path,
               const char *src, uint32_t len)
{
    uint64_t where = XXH3_64bits_withSeed(path, strlen(path), settings);
    XXH128_hash_t h = XXH3_128bits_withSeed(src, len, where);
    snprintf(key, CACHE_KEY_LEN + 1, "%016llx%016llx", (unsigned long long)h.high64,
             (unsigned long long)h.low64);
}

static const char MAGIC[] = "pfc-cache 1\n";

bool cache_load(const char *dir, const char *key, CachedResult *r)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, key);
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    memset(r, 0, sizeof *r);
    char magic[sizeof MAGIC];
    bool ok = fread(magic, 1, sizeof MAGIC - 1, f) == sizeof MAGIC - 1 &&
              memcmp(magic, MAGIC, sizeof MAGIC - 1) == 0 &&
              fscanf(f, "%u %u %u %u\n", &r->counts[0], &r->counts[1], &r->counts[2],
                     &r->nstats) == 4 &&
              r->nstats <= 32;
    for (uint32_t i = 0; ok && i < r->nstats; i++)
        ok = fscanf(f, "%7s %47s %u\n", r->stats[i].code, r->stats[i].name, &r->stats[i].n) == 3;
    size_t n;
    char buf[65536];
    while (ok && (n = fread(buf, 1, sizeof buf, f)) > 0)
        buf_put(&r->out, buf, n);
    ok = ok && !ferror(f);
    fclose(f);
    if (!ok)
        buf_free(&r->out);
    return ok;
}

void cache_store(const char *dir, const char *key, const CachedResult *r)
{
    mkdir(dir, 0777);
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/%s", dir, key);
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid() ^ (long)(uintptr_t)r);
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return;
    fputs(MAGIC, f);
    fprintf(f, "%u %u %u %u\n", r->counts[0], r->counts[1], r->counts[2], r->nstats);
    for (uint32_t i = 0; i < r->nstats; i++)
        fprintf(f, "%s %s %u\n", r->stats[i].code, r->stats[i].name, r->stats[i].n);
    bool ok = buf_write(&r->out, f) && !ferror(f);
    if (fclose(f) != 0 || !ok || rename(tmp, path) != 0)
        unlink(tmp);
}
