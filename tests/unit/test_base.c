/* Unit tests for base/: the bump arena, its growable vectors, the interner and
 * the table of version-gated features. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../base/arena.h"
#include "../../base/diag.h"
#include "../../base/intern.h"

/* ---- arena ------------------------------------------------------------------------ */

static void test_arena_small_allocs_aligned_and_distinct(void **state)
{
    (void)state;
    enum { N = 20000 };
    Arena a;
    arena_init(&a);
    unsigned char **ptrs = malloc(N * sizeof *ptrs);
    size_t *sizes = malloc(N * sizeof *sizes);
    assert_non_null(ptrs);
    assert_non_null(sizes);
    for (size_t i = 0; i < N; i++) {
        sizes[i] = 1 + (i * 7) % 61;            /* 1..61 bytes, mostly unaligned sizes */
        ptrs[i] = arena_alloc(&a, sizes[i]);
        assert_non_null(ptrs[i]);
        assert_int_equal((uintptr_t)ptrs[i] % 16, 0);
        memset(ptrs[i], (int)(i & 0xff), sizes[i]);
    }
    /* no allocation overlapped a later one: every block still holds its pattern */
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j < sizes[i]; j++)
            assert_int_equal(ptrs[i][j], i & 0xff);
    /* pairwise distinct (neighbours in allocation order are the likely collision) */
    for (size_t i = 1; i < N; i++)
        assert_ptr_not_equal(ptrs[i], ptrs[i - 1]);
    /* 20000 allocations of >= 16 bytes each cannot fit one 64 KiB chunk */
    assert_true(a.total >= (size_t)N * 16);
    free(ptrs);
    free(sizes);
    arena_free(&a);
}

static void test_arena_one_byte_allocs(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    char *q = arena_alloc(&a, 1);
    assert_non_null(q);
    assert_int_equal((uintptr_t)q % 16, 0);
    q[0] = 'x';
    char *r = arena_alloc(&a, 1);
    /* sizes round up to 16: the next block starts 16 bytes on in the same chunk */
    assert_ptr_equal(r, q + 16);
    r[0] = 'y';
    assert_int_equal(q[0], 'x');
    arena_free(&a);
}

static void test_arena_huge_alloc(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    char *small1 = arena_alloc(&a, 32);
    memset(small1, 'a', 32);
    size_t big_size = 3u * 1024 * 1024 + 5;      /* far over the 64 KiB minimum chunk */
    unsigned char *big = arena_alloc(&a, big_size);
    assert_non_null(big);
    assert_int_equal((uintptr_t)big % 16, 0);
    for (size_t i = 0; i < big_size; i++)
        big[i] = (unsigned char)(i * 31);
    assert_true(a.total >= big_size);
    char *small2 = arena_alloc(&a, 32);
    memset(small2, 'b', 32);
    /* the small blocks are outside the big one */
    assert_true((unsigned char *)small2 + 32 <= big || (unsigned char *)small2 >= big + big_size);
    assert_true((unsigned char *)small1 + 32 <= big || (unsigned char *)small1 >= big + big_size);
    for (size_t i = 0; i < big_size; i++)
        assert_int_equal(big[i], (unsigned char)(i * 31));
    for (int i = 0; i < 32; i++) {
        assert_int_equal(small1[i], 'a');
        assert_int_equal(small2[i], 'b');
    }
    /* a second huge block after the first */
    unsigned char *big2 = arena_zalloc(&a, big_size);
    for (size_t i = 0; i < big_size; i += 4093)
        assert_int_equal(big2[i], 0);
    assert_int_equal(big[big_size - 1], (unsigned char)((big_size - 1) * 31));
    arena_free(&a);
}

static void test_arena_zalloc_zeroes(void **state)
{
    (void)state;
    /* Dirty memory first, give it back to malloc and take it again: a zalloc that
     * forgot to clear would see the old bytes. */
    static const size_t sizes[] = {1, 15, 16, 17, 100, 4096, 60000, 200000};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        Arena a;
        arena_init(&a);
        for (int i = 0; i < 4; i++)
            memset(arena_alloc(&a, sizes[k]), 0xa5, sizes[k]);
        arena_free(&a);
        arena_init(&a);
        memset(arena_alloc(&a, 48), 0x5a, 48);   /* dirty neighbour */
        for (int i = 0; i < 4; i++) {
            unsigned char *p = arena_zalloc(&a, sizes[k]);
            for (size_t j = 0; j < sizes[k]; j++)
                assert_int_equal(p[j], 0);
            memset(p, 0xff, sizes[k]);            /* dirty for the next round */
        }
        arena_free(&a);
    }
}

static void test_arena_copy_strndup_printf(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    const char src[] = "hello, world";
    char *c = arena_copy(&a, src, sizeof src);
    assert_ptr_not_equal(c, src);
    assert_string_equal(c, "hello, world");
    char *d = arena_strndup(&a, "abcdef", 3);
    assert_string_equal(d, "abc");
    char *p = arena_printf(&a, "%s-%d-%c", "x", 42, 'z');
    assert_string_equal(p, "x-42-z");
    char *long_s = arena_printf(&a, "%05000d", 7);
    assert_int_equal(strlen(long_s), 5000);
    assert_int_equal(long_s[4999], '7');
    assert_int_equal(long_s[0], '0');
    arena_free(&a);
}

static void test_vec_push_100k(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    ARENA_VEC(uint32_t) v = {0};
    ARENA_VEC(uint64_t) w = {0};
    for (uint32_t i = 0; i < 100000; i++) {
        VEC_PUSH(&a, v, i * 7u + 3u);
        VEC_PUSH(&a, w, (uint64_t)i << 33 | i);
        assert_int_equal(v.n, i + 1);
        assert_true(v.cap >= v.n);
    }
    assert_int_equal(v.n, 100000);
    assert_int_equal(w.n, 100000);
    /* capacity doubles from 16: a power of two, at most twice the size */
    assert_int_equal(v.cap & (v.cap - 1), 0);
    assert_true(v.cap < 2 * 100000);
    for (uint32_t i = 0; i < 100000; i++) {
        assert_int_equal(v.v[i], i * 7u + 3u);
        assert_int_equal(w.v[i], (uint64_t)i << 33 | i);
    }
    arena_free(&a);
}

static void test_arena_free_then_reuse(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    for (int i = 0; i < 1000; i++)
        memset(arena_alloc(&a, 1000), 1, 1000);
    assert_true(a.total >= 1000u * 1000u);
    arena_free(&a);
    assert_null(a.head);
    assert_int_equal(a.total, 0);
    /* the same Arena works again, from scratch */
    char *p = arena_alloc(&a, 100);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % 16, 0);
    memset(p, 'q', 100);
    assert_true(a.total > 0 && a.total < 1000u * 1000u);
    ARENA_VEC(int) v = {0};
    for (int i = 0; i < 5000; i++)
        VEC_PUSH(&a, v, -i);
    assert_int_equal(v.v[4999], -4999);
    assert_int_equal(p[99], 'q');
    arena_free(&a);
    arena_free(&a);   /* freeing an empty arena is harmless */
    assert_null(a.head);
}

/* A reset keeps the newest chunk for the next file and empties it; a huge
 * one goes back to the system. */
static void test_arena_reset_keeps_newest_chunk(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    for (int i = 0; i < 300; i++)
        memset(arena_alloc(&a, 1000), 1, 1000);
    void *kept = a.head;
    arena_reset(&a);
    assert_ptr_equal(a.head, kept);
    assert_true(a.total > 0 && a.total < 300u * 1000u);
    char *p = arena_alloc(&a, 100);
    assert_true(p >= (char *)kept && p < a.end);   /* inside the kept chunk */
    memset(p, 'r', 100);
    for (int i = 0; i < 300; i++)
        memset(arena_alloc(&a, 1000), 2, 1000);   /* grows again from there */
    assert_int_equal(p[99], 'r');
    arena_free(&a);
    memset(arena_alloc(&a, 9u << 20), 3, 9u << 20);
    arena_reset(&a);
    assert_null(a.head);
    assert_int_equal(a.total, 0);
    arena_reset(&a);   /* an empty arena stays empty */
    assert_null(a.head);
    assert_non_null(arena_alloc(&a, 16));
    arena_free(&a);
}

/* ---- interner ----------------------------------------------------------------------- */

/* intern_lookup finds what was interned and inserts nothing. */
static void test_intern_lookup(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    Interner in;
    intern_init(&in, &a);
    uint32_t id = intern(&in, "pkg/train.py", 12);
    uint32_t count = in.count;
    assert_int_equal(intern_lookup(&in, "pkg/train.py", 12), id);
    assert_int_equal(intern_lookup(&in, "pkg/train.p", 11), 0);
    assert_int_equal(intern_lookup(&in, "pkg/model.py", 12), 0);
    assert_int_equal(intern_lookup(&in, "match", 5), NAME_MATCH);
    assert_int_equal(in.count, count);
    assert_true(intern_is(&in, id, "pkg/train.py"));
    assert_false(intern_is(&in, id, "pkg/train.p"));
    assert_false(intern_is(&in, id, "pkg/train.pyi"));
    assert_false(intern_is(&in, 0, ""));
    arena_free(&a);
}

static void test_intern_same_and_different(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    Interner in;
    intern_init(&in, &a);
    char buf1[] = "foo_bar";
    char buf2[] = "foo_bar";           /* same bytes, different address */
    uint32_t id1 = intern(&in, buf1, 7);
    uint32_t id2 = intern(&in, buf2, 7);
    assert_int_equal(id1, id2);
    assert_true(id1 >= NAME_FIRST_DYNAMIC);
    uint32_t id3 = intern(&in, "foo", 3);          /* prefix */
    uint32_t id4 = intern(&in, "foo_baz", 7);      /* same length, last byte differs */
    uint32_t id5 = intern(&in, "foo_bar_", 8);     /* extension */
    assert_int_not_equal(id1, id3);
    assert_int_not_equal(id1, id4);
    assert_int_not_equal(id1, id5);
    assert_int_not_equal(id3, id4);
    assert_int_not_equal(id4, id5);
    /* the length is honoured: "foo_bar" cut to 3 bytes is "foo" */
    assert_int_equal(intern(&in, buf1, 3), id3);
    /* ids are dense, in insertion order */
    assert_int_equal(id1, NAME_FIRST_DYNAMIC);
    assert_int_equal(id3, NAME_FIRST_DYNAMIC + 1);
    /* the empty string is a name like any other, and not "none" */
    uint32_t empty = intern(&in, "", 0);
    assert_int_not_equal(empty, NAME_NONE);
    assert_int_equal(intern(&in, "x", 0), empty);
    arena_free(&a);
}

static void check_str(const Interner *in, uint32_t id, const char *want)
{
    uint32_t len = 12345;
    const char *s = intern_str(in, id, &len);
    assert_int_equal(len, strlen(want));
    assert_memory_equal(s, want, len);
}

static void test_intern_preinterned(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    Interner in;
    intern_init(&in, &a);
    check_str(&in, NAME_MATCH, "match");
    check_str(&in, NAME_CASE, "case");
    check_str(&in, NAME_TYPE, "type");
    check_str(&in, NAME_UNDERSCORE, "_");
    check_str(&in, NAME_PRINT, "print");
    check_str(&in, NAME_EXEC, "exec");
    assert_int_equal(intern(&in, "match", 5), NAME_MATCH);
    assert_int_equal(intern(&in, "case", 4), NAME_CASE);
    assert_int_equal(intern(&in, "type", 4), NAME_TYPE);
    assert_int_equal(intern(&in, "_", 1), NAME_UNDERSCORE);
    assert_int_equal(intern(&in, "print", 5), NAME_PRINT);
    assert_int_not_equal(intern(&in, "Match", 5), NAME_MATCH);
    assert_int_not_equal(intern(&in, "__", 2), NAME_UNDERSCORE);
    assert_int_not_equal(intern(&in, "types", 5), NAME_TYPE);
    /* id 0 and ids never handed out resolve to the empty string */
    check_str(&in, NAME_NONE, "");
    check_str(&in, 1000000, "");
    arena_free(&a);
}

static void test_intern_str_round_trip(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    Interner in;
    intern_init(&in, &a);
    static const char *const names[] = {"x", "self", "__init__", "caf\xc3\xa9", "a1b2c3",
                                        "really_long_identifier_name_over_32_bytes_long"};
    uint32_t ids[6];
    for (int i = 0; i < 6; i++)
        ids[i] = intern(&in, names[i], (uint32_t)strlen(names[i]));
    for (int i = 0; i < 6; i++) {
        check_str(&in, ids[i], names[i]);
        for (int j = 0; j < i; j++)
            assert_int_not_equal(ids[i], ids[j]);
    }
    arena_free(&a);
}

static void test_intern_50k_rehash(void **state)
{
    (void)state;
    enum { N = 50000 };
    Arena a;
    arena_init(&a);
    Interner in;
    intern_init(&in, &a);
    uint32_t first_mask = in.mask;
    /* keys are not copied: keep them alive in the arena */
    char **keys = malloc(N * sizeof *keys);
    uint32_t *ids = malloc(N * sizeof *ids);
    assert_non_null(keys);
    assert_non_null(ids);
    for (uint32_t i = 0; i < N; i++) {
        keys[i] = arena_printf(&a, "n%u_%x", i, i * 2654435761u);
        ids[i] = intern(&in, keys[i], (uint32_t)strlen(keys[i]));
        assert_int_equal(ids[i], NAME_FIRST_DYNAMIC + i);   /* new name, next id */
        /* interning again right away (possibly just after a rehash) is stable */
        assert_int_equal(intern(&in, keys[i], (uint32_t)strlen(keys[i])), ids[i]);
    }
    assert_true(in.mask > first_mask);      /* the table did grow */
    assert_true(in.mask + 1 >= 2u * N);     /* and stays at most half full */
    for (uint32_t i = 0; i < N; i++) {
        /* same bytes through a different pointer still find the same id */
        char tmp[64];
        size_t len = strlen(keys[i]);
        memcpy(tmp, keys[i], len);
        assert_int_equal(intern(&in, tmp, (uint32_t)len), ids[i]);
        check_str(&in, ids[i], keys[i]);
    }
    /* pre-interned names survive the rehashes too */
    check_str(&in, NAME_MATCH, "match");
    assert_int_equal(intern(&in, "_", 1), NAME_UNDERSCORE);
    free(keys);
    free(ids);
    arena_free(&a);
}

/* ---- features ---------------------------------------------------------------------- */

static void test_feature_table(void **state)
{
    (void)state;
    assert_int_equal(feature_min_minor(FEAT_MATCH_STMT), 10);
    assert_int_equal(feature_min_minor(FEAT_EXCEPT_STAR), 11);
    assert_int_equal(feature_min_minor(FEAT_TYPE_ALIAS), 12);
    assert_int_equal(feature_min_minor(FEAT_FSTRING_QUOTE), 12);
    assert_int_equal(feature_min_minor(FEAT_TYPE_PARAM_DEFAULT), 13);
    assert_string_equal(feature_name(FEAT_MATCH_STMT), "match statement");
    for (int f = 0; f < FEAT__COUNT; f++) {
        const char *name = feature_name((PyFeature)f);
        assert_non_null(name);
        assert_true(strlen(name) > 0);
        /* each feature is newer than the oldest supported version */
        assert_in_range(feature_min_minor((PyFeature)f), PY_MINOR_MIN + 1, PY_MINOR_MAX);
        for (int g = 0; g < f; g++)
            assert_string_not_equal(name, feature_name((PyFeature)g));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arena_small_allocs_aligned_and_distinct),
        cmocka_unit_test(test_arena_one_byte_allocs),
        cmocka_unit_test(test_arena_huge_alloc),
        cmocka_unit_test(test_arena_zalloc_zeroes),
        cmocka_unit_test(test_arena_copy_strndup_printf),
        cmocka_unit_test(test_vec_push_100k),
        cmocka_unit_test(test_arena_free_then_reuse),
        cmocka_unit_test(test_arena_reset_keeps_newest_chunk),
        cmocka_unit_test(test_intern_lookup),
        cmocka_unit_test(test_intern_same_and_different),
        cmocka_unit_test(test_intern_preinterned),
        cmocka_unit_test(test_intern_str_round_trip),
        cmocka_unit_test(test_intern_50k_rehash),
        cmocka_unit_test(test_feature_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
