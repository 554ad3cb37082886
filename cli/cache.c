#define _GNU_SOURCE
#include "cache.h"
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

struct Cache {
    int dir;                  /* the directory's descriptor: entries are opened relative to it */
    char *path;               /* for the notice */
    atomic_bool disabled;     /* a write failed: stop trying */
    atomic_bool warned;
    atomic_uint serial;       /* temporary names, unique within the run */
};

/* On disk, in this machine's byte order (a foreign entry fails the checks):
 * the head, nstats stats, out_len bytes of output, then deps_len of deps. */
typedef struct EntryHead {
    char magic[8];
    uint64_t checksum;        /* XXH3 of everything after this field */
    char key[CACHE_KEY_LEN];  /* the key it was written for */
    uint32_t counts[3];
    uint32_t nstats;
    uint64_t out_len;
    uint64_t deps_len;
} EntryHead;

typedef struct EntryStat { char code[8]; char name[48]; uint32_t n, safe_fixes, unsafe_fixes; } EntryStat;
_Static_assert(sizeof(EntryStat) == sizeof(((CachedResult *)0)->stats[0]),
               "stats are copied as they are");

static const char MAGIC[8] = "pfc-c\0\0\x04";
enum { MAX_COUNT = 1u << 24, MAX_OUT = 64u << 20 };

void cache_key(char key[CACHE_KEY_LEN + 1], uint64_t settings, const char *path,
               const char *src, uint32_t len)
{
    uint64_t where = XXH3_64bits_withSeed(path, strlen(path), settings);
    XXH128_hash_t h = XXH3_128bits_withSeed(src, len, where);
    snprintf(key, CACHE_KEY_LEN + 1, "%016llx%016llx", (unsigned long long)h.high64,
             (unsigned long long)h.low64);
}

static void disable(Cache *c, const char *what, int err)
{
    atomic_store(&c->disabled, true);
    if (!atomic_exchange(&c->warned, true))
        fprintf(stderr, "pfc: warning: cache disabled for this run: cannot %s %s: %s\n", what,
                c->path, strerror(err));
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
    return c;
}

void cache_close(Cache *c)
{
    if (!c)
        return;
    close(c->dir);
    free(c->path);
    free(c);
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
    if (memcmp(h->magic, MAGIC, sizeof MAGIC) != 0 || memcmp(h->key, key, CACHE_KEY_LEN) != 0 ||
        h->nstats > CACHE_MAX_STATS || h->out_len > MAX_OUT || h->deps_len > MAX_OUT)
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

/* The whole entry, if it is a regular file of a plausible size. */
static char *read_entry(Cache *c, const char *key, size_t *size)
{
    int fd = openat(c->dir, key, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    char *buf = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= (off_t)sizeof(EntryHead) &&
        st.st_size <= (off_t)(sizeof(EntryHead) + sizeof(EntryStat) * CACHE_MAX_STATS + 2 * (off_t)MAX_OUT)) {
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

bool cache_load(Cache *c, const char *key, CachedResult *r)
{
    size_t size;
    char *buf = read_entry(c, key, &size);
    if (!buf)
        return false;
    EntryHead h;
    memcpy(&h, buf, sizeof h);
    const EntryStat *stats = (const EntryStat *)(buf + sizeof h);
    const char *out = buf + sizeof h + h.nstats * sizeof *stats;
    if (!head_sane(&h, key, size) ||
        h.checksum != entry_checksum(&h, stats, out, out + h.out_len) ||
        !stats_sane(stats, h.nstats)) {
        free(buf);
        return false;
    }
    memset(r, 0, sizeof *r);
    buf_put(&r->deps, out + h.out_len, h.deps_len);
    memcpy(r->counts, h.counts, sizeof r->counts);
    r->nstats = h.nstats;
    memcpy(r->stats, stats, h.nstats * sizeof *stats);
    memmove(buf, out, h.out_len);   /* the buffer becomes the output */
    r->out = (Buf){buf, h.out_len, size};
    return true;
}

static bool write_all(int fd, struct iovec *iov, int n)
{
    while (n > 0) {
        ssize_t w = writev(fd, iov, n);
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

void cache_store(Cache *c, const char *key, const CachedResult *r)
{
    if (atomic_load(&c->disabled) || r->nstats > CACHE_MAX_STATS || r->out.n > MAX_OUT ||
        r->deps.n > MAX_OUT)
        return;
    EntryHead h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, MAGIC, sizeof MAGIC);
    memcpy(h.key, key, CACHE_KEY_LEN);
    memcpy(h.counts, r->counts, sizeof h.counts);
    h.nstats = r->nstats;
    h.out_len = r->out.n;
    h.deps_len = r->deps.n;
    EntryStat stats[CACHE_MAX_STATS];
    memset(stats, 0, sizeof stats);
    memcpy(stats, r->stats, r->nstats * sizeof *stats);
    h.checksum = entry_checksum(&h, stats, r->out.v ? r->out.v : "", r->deps.v ? r->deps.v : "");
    char tmp[CACHE_KEY_LEN + 48];
    snprintf(tmp, sizeof tmp, "%s.%ld.%u.tmp", key, (long)getpid(),
             atomic_fetch_add(&c->serial, 1));
    int fd = openat(c->dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0) {
        disable(c, "write to", errno);
        return;
    }
    struct iovec iov[] = {{&h, sizeof h},
                          {stats, r->nstats * sizeof *stats},
                          {r->out.v, r->out.n},
                          {r->deps.v, r->deps.n}};
    bool ok = write_all(fd, iov, 4);
    int err = errno;
    ok = close(fd) == 0 && ok;
    if (ok && renameat(c->dir, tmp, c->dir, key) == 0)
        return;
    err = ok ? errno : err;
    unlinkat(c->dir, tmp, 0);
    disable(c, "write to", err);
}
