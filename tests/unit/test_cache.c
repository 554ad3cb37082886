/* Unit tests for cli/cache.c, the packed result cache: entries round-trip;
 * a pack damaged in any way (cut at every length, any byte flipped, entries
 * swapped, a foreign byte order, format or version, slots pointing outside,
 * a FIFO or a directory in its place) gives misses, never a wrong hit or a
 * hang; a rewrite keeps older entries of other files and drops the one an
 * edit superseded; a source's stat stands for its bytes only when it is the
 * same in every field and was not racy. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "../../cli/cache.h"

/* The pack layout the tests poke at (cli/cache.c): a 56-byte head, 64-byte
 * slots, entries with an 80-byte head. */
enum { HEAD = 56, SLOT = 64, ENTRY_HEAD = 128, OFF_ORDER = 16, OFF_FORMAT = 20, OFF_VERSION = 24,
       OFF_COUNT = 52, SLOT_OFFSET = 40 };

typedef struct Sample { const char *path, *src, *out, *deps; CacheKey key; } Sample;

static char dir[64];

static int make_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/pfc-cache-test.XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void pack_path(char *p, size_t n, unsigned shard)
{
    snprintf(p, n, "%s/pack-%x", dir, shard);
}

static unsigned shard_of(const CacheKey *k)
{
    return (unsigned)(k->source % CACHE_SHARDS);
}

/* n samples whose paths all fall in the same pack, as pack 0 of the tests. */
static void samples_in_one_pack(Sample *s, int n, const char *const *outs)
{
    static char paths[64][32];
    int found = 0;
    unsigned want = 0;
    for (int i = 0; found < n && i < 4096; i++) {
        snprintf(paths[found], sizeof paths[found], "f%d.py", i);
        CacheKey k;
        cache_key(&k, cache_source(7, paths[found]), "x = 1\n", 6);
        if (shard_of(&k) != want)
            continue;
        s[found] = (Sample){paths[found], "x = 1\n", outs[found], found ? "F 0000000000000001 m.py\n" : "", k};
        found++;
    }
    assert_int_equal(found, n);
}

static CachedResult result_of(const Sample *s, uint32_t findings)
{
    CachedResult r;
    memset(&r, 0, sizeof r);
    r.counts[1] = findings;
    r.nstats = findings ? 1 : 0;
    snprintf(r.stats[0].code, sizeof r.stats[0].code, "TG001");
    snprintf(r.stats[0].name, sizeof r.stats[0].name, "some-rule");
    r.stats[0].n = findings;
    r.out = s->out;
    r.out_len = strlen(s->out);
    r.deps = s->deps;
    r.deps_len = strlen(s->deps);
    return r;
}

/* One run storing samples [from, to), sample i with i findings. */
static void store_range(const Sample *s, int from, int to)
{
    Cache *c = cache_open(dir);
    assert_non_null(c);
    for (int i = from; i < to; i++) {
        CachedResult r = result_of(&s[i], (uint32_t)i);
        cache_store(c, &s[i].key, &r);
    }
    cache_close(c);
}

static void store_all(const Sample *s, int n)
{
    store_range(s, 0, n);
}

/* How many samples hit; each hit must carry exactly what was stored. */
static int hits(const Sample *s, int n, int *which)
{
    Cache *c = cache_open(dir);
    assert_non_null(c);
    int h = 0;
    for (int i = 0; i < n; i++) {
        CachedResult r;
        if (which)
            which[i] = 0;
        if (!cache_load(c, &s[i].key, NULL, &r))
            continue;
        CachedResult want = result_of(&s[i], (uint32_t)i);
        assert_memory_equal(r.counts, want.counts, sizeof r.counts);
        assert_int_equal(r.nstats, want.nstats);
        if (r.nstats)
            assert_memory_equal(&r.stats[0], &want.stats[0], sizeof r.stats[0]);
        assert_int_equal(r.out_len, want.out_len);
        assert_memory_equal(r.out, want.out, r.out_len);
        assert_int_equal(r.deps_len, want.deps_len);
        assert_memory_equal(r.deps, want.deps, r.deps_len);
        h++;
        if (which)
            which[i] = 1;
    }
    cache_close(c);   /* nothing stored: no pack is rewritten */
    return h;
}

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    rewind(f);
    char *b = malloc(*n + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, *n, f), *n);
    fclose(f);
    return b;
}

static void spill(const char *path, const char *b, size_t n)
{
    unlink(path);   /* it may be a FIFO or a directory from a previous test */
    rmdir(path);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, n, f), n);
    fclose(f);
}

/* Re-seals the head and index after a change, as a writer would have: the
 * checksum (bytes 8..16) is XXH3 of bytes 16 .. end of the index (or of the
 * file, for a count too large for it). */
static void reseal(char *b, size_t n)
{
    uint32_t count;
    memcpy(&count, b + OFF_COUNT, 4);
    size_t index = (size_t)count * SLOT < n - HEAD ? (size_t)count * SLOT : n - HEAD;
    uint64_t sum = XXH3_64bits(b + 16, HEAD - 16 + index);
    memcpy(b + 8, &sum, 8);
}

/* The slot of a sample's entry (slots are in no particular order). */
static int slot_of(const char *pack, const Sample *s, uint64_t *off, uint64_t *size)
{
    uint32_t count;
    memcpy(&count, pack + OFF_COUNT, 4);
    for (uint32_t k = 0; k < count; k++) {
        const char *slot = pack + HEAD + (size_t)k * SLOT;
        if (memcmp(slot, s->key.hex, CACHE_KEY_LEN) == 0) {
            memcpy(off, slot + SLOT_OFFSET, 8);
            memcpy(size, slot + SLOT_OFFSET + 8, 8);
            return (int)k;
        }
    }
    fail_msg("no slot for %s", s->path);
    return -1;
}

static const char *const OUTS[] = {"a.py:1:1: TG001 one\n", "bbbb\n", "cccc\n"};

static void test_round_trip(void **state)
{
    (void)state;
    Sample s[3];
    samples_in_one_pack(s, 3, OUTS);
    store_all(s, 3);
    assert_int_equal(hits(s, 3, NULL), 3);
    assert_int_equal(hits(s, 3, NULL), 3);   /* a run of hits leaves the pack as it was */
}

static void test_cut_at_every_length(void **state)
{
    (void)state;
    Sample s[3];
    samples_in_one_pack(s, 3, OUTS);
    store_all(s, 3);
    char path[96];
    pack_path(path, sizeof path, shard_of(&s[0].key));
    size_t n;
    char *pack = slurp(path, &n);
    for (size_t len = 0; len < n; len++) {   /* the head's size no longer matches */
        spill(path, pack, len);
        assert_int_equal(hits(s, 3, NULL), 0);
    }
    spill(path, pack, n);
    assert_int_equal(hits(s, 3, NULL), 3);
    free(pack);
}

/* A flipped byte in the head or the index loses the pack; one in an entry
 * loses that entry; one in the padding between entries loses nothing. A hit
 * is always exact (hits() checks). */
static void test_every_byte_flipped(void **state)
{
    (void)state;
    Sample s[3];
    samples_in_one_pack(s, 3, OUTS);
    store_all(s, 3);
    char path[96];
    pack_path(path, sizeof path, shard_of(&s[0].key));
    size_t n;
    char *pack = slurp(path, &n);
    uint64_t off[3], size[3];
    for (int i = 0; i < 3; i++)
        slot_of(pack, &s[i], &off[i], &size[i]);
    for (size_t p = 0; p < n; p++) {
        pack[p] ^= 0x5a;
        spill(path, pack, n);
        int which[3];
        int h = hits(s, 3, which);
        if (p < HEAD + 3 * SLOT)
            assert_int_equal(h, 0);
        for (int i = 0; i < 3; i++) {
            bool inside = p >= off[i] && p < off[i] + size[i];
            int wrong = p < HEAD + 3 * SLOT || inside;
            assert_int_equal(which[i], !wrong);
        }
        pack[p] ^= 0x5a;
    }
    free(pack);
}

/* Two entries of the same size, each holding the other's bytes: the key an
 * entry was written for tells them apart. */
static void test_entries_swapped(void **state)
{
    (void)state;
    Sample s[3];
    samples_in_one_pack(s, 3, OUTS);
    store_all(s, 3);
    char path[96];
    pack_path(path, sizeof path, shard_of(&s[0].key));
    size_t n;
    char *pack = slurp(path, &n);
    uint64_t o1, o2, z1, z2;
    slot_of(pack, &s[1], &o1, &z1);
    slot_of(pack, &s[2], &o2, &z2);
    assert_int_equal(z1, z2);   /* "bbbb\n" and "cccc\n", the same deps and stats size */
    char *tmp = malloc(z1);
    assert_non_null(tmp);
    memcpy(tmp, pack + o1, z1);
    memcpy(pack + o1, pack + o2, z1);
    memcpy(pack + o2, tmp, z1);
    free(tmp);
    spill(path, pack, n);
    int which[3];
    assert_int_equal(hits(s, 3, which), 1);
    assert_int_equal(which[0], 1);
    free(pack);
}

/* Each check of the head on its own: the checksum resealed, so that only
 * the field in question is wrong. */
/* The pack with `len` bytes at `at` replaced (b: room for a copy of it),
 * resealed so that only the change can make it untrusted: none of the three
 * samples may hit. */
static void assert_tampered_misses(Sample *s, const char *path, const char *pack, char *b, size_t n,
                                   size_t at, const void *bytes, size_t len)
{
    memcpy(b, pack, n);
    memcpy(b + at, bytes, len);
    reseal(b, n);
    spill(path, b, n);
    assert_int_equal(hits(s, 3, NULL), 0);
}

static void test_foreign_packs(void **state)
{
    (void)state;
    Sample s[3];
    samples_in_one_pack(s, 3, OUTS);
    store_all(s, 3);
    char path[96];
    pack_path(path, sizeof path, shard_of(&s[0].key));
    size_t n;
    char *pack = slurp(path, &n), *b = malloc(n);
    assert_non_null(b);
    const struct { size_t at; const char *bytes; size_t len; } change[] = {
        {0, "pfc-pock", 8},                /* magic */
        {OFF_ORDER, "\1\2\3\4", 4},        /* another machine's byte order */
        {OFF_FORMAT, "\1\0\0\0", 4},       /* an older format (1: no stamps) */
        {OFF_VERSION, "9.9.9\0", 6},       /* another pfc's keys never match */
        {OFF_COUNT, "\377\377\0\0", 4},    /* more slots than the file holds */
    };
    memcpy(b, pack, n);
    reseal(b, n);
    spill(path, b, n);
    assert_int_equal(hits(s, 3, NULL), 3);   /* resealing alone changes nothing */
    for (size_t i = 0; i < sizeof change / sizeof *change; i++)
        assert_tampered_misses(s, path, pack, b, n, change[i].at, change[i].bytes, change[i].len);
    free(b);
    free(pack);
}

/* Sealed slots that point outside the file, into the index, or off the
 * 8-byte grid, or claim more than the file holds: the pack is not trusted. */
static void test_slots_outside(void **state)
{
    (void)state;
    Sample s[3];
    samples_in_one_pack(s, 3, OUTS);
    store_all(s, 3);
    char path[96];
    pack_path(path, sizeof path, shard_of(&s[0].key));
    size_t n;
    char *pack = slurp(path, &n), *b = malloc(n);
    assert_non_null(b);
    uint64_t o, z;
    size_t at = HEAD + (size_t)slot_of(pack, &s[2], &o, &z) * SLOT + SLOT_OFFSET;
    const uint64_t bad[][2] = {{n, z}, {o + 4, z}, {HEAD, z}, {o, n}, {o, UINT64_MAX},
                               {UINT64_MAX - 7, 16}, {o, 8}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_tampered_misses(s, path, pack, b, n, at, bad[i], 16);
    free(b);
    free(pack);
}

static void test_fifo_and_directory(void **state)
{
    (void)state;
    Sample s[3];
    samples_in_one_pack(s, 3, OUTS);
    store_all(s, 3);
    char path[96];
    pack_path(path, sizeof path, shard_of(&s[0].key));
    unlink(path);
    assert_int_equal(mkfifo(path, 0644), 0);
    assert_int_equal(hits(s, 3, NULL), 0);   /* read without blocking */
    store_all(s, 3);                         /* the FIFO is replaced */
    assert_int_equal(hits(s, 3, NULL), 3);
    unlink(path);
    assert_int_equal(mkdir(path, 0755), 0);
    assert_int_equal(hits(s, 3, NULL), 0);
    store_all(s, 3);   /* cannot replace a directory: one notice, the run goes on */
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    rmdir(path);
}

/* Run 1 stores a and b; run 2 a file c; run 3 a new version of a: the pack
 * then holds b, c and the new a, not the old one. */
static void test_rewrite_keeps_older_drops_superseded(void **state)
{
    (void)state;
    Sample s[3];
    samples_in_one_pack(s, 3, OUTS);
    store_range(s, 0, 2);
    store_range(s, 2, 3);
    Sample edited = s[0];
    edited.src = "x = 2\n";
    cache_key(&edited.key, cache_source(7, edited.path), edited.src, 6);
    assert_int_equal(edited.key.source, s[0].key.source);   /* same path and settings */
    store_all(&edited, 1);
    int which[3];
    assert_int_equal(hits(s, 3, which), 2);
    assert_int_equal(which[0], 0);
    assert_int_equal(hits(&edited, 1, NULL), 1);
    char path[96];
    pack_path(path, sizeof path, shard_of(&s[0].key));
    size_t n;
    char *pack = slurp(path, &n);
    uint32_t count;
    memcpy(&count, pack + OFF_COUNT, 4);
    assert_int_equal(count, 3);   /* b, c, the new a */
    free(pack);
}

/* ---- stamps: a source's stat standing for its bytes ------------------------------------ */

static const int64_t SECOND = 1000000000;

/* A stat of the sample's 6 bytes, `age` seconds before now. */
static CacheStat stat_aged(int64_t age)
{
    int64_t t = cache_now_ns() - age * SECOND;
    return (CacheStat){.dev = 3, .ino = 77, .size = 6, .mtime_ns = t, .ctime_ns = t};
}

static void store_stamped(const Sample *s, const CacheStat *st)
{
    Cache *c = cache_open(dir);
    assert_non_null(c);
    CachedResult r = result_of(s, 0);   /* as hits() expects of sample 0 */
    r.stat = *st;
    cache_store(c, &s->key, &r);
    cache_close(c);
}

static bool hit_by_stat(const Sample *s, const CacheStat *now)
{
    Cache *c = cache_open(dir);
    assert_non_null(c);
    CachedResult r;
    bool hit = cache_load_stat(c, s->key.source, now, &r);
    if (hit) {
        assert_int_equal(r.out_len, strlen(s->out));
        assert_memory_equal(r.out, s->out, r.out_len);
    }
    cache_close(c);
    return hit;
}

/* An old stamp stands for the bytes; any field that moved, or another
 * path's source, is a miss (the file is read and hashed). */
static void test_stamp_stands_for_bytes(void **state)
{
    (void)state;
    Sample s[2];
    samples_in_one_pack(s, 2, OUTS);
    CacheStat old = stat_aged(60);
    store_stamped(&s[0], &old);
    assert_true(hit_by_stat(&s[0], &old));
    assert_false(hit_by_stat(&s[1], &old));   /* another path */
    CacheStat moved[5] = {old, old, old, old, old};
    moved[0].dev++;
    moved[1].ino++;
    moved[2].size++;
    moved[3].mtime_ns++;   /* one nanosecond */
    moved[4].ctime_ns++;   /* an edit whose mtime was put back: ctime still moves */
    for (int i = 0; i < 5; i++)
        assert_false(hit_by_stat(&s[0], &moved[i]));
    assert_int_equal(hits(s, 1, NULL), 1);   /* the bytes' key still hits */
}

/* Racy: a file changed less than CACHE_RACY_NS before the run could change
 * again in the same timestamp tick without moving its stamp: such a stamp
 * is never trusted, whichever of mtime and ctime is recent. */
static void test_racy_stamp_not_trusted(void **state)
{
    (void)state;
    Sample s[1];
    samples_in_one_pack(s, 1, OUTS);
    CacheStat recent = stat_aged(1), half = stat_aged(60);   /* 1 s: inside the 2 s margin */
    half.ctime_ns = recent.ctime_ns;   /* mtime restored to an old one, ctime now */
    CacheStat both[2] = {recent, half};
    for (int i = 0; i < 2; i++) {
        store_stamped(&s[0], &both[i]);
        assert_false(hit_by_stat(&s[0], &both[i]));
        assert_int_equal(hits(s, 1, NULL), 1);   /* read and hashed: still a hit */
    }
}

/* A touched but unchanged file hits by its bytes, and the hit stores the
 * new stamp when its pack is rewritten for a new entry anyway: the next run
 * needs no read. A run of hits alone leaves the pack as it was (byte for
 * byte), and a racy new stamp is never stored. */
static void test_touched_file_restamped(void **state)
{
    (void)state;
    Sample s[2];
    samples_in_one_pack(s, 2, OUTS);
    CacheStat before = stat_aged(120), touched = stat_aged(60), racy = stat_aged(1);
    store_stamped(&s[0], &before);
    char path[96];
    pack_path(path, sizeof path, shard_of(&s[0].key));
    size_t n0, n1;
    char *pack0 = slurp(path, &n0);
    Cache *c = cache_open(dir);
    CachedResult r;
    assert_true(cache_load(c, &s[0].key, &touched, &r));   /* hits only: no rewrite */
    cache_close(c);
    char *pack1 = slurp(path, &n1);
    assert_int_equal(n0, n1);
    assert_memory_equal(pack0, pack1, n0);
    assert_true(hit_by_stat(&s[0], &before));
    c = cache_open(dir);
    assert_true(cache_load(c, &s[0].key, &racy, &r));
    CachedResult other = result_of(&s[1], 1);
    cache_store(c, &s[1].key, &other);   /* the pack is rewritten */
    cache_close(c);
    assert_false(hit_by_stat(&s[0], &racy));
    assert_true(hit_by_stat(&s[0], &before));   /* the racy stamp did not replace it */
    c = cache_open(dir);
    assert_true(cache_load(c, &s[0].key, &touched, &r));
    cache_store(c, &s[1].key, &other);
    cache_close(c);
    assert_true(hit_by_stat(&s[0], &touched));
    assert_false(hit_by_stat(&s[0], &before));
    free(pack0);
    free(pack1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_stamp_stands_for_bytes, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_racy_stamp_not_trusted, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_touched_file_restamped, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_cut_at_every_length, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_every_byte_flipped, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_entries_swapped, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_foreign_packs, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_slots_outside, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_fifo_and_directory, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_rewrite_keeps_older_drops_superseded, make_dir,
                                        remove_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
