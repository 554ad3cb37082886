/* The result cache: .pfc_cache/pack-0 .. pack-f, sixteen packed files. Each
 * holds an index (key -> where the entry lies) and the entries themselves; a
 * run reads a pack with one read the first time one of its keys is looked
 * up, and rewrites, once at the end of the run, only the packs it added
 * entries to. The key is an XXH3 hash of the file's bytes, its path, the pfc
 * version and every setting that changes the output; the pack is chosen by
 * the hash of the path and settings alone, so that the entry an edit
 * supersedes lies in the pack the new one is written to, and is dropped there.
 * A hit replays the stored output without parsing the file. An entry also
 * lists the project modules the file's facts read, with their hashes: the
 * caller checks them before it trusts the entry.
 *
 * A pack is trusted only if it is a regular file whose header (magic, byte
 * order, format, pfc version, size) and index checksum agree; anything else
 * (truncated, garbled, a FIFO, a directory, unreadable) is an empty pack.
 * An entry is trusted only if it lies inside the pack, has sane counts, the
 * key it was looked up under and an XXH3 checksum of its bytes; anything else
 * is a miss, and the entry is rewritten. A rewrite keeps the entries this run
 * used or produced, and older sound ones (files not linted this run) up to
 * CACHE_SHARD_BUDGET bytes per pack, the most recently used first; an older
 * entry for a path this run linted again under the same settings is dropped.
 * A pack is replaced atomically (temporary file + rename): two concurrent
 * runs may lose each other's new entries, never leave a torn pack. Reading
 * never blocks. A cache that cannot be written is only slower: the first
 * failure disables it for the run with one notice on stderr. */
#ifndef PFC_CACHE_H
#define PFC_CACHE_H
#include "../base/buf.h"
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

enum { CACHE_MAX_STATS = 32, CACHE_KEY_LEN = 32, CACHE_SHARDS = 16 };
enum { CACHE_SHARD_BUDGET = 16u << 20 };   /* older entries per pack: 256 MiB in all */
/* Two seconds: coarser than any file system's timestamps that pfc expects
 * (FAT has 2 s) and than the kernel's coarse clock lag behind CLOCK_REALTIME. */
#define CACHE_RACY_NS 2000000000LL

/* What stat() said of a source file: an entry written with a trustworthy
 * stamp is replayed on a later run whose stat of the path is the same,
 * without reading the file (the way git's index trusts a file's stat). */
typedef struct CacheStat { uint64_t dev, ino, size; int64_t mtime_ns, ctime_ns; } CacheStat;

typedef struct CachedResult {
    uint32_t counts[3];
    uint32_t nstats;
    struct { char code[8]; char name[48]; uint32_t n, safe_fixes, unsafe_fixes; } stats[CACHE_MAX_STATS];
    /* loaded: views into the cache's memory, valid until cache_close;
     * stored: copied by cache_store */
    const char *out;
    size_t out_len;
    const char *deps;   /* the project modules its facts read (cli/project.h); empty if none */
    size_t deps_len;
    CacheStat stat;     /* of the source before it was read; all zero: none */
    bool stat_trusted;  /* loaded: stat may stand for the bytes (cache_stat_trusted) */
} CachedResult;

typedef struct CacheKey {
    char hex[CACHE_KEY_LEN + 1];   /* hash(settings, path, bytes) as 32 hex digits */
    uint64_t source;               /* hash(settings, path): which pack, and what supersedes */
} CacheKey;

typedef struct Cache Cache;

/* The key of these bytes at the path and settings `source` (cache_source). */
void cache_key(CacheKey *key, uint64_t source, const char *src, uint32_t len);
uint64_t cache_source(uint64_t settings, const char *path);   /* CacheKey.source */
void cache_stat_of(const struct stat *st, CacheStat *out);
/* Opens the directory, creating it; NULL (after the notice) when it cannot be
 * used. Thread-safe after opening: load and store from any thread. */
Cache *cache_open(const char *dir);
/* Writes the packs that gained entries, then frees the cache (and every view
 * that cache_load returned). NULL is fine. */
void cache_close(Cache *c);
/* The entry for exactly these bytes. With `now` (the stat taken before the
 * bytes were read), a hit whose stored stamp differs or was not trusted is
 * stored again with `now` when that one can be trusted, if its pack is
 * rewritten for a new entry anyway: a later run needs no read (a touched but
 * unchanged file), and a run of hits alone writes nothing. */
bool cache_load(Cache *c, const CacheKey *key, const CacheStat *now, CachedResult *r);
/* The entry for the path (settings, path: `source`) if it was stored with a
 * trusted stamp equal to `now`: the file's bytes are not needed. */
bool cache_load_stat(Cache *c, uint64_t source, const CacheStat *now, CachedResult *r);
/* Can `st` stand for a file's bytes? Only if the file's mtime and ctime are
 * older than this run's start by more than CACHE_RACY_NS: a write in the same
 * timestamp tick as the read would otherwise leave the stamp unchanged (git
 * calls such an entry racy); a racy file is read and hashed every run. */
bool cache_stat_trusted(const Cache *c, const CacheStat *st);
/* The stats this cache is given were taken at or after `ns` (cache_now_ns()
 * then), not only after cache_open: what is racy is judged from there. */
void cache_stats_since(Cache *c, int64_t ns);
int64_t cache_now_ns(void);   /* CLOCK_REALTIME */
/* Stores r; r->stat is kept as trusted when cache_stat_trusted says so. */
void cache_store(Cache *c, const CacheKey *key, const CachedResult *r);
/* pfc debug-cache: each pack of the directory, its generation and entries
 * (key, offset, size, the generations that wrote and last used it, and
 * whether it passes its checks, and "stamped" when its source's stat can
 * stand for its bytes); returns 0, or 2 if the directory cannot be read. */
int cache_list(const char *dir, FILE *out);

#endif
