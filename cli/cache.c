#define _GNU_SOURCE
#include "cache.h"
#include "cli.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

/* ---- the formats ------------------------------------------------------------------------ */

/* On disk, in this machine's byte order. A pack: PackHead, count slots, then
 * the entries, each at an offset that is a multiple of 8. */
typedef struct PackHead {
    char magic[8];
    uint64_t checksum;        /* XXH3 of the head past this field, then the index */
    uint32_t byte_order;      /* BYTE_ORDER_MARK as its writer stored it */
    uint32_t format;          /* PACK_FORMAT */
    char version[16];         /* PFC_VERSION: another version's keys never match */
    uint64_t size;            /* of the whole file */
    uint32_t generation;      /* rewrites of this pack: how old an entry is */
    uint32_t count;           /* slots in the index */
} PackHead;

typedef struct PackSlot {
    char key[CACHE_KEY_LEN];
    uint64_t source;          /* CacheKey.source */
    uint64_t offset, size;    /* of the entry in the pack */
    uint32_t born, used;      /* the generations that wrote it and last replayed it */
} PackSlot;
_Static_assert(sizeof(PackHead) % 8 == 0 && sizeof(PackSlot) == 64, "slots stay aligned");

/* An entry: the head, nstats stats, out_len bytes of output, then deps_len
 * of deps (the same bytes a per-file entry held before the packs). */
typedef struct EntryHead {
    char magic[8];
    uint64_t checksum;        /* XXH3 of everything after this field */
    char key[CACHE_KEY_LEN];  /* the key it was written for */
    uint32_t counts[3];
    uint32_t nstats;
    uint64_t out_len;
    uint64_t deps_len;
    CacheStat stat;           /* of the source before it was read */
    uint32_t stat_trusted;    /* 1: stat may stand for the bytes (older than the run) */
    uint32_t unused;
} EntryHead;

typedef struct EntryStat { char code[8]; char name[48]; uint32_t n, safe_fixes, unsafe_fixes; } EntryStat;
_Static_assert(sizeof(EntryStat) == sizeof(((CachedResult *)0)->stats[0]),
               "stats are copied as they are");

static const char PACK_MAGIC[8] = "pfc-pack";
static const char ENTRY_MAGIC[8] = "pfc-c\0\0\x05";
enum { BYTE_ORDER_MARK = 0x01020304, PACK_FORMAT = 2 };
enum { MAX_COUNT = 1u << 24, MAX_OUT = 64u << 20 };
#define MAX_PACK ((size_t)1 << 31)   /* a larger file is not one pfc wrote */

/* ---- the run's view of the packs ------------------------------------------------------- */

enum { SLOT_UNTOUCHED, SLOT_HIT, SLOT_REPLACED };

typedef struct Stored { PackSlot slot; char *bytes; } Stored;   /* written by this run */

typedef struct Shard {
    pthread_mutex_t lock;
    bool loaded;              /* read (or found absent or damaged) */
    char *pack;               /* the file's bytes; NULL: no usable pack */
    uint32_t generation;
    const PackSlot *slots;    /* into pack */
    uint32_t nslots;
    uint8_t *state;           /* per slot: SLOT_* */
    uint32_t *table;          /* open addressing: slot index + 1, 0 empty */
    uint32_t *by_source;      /* the same, by PackSlot.source (the first slot of each) */
    uint32_t mask;
    Stored *stored;
    size_t nstored, capstored;
    size_t nfresh;            /* stored that are not restamps: only these make a rewrite */
} Shard;

struct Cache {
    int dir;                  /* the directory's descriptor: packs are opened relative to it */
    char *path;               /* for the notice */
    atomic_bool disabled;     /* a write failed: stop trying */
    atomic_bool warned;
    int64_t start_ns;         /* CLOCK_REALTIME at cache_open or cache_stats_since: what is racy */
    Shard shards[CACHE_SHARDS];
};

uint64_t cache_source(uint64_t settings, const char *path)
{
    return XXH3_64bits_withSeed(path, strlen(path), settings);
}

void cache_key(CacheKey *key, uint64_t source, const char *src, uint32_t len)
{
    key->source = source;
    XXH128_hash_t h = XXH3_128bits_withSeed(src, len, key->source);
    snprintf(key->hex, sizeof key->hex, "%016llx%016llx", (unsigned long long)h.high64,
             (unsigned long long)h.low64);
}

void cache_stat_of(const struct stat *st, CacheStat *out)
{
    *out = (CacheStat){(uint64_t)st->st_dev, (uint64_t)st->st_ino, (uint64_t)st->st_size,
                       (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec,
                       (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec};
}

static bool stat_known(const CacheStat *st)
{
    return st->dev || st->ino || st->size || st->mtime_ns || st->ctime_ns;
}

int64_t cache_now_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

void cache_stats_since(Cache *c, int64_t ns)
{
    if (ns < c->start_ns)
        c->start_ns = ns;
}

bool cache_stat_trusted(const Cache *c, const CacheStat *st)
{
    return stat_known(st) && st->mtime_ns < c->start_ns - CACHE_RACY_NS &&
           st->ctime_ns < c->start_ns - CACHE_RACY_NS;
}

static bool same_stat(const CacheStat *a, const CacheStat *b)
{
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
           a->mtime_ns == b->mtime_ns && a->ctime_ns == b->ctime_ns;
}

static void disable(Cache *c, const char *what, int err)
{
    atomic_store(&c->disabled, true);
    if (!atomic_exchange(&c->warned, true))
        fprintf(stderr, "pfc: warning: cache disabled for this run: cannot %s %s: %s\n", what,
                c->path, strerror(err));
}

static void shard_name(char name[8], unsigned i)
{
    snprintf(name, 8, "pack-%x", i);
}

Cache *cache_open(const char *dir)
{
    Cache *c = calloc(1, sizeof *c);
    if (!c || !(c->path = strdup(dir)))
        abort();
    const char *what = "create";
    int err = mkdir(dir, 0777) == 0 || errno == EEXIST ? 0 : errno;
    if (!err && (c->dir = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        what = "open";
        err = errno;
    }
    if (err) {
        disable(c, what, err);
        free(c->path);
        free(c);
        return NULL;
    }
    c->start_ns = cache_now_ns();
    for (int i = 0; i < CACHE_SHARDS; i++)
        pthread_mutex_init(&c->shards[i].lock, NULL);
    return c;
}

/* ---- reading --------------------------------------------------------------------------- */

/* The whole file, if it is a regular file of at least min and at most max
 * bytes; NULL otherwise (absent, a FIFO, a directory, unreadable, short). */
static char *read_regular(int dir, const char *name, size_t min, size_t max, size_t *size)
{
    int fd = openat(dir, name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    char *buf = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size >= min &&
        (size_t)st.st_size <= max) {
        *size = (size_t)st.st_size;
        if (!(buf = malloc(*size)))
            abort();
        size_t n = 0;
        ssize_t got;
        while (n < *size && ((got = read(fd, buf + n, *size - n)) > 0 || (got < 0 && errno == EINTR)))
            n += got > 0 ? (size_t)got : 0;
        if (n < *size) {
            free(buf);
            buf = NULL;
        }
    }
    close(fd);
    return buf;
}

static uint64_t pack_checksum(const PackHead *h, const PackSlot *slots, uint32_t n)
{
    XXH3_state_t st;
    XXH3_64bits_reset(&st);
    size_t skip = offsetof(PackHead, byte_order);
    XXH3_64bits_update(&st, (const char *)h + skip, sizeof *h - skip);
    XXH3_64bits_update(&st, slots, (size_t)n * sizeof *slots);
    return XXH3_64bits_digest(&st);
}

static void version_field(char v[16])
{
    memset(v, 0, 16);
    memcpy(v, PFC_VERSION, strlen(PFC_VERSION) < 16 ? strlen(PFC_VERSION) : 16);
}

/* Every slot points at whole, aligned bytes after the index. */
static bool slots_inside(const PackSlot *s, uint32_t n, uint64_t size)
{
    uint64_t first = sizeof(PackHead) + (uint64_t)n * sizeof *s;
    for (uint32_t i = 0; i < n; i++)
        if (s[i].offset < first || s[i].offset % 8 || s[i].offset > size ||
            s[i].size < sizeof(EntryHead) || s[i].size > size - s[i].offset)
            return false;
    return true;
}

/* A pack this pfc wrote on this machine, whole: header and index. */
static bool pack_sane(const char *bytes, size_t size)
{
    PackHead h;
    memcpy(&h, bytes, sizeof h);
    char version[16];
    version_field(version);
    if (memcmp(h.magic, PACK_MAGIC, sizeof h.magic) != 0 || h.byte_order != BYTE_ORDER_MARK ||
        h.format != PACK_FORMAT || memcmp(h.version, version, sizeof version) != 0 ||
        h.size != size || h.count > (size - sizeof h) / sizeof(PackSlot))
        return false;
    const PackSlot *slots = (const PackSlot *)(bytes + sizeof h);
    return h.checksum == pack_checksum(&h, slots, h.count) && slots_inside(slots, h.count, size);
}

static uint32_t key_slot(const char *key, uint32_t mask)
{
    return (uint32_t)XXH3_64bits(key, CACHE_KEY_LEN) & mask;
}

/* The slot holding key, or -1. */
static int64_t shard_find(const Shard *s, const char *key)
{
    if (!s->table)
        return -1;
    for (uint32_t i = key_slot(key, s->mask);; i = (i + 1) & s->mask) {
        uint32_t at = s->table[i];
        if (!at)
            return -1;
        if (memcmp(s->slots[at - 1].key, key, CACHE_KEY_LEN) == 0)
            return at - 1;
    }
}

static uint32_t source_slot(uint64_t source, uint32_t mask)
{
    return (uint32_t)XXH3_64bits(&source, sizeof source) & mask;
}

/* The first slot for source, or -1. */
static int64_t shard_find_source(const Shard *s, uint64_t source)
{
    if (!s->by_source)
        return -1;
    for (uint32_t i = source_slot(source, s->mask);; i = (i + 1) & s->mask) {
        uint32_t at = s->by_source[i];
        if (!at)
            return -1;
        if (s->slots[at - 1].source == source)
            return at - 1;
    }
}

/* The hash tables over the index; a key (or a source) listed twice keeps
 * its first slot. */
static void shard_index(Shard *s)
{
    uint32_t cap = 16;
    while (cap < 2 * (uint64_t)s->nslots)
        cap *= 2;
    s->mask = cap - 1;
    if (!(s->table = calloc(cap, sizeof *s->table)) ||
        !(s->by_source = calloc(cap, sizeof *s->by_source)) || !(s->state = calloc(s->nslots + 1, 1)))
        abort();
    for (uint32_t k = 0; k < s->nslots; k++) {
        if (shard_find(s, s->slots[k].key) < 0) {
            uint32_t i = key_slot(s->slots[k].key, s->mask);
            while (s->table[i])
                i = (i + 1) & s->mask;
            s->table[i] = k + 1;
        }
        if (shard_find_source(s, s->slots[k].source) < 0) {
            uint32_t i = source_slot(s->slots[k].source, s->mask);
            while (s->by_source[i])
                i = (i + 1) & s->mask;
            s->by_source[i] = k + 1;
        }
    }
}

/* Reads pack i the first time it is needed (its lock held). A pack that is
 * not sound is no pack: its entries are misses, and it is rewritten. */
static void shard_load(Cache *c, Shard *s, unsigned i)
{
    s->loaded = true;
    char name[8];
    shard_name(name, i);
    size_t size;
    char *bytes = read_regular(c->dir, name, sizeof(PackHead), MAX_PACK, &size);
    if (bytes && !pack_sane(bytes, size)) {
        free(bytes);
        bytes = NULL;
    }
    if (!bytes)
        return;
    PackHead h;
    memcpy(&h, bytes, sizeof h);
    s->pack = bytes;
    s->generation = h.generation;
    s->slots = (const PackSlot *)(bytes + sizeof h);
    s->nslots = h.count;
    shard_index(s);
}

static Shard *shard_for(Cache *c, uint64_t source)
{
    unsigned i = (unsigned)(source % CACHE_SHARDS);
    Shard *s = &c->shards[i];
    pthread_mutex_lock(&s->lock);
    if (!s->loaded)
        shard_load(c, s, i);
    return s;
}

/* The checksum of an entry: its head past the checksum field, then the rest. */
static uint64_t entry_checksum(const EntryHead *h, const void *stats, const void *out,
                               const void *deps)
{
    XXH3_state_t st;
    XXH3_64bits_reset(&st);
    size_t skip = offsetof(EntryHead, key);
    XXH3_64bits_update(&st, (const char *)h + skip, sizeof *h - skip);
    XXH3_64bits_update(&st, stats, h->nstats * sizeof(EntryStat));
    XXH3_64bits_update(&st, out, h->out_len);
    XXH3_64bits_update(&st, deps, h->deps_len);
    return XXH3_64bits_digest(&st);
}

static bool head_sane(const EntryHead *h, const char *key, size_t size)
{
    if (memcmp(h->magic, ENTRY_MAGIC, sizeof ENTRY_MAGIC) != 0 ||
        memcmp(h->key, key, CACHE_KEY_LEN) != 0 || h->nstats > CACHE_MAX_STATS ||
        h->out_len > MAX_OUT || h->deps_len > MAX_OUT || h->stat_trusted > 1 || h->unused)
        return false;
    for (int i = 0; i < 3; i++)
        if (h->counts[i] > MAX_COUNT)
            return false;
    return size == sizeof *h + h->nstats * sizeof(EntryStat) + h->out_len + h->deps_len;
}

static bool stats_sane(const EntryStat *s, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (!memchr(s[i].code, 0, sizeof s[i].code) || !memchr(s[i].name, 0, sizeof s[i].name) ||
            s[i].n > MAX_COUNT)
            return false;
    return true;
}

/* The entry at bytes[0..size) as a result, if it passes every check; r may
 * be NULL (only the checks). */
static bool entry_read(const char *bytes, size_t size, const char *key, CachedResult *r)
{
    EntryHead h;
    memcpy(&h, bytes, sizeof h);
    if (!head_sane(&h, key, size))
        return false;
    const char *stats = bytes + sizeof h;
    const char *out = stats + h.nstats * sizeof(EntryStat);
    if (h.checksum != entry_checksum(&h, stats, out, out + h.out_len))
        return false;
    EntryStat st[CACHE_MAX_STATS];
    memcpy(st, stats, h.nstats * sizeof *st);
    if (!stats_sane(st, h.nstats))
        return false;
    if (r) {
        *r = (CachedResult){.nstats = h.nstats, .out = out, .out_len = h.out_len,
                            .deps = out + h.out_len, .deps_len = h.deps_len, .stat = h.stat,
                            .stat_trusted = h.stat_trusted};
        memcpy(r->counts, h.counts, sizeof r->counts);
        memcpy(r->stats, st, h.nstats * sizeof *st);
    }
    return true;
}

static void store_entry(Cache *c, const CacheKey *key, const CachedResult *r, bool fresh);

bool cache_load(Cache *c, const CacheKey *key, const CacheStat *now, CachedResult *r)
{
    Shard *s = shard_for(c, key->source);
    int64_t k = shard_find(s, key->hex);
    bool hit = k >= 0 && s->slots[k].source == key->source &&
               entry_read(s->pack + s->slots[k].offset, s->slots[k].size, key->hex, r);
    if (hit)
        s->state[k] = SLOT_HIT;
    pthread_mutex_unlock(&s->lock);
    if (hit && now && !(r->stat_trusted && same_stat(&r->stat, now)) && cache_stat_trusted(c, now)) {
        CachedResult again = *r;   /* the views stay valid: the pack is kept until close */
        again.stat = *now;
        store_entry(c, key, &again, false);
    }
    return hit;
}

/* The entry's stamp, trusted and equal to `now`: tested before the entry's
 * checksum, which a changed file would make wasted work (the slot lies
 * inside the pack and holds at least a head: slots_inside). */
static bool stamp_matches(const char *bytes, const CacheStat *now)
{
    EntryHead h;
    memcpy(&h, bytes, sizeof h);
    return h.stat_trusted == 1 && same_stat(&h.stat, now);
}

bool cache_load_stat(Cache *c, uint64_t source, const CacheStat *now, CachedResult *r)
{
    Shard *s = shard_for(c, source);
    int64_t k = shard_find_source(s, source);
    bool hit = k >= 0 && shard_find(s, s->slots[k].key) == k &&
               stamp_matches(s->pack + s->slots[k].offset, now) &&
               entry_read(s->pack + s->slots[k].offset, s->slots[k].size, s->slots[k].key, r);
    if (hit)
        s->state[k] = SLOT_HIT;
    pthread_mutex_unlock(&s->lock);
    return hit;
}

/* ---- storing --------------------------------------------------------------------------- */

static char *entry_bytes(const char *key, const CachedResult *r, bool trusted, size_t *size)
{
    EntryHead h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, ENTRY_MAGIC, sizeof ENTRY_MAGIC);
    memcpy(h.key, key, CACHE_KEY_LEN);
    memcpy(h.counts, r->counts, sizeof h.counts);
    h.nstats = r->nstats;
    h.out_len = r->out_len;
    h.deps_len = r->deps_len;
    h.stat = r->stat;
    h.stat_trusted = trusted;
    EntryStat stats[CACHE_MAX_STATS];
    memset(stats, 0, sizeof stats);
    memcpy(stats, r->stats, r->nstats * sizeof *stats);
    h.checksum = entry_checksum(&h, stats, r->out ? r->out : "", r->deps ? r->deps : "");
    *size = sizeof h + r->nstats * sizeof *stats + r->out_len + r->deps_len;
    char *b = malloc(*size), *p = b;
    if (!b)
        abort();
    memcpy(p, &h, sizeof h);
    memcpy(p += sizeof h, stats, r->nstats * sizeof *stats);
    if (r->out_len)
        memcpy(p += r->nstats * sizeof *stats, r->out, r->out_len);
    else
        p += r->nstats * sizeof *stats;
    if (r->deps_len)
        memcpy(p + r->out_len, r->deps, r->deps_len);
    return b;
}

/* fresh: a new result, which rewrites the pack; else a restamp (the same
 * result with a newer stamp), kept only if the pack is rewritten anyway: a
 * run whose every file hit leaves the cache as it was (a pre-commit hook
 * with the cache in the repository sees no file change). */
static void store_entry(Cache *c, const CacheKey *key, const CachedResult *r, bool fresh)
{
    if (atomic_load(&c->disabled) || r->nstats > CACHE_MAX_STATS || r->out_len > MAX_OUT ||
        r->deps_len > MAX_OUT)
        return;
    Stored e = {{.source = key->source}, NULL};
    memcpy(e.slot.key, key->hex, CACHE_KEY_LEN);
    size_t size;
    e.bytes = entry_bytes(key->hex, r, cache_stat_trusted(c, &r->stat), &size);   /* outside the lock */
    e.slot.size = size;
    Shard *s = shard_for(c, key->source);
    int64_t k = shard_find(s, key->hex);
    if (k >= 0)
        s->state[k] = SLOT_REPLACED;
    if (s->nstored == s->capstored) {
        s->capstored = s->capstored ? 2 * s->capstored : 64;
        if (!(s->stored = realloc(s->stored, s->capstored * sizeof *s->stored)))
            abort();
    }
    s->stored[s->nstored++] = e;
    s->nfresh += fresh;
    pthread_mutex_unlock(&s->lock);
}

void cache_store(Cache *c, const CacheKey *key, const CachedResult *r)
{
    store_entry(c, key, r, true);
}

/* ---- rewriting a pack ------------------------------------------------------------------ */

typedef struct Out { PackSlot slot; const char *bytes; } Out;   /* an entry of the new pack */
typedef struct OutList { Out *v; size_t n, cap; uint64_t bytes; } OutList;

static void out_add(OutList *l, PackSlot slot, const char *bytes)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        if (!(l->v = realloc(l->v, l->cap * sizeof *l->v)))
            abort();
    }
    l->v[l->n++] = (Out){slot, bytes};
    l->bytes += (slot.size + 7) & ~(uint64_t)7;
}

static bool same_key(const Stored *a, const Stored *b)
{
    return memcmp(a->slot.key, b->slot.key, CACHE_KEY_LEN) == 0;
}

/* By key, then in the order stored (kept in slot.offset until laid out). */
static int by_key_then_order(const void *a, const void *b)
{
    const PackSlot *x = &((const Stored *)a)->slot, *y = &((const Stored *)b)->slot;
    int d = memcmp(x->key, y->key, CACHE_KEY_LEN);
    return d ? d : (x->offset > y->offset) - (x->offset < y->offset);
}

/* Most recently used first; the key breaks ties, so that the pack is the
 * same whatever order the run looked things up in. */
static int by_recency(const void *a, const void *b)
{
    const PackSlot *x = &((const Out *)a)->slot, *y = &((const Out *)b)->slot;
    if (x->used != y->used)
        return x->used > y->used ? -1 : 1;
    return memcmp(x->key, y->key, CACHE_KEY_LEN);
}

/* A set of sources (open addressing; 0 stands for itself in its own flag). */
typedef struct SourceSet { uint64_t *v; size_t mask; bool zero; } SourceSet;

static void source_add(SourceSet *set, uint64_t x)
{
    if (!x) {
        set->zero = true;
        return;
    }
    size_t i = (size_t)XXH3_64bits(&x, sizeof x) & set->mask;
    while (set->v[i] && set->v[i] != x)
        i = (i + 1) & set->mask;
    set->v[i] = x;
}

static bool source_has(const SourceSet *set, uint64_t x)
{
    if (!x)
        return set->zero;
    for (size_t i = (size_t)XXH3_64bits(&x, sizeof x) & set->mask; set->v[i]; i = (i + 1) & set->mask)
        if (set->v[i] == x)
            return true;
    return false;
}

/* This run's entries: the stored ones (the last of a key stored twice) and
 * the hits; the set of their sources. */
static void gather_current(Shard *s, uint32_t gen, OutList *l, SourceSet *set)
{
    size_t cap = 16;
    while (cap < 2 * (s->nstored + s->nslots))
        cap *= 2;
    *set = (SourceSet){calloc(cap, sizeof *set->v), cap - 1, false};
    if (!set->v)
        abort();
    for (size_t i = 0; i < s->nstored; i++)   /* the later store of a key wins */
        s->stored[i].slot.offset = i;
    qsort(s->stored, s->nstored, sizeof *s->stored, by_key_then_order);
    for (size_t i = 0; i < s->nstored; i++) {
        if (i + 1 < s->nstored && same_key(&s->stored[i], &s->stored[i + 1]))
            continue;
        PackSlot slot = s->stored[i].slot;
        slot.born = slot.used = gen;
        out_add(l, slot, s->stored[i].bytes);
        source_add(set, slot.source);
    }
    for (uint32_t k = 0; k < s->nslots; k++)
        if (s->state[k] == SLOT_HIT) {
            PackSlot slot = s->slots[k];
            slot.used = gen;
            out_add(l, slot, s->pack + slot.offset);
            source_add(set, slot.source);
        }
}

/* Older entries still sound whose file this run did not lint again under
 * the same settings, most recently used first, up to the budget. */
static void gather_older(const Shard *s, const SourceSet *current, OutList *l)
{
    OutList older = {0};
    for (uint32_t k = 0; k < s->nslots; k++) {
        const PackSlot *slot = &s->slots[k];
        if (s->state[k] == SLOT_UNTOUCHED && !source_has(current, slot->source) &&
            shard_find(s, slot->key) == k &&
            entry_read(s->pack + slot->offset, slot->size, slot->key, NULL))
            out_add(&older, *slot, s->pack + slot->offset);
    }
    if (older.n)
        qsort(older.v, older.n, sizeof *older.v, by_recency);
    uint64_t kept = 0;
    for (size_t i = 0; i < older.n; i++) {
        uint64_t size = (older.v[i].slot.size + 7) & ~(uint64_t)7;
        if (kept + size > CACHE_SHARD_BUDGET)
            break;
        kept += size;
        out_add(l, older.v[i].slot, older.v[i].bytes);
    }
    free(older.v);
}

static bool write_all(int fd, struct iovec *iov, int n)
{
    while (n > 0) {
        ssize_t w = writev(fd, iov, n < IOV_MAX ? n : IOV_MAX);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return false;
        for (; n > 0 && (size_t)w >= iov->iov_len; n--, iov++)
            w -= (ssize_t)iov->iov_len;
        if (n > 0) {
            iov->iov_base = (char *)iov->iov_base + w;
            iov->iov_len -= (size_t)w;
        }
    }
    return true;
}

/* The index (offsets assigned in list order) and the head over it. */
static PackSlot *lay_out(OutList *l, uint32_t gen, PackHead *h)
{
    PackSlot *index = malloc((l->n + 1) * sizeof *index);
    if (!index)
        abort();
    uint64_t at = sizeof *h + l->n * sizeof *index;
    for (size_t i = 0; i < l->n; i++) {
        index[i] = l->v[i].slot;
        index[i].offset = at;
        at += (index[i].size + 7) & ~(uint64_t)7;
    }
    memset(h, 0, sizeof *h);
    memcpy(h->magic, PACK_MAGIC, sizeof h->magic);
    h->byte_order = BYTE_ORDER_MARK;
    h->format = PACK_FORMAT;
    version_field(h->version);
    h->size = at;
    h->generation = gen;
    h->count = (uint32_t)l->n;
    h->checksum = pack_checksum(h, index, h->count);
    return index;
}

/* Head, index, then each entry padded to 8 bytes, in batches of iovecs. */
static bool write_pack(int fd, const PackHead *h, const PackSlot *index, const OutList *l)
{
    static const char zeros[8];
    enum { BATCH = 512 };
    struct iovec iov[2 * BATCH + 2];
    int n = 0;
    iov[n++] = (struct iovec){(void *)h, sizeof *h};
    iov[n++] = (struct iovec){(void *)index, l->n * sizeof *index};
    for (size_t i = 0; i < l->n; i++) {
        iov[n++] = (struct iovec){(void *)l->v[i].bytes, l->v[i].slot.size};
        size_t pad = (8 - l->v[i].slot.size % 8) % 8;
        if (pad)
            iov[n++] = (struct iovec){(void *)zeros, pad};
        if (n >= 2 * BATCH) {
            if (!write_all(fd, iov, n))
                return false;
            n = 0;
        }
    }
    return write_all(fd, iov, n);
}

/* Replaces pack i with this run's entries and the older ones kept. */
static void shard_write(Cache *c, Shard *s, unsigned i)
{
    uint32_t gen = s->generation + 1;
    OutList l = {0};
    SourceSet current;
    gather_current(s, gen, &l, &current);
    gather_older(s, &current, &l);
    free(current.v);
    PackHead h;
    PackSlot *index = lay_out(&l, gen, &h);
    char name[8], tmp[64];
    shard_name(name, i);
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", name, (long)getpid());
    int fd = openat(c->dir, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
    int err = errno;
    bool ok = fd >= 0 && write_pack(fd, &h, index, &l);
    err = fd < 0 || ok ? err : errno;
    if (fd >= 0 && close(fd) != 0 && ok) {
        ok = false;
        err = errno;
    }
    if (ok && renameat(c->dir, tmp, c->dir, name) != 0) {
        ok = false;
        err = errno;
    }
    if (!ok) {
        if (fd >= 0)
            unlinkat(c->dir, tmp, 0);
        disable(c, "write to", err);
    }
    free(index);
    free(l.v);
}

static void shard_free(Shard *s)
{
    for (size_t i = 0; i < s->nstored; i++)
        free(s->stored[i].bytes);
    free(s->stored);
    free(s->pack);
    free(s->state);
    free(s->table);
    free(s->by_source);
    pthread_mutex_destroy(&s->lock);
}

void cache_close(Cache *c)
{
    if (!c)
        return;
    for (unsigned i = 0; i < CACHE_SHARDS; i++) {
        Shard *s = &c->shards[i];
        if (s->nfresh && !atomic_load(&c->disabled))
            shard_write(c, s, i);
        shard_free(s);
    }
    close(c->dir);
    free(c->path);
    free(c);
}

/* ---- pfc debug-cache ------------------------------------------------------------------- */

static void list_pack(FILE *out, const char *name, const char *bytes, size_t size)
{
    if (!pack_sane(bytes, size)) {
        fprintf(out, "%s: %zu bytes, not a sound pack (ignored)\n", name, size);
        return;
    }
    PackHead h;
    memcpy(&h, bytes, sizeof h);
    fprintf(out, "%s: %zu bytes, generation %u, %u entries\n", name, size, h.generation, h.count);
    const PackSlot *slots = (const PackSlot *)(bytes + sizeof h);
    for (uint32_t k = 0; k < h.count; k++) {
        const PackSlot *s = &slots[k];
        CachedResult r;
        bool sound = entry_read(bytes + s->offset, s->size, s->key, &r);
        fprintf(out, "  %.32s offset %llu size %llu born %u used %u%s\n", s->key,
                (unsigned long long)s->offset, (unsigned long long)s->size, s->born, s->used,
                !sound ? " damaged" : r.stat_trusted ? " stamped" : "");
    }
}

int cache_list(const char *dir, FILE *out)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "pfc: cannot read %s: %s\n", dir, strerror(errno));
        return EXIT_USAGE;
    }
    for (unsigned i = 0; i < CACHE_SHARDS; i++) {
        char name[8];
        shard_name(name, i);
        size_t size;
        char *bytes = read_regular(fd, name, 0, MAX_PACK, &size);
        if (bytes && size < sizeof(PackHead))
            fprintf(out, "%s: %zu bytes, not a sound pack (ignored)\n", name, size);
        else if (bytes)
            list_pack(out, name, bytes, size);
        else if (faccessat(fd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
            fprintf(out, "%s: not a readable regular file (ignored)\n", name);
        free(bytes);
    }
    close(fd);
    return 0;
}
