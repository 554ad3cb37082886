/* Checked arithmetic (estimator/checked.h): sizes saturate instead of
 * wrapping, signed operations report overflow, shapes out of range are
 * recognised. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "../../estimator/checked.h"
#include "../../estimator/trace.h"

static void unsigned_sizes_saturate(void **state)
{
    (void)state;
    assert_int_equal(ck_mul(1ull << 31, 1ull << 31), 1ull << 62);
    assert_true(ck_mul(1ull << 32, 1ull << 32) == UINT64_MAX);   /* wrapped to 0 before */
    assert_true(ck_add(UINT64_MAX - 1, 2) == UINT64_MAX);
    assert_true(ck_mul(UINT64_MAX, 0) == 0);
    assert_int_equal(ck_sub(3, 5), 0);
    assert_int_equal(ck_sub(5, 3), 2);
}

static void signed_overflow_is_reported(void **state)
{
    (void)state;
    int64_t r;
    assert_true(ck_imul(1ll << 31, 1ll << 31, &r) && r == 1ll << 62);
    assert_false(ck_imul(1ll << 62, 4, &r));
    assert_false(ck_iadd(INT64_MAX, 1, &r));
    assert_false(ck_isub(INT64_MIN, 1, &r));
    assert_true(ck_smul(1ll << 62, 4) == INT64_MAX);
    assert_true(ck_smul(-(1ll << 62), 4) == INT64_MIN);
    assert_true(ck_sadd(INT64_MAX, 5) == INT64_MAX);
    assert_true(ck_sadd(INT64_MIN, -5) == INT64_MIN);
}

static void numel_and_dimensions(void **state)
{
    (void)state;
    int64_t small[3] = {8, 1024, 768};
    assert_true(ck_numel(small, 3) == 8ull * 1024 * 768);
    int64_t huge[2] = {1ll << 62, 1ll << 62};
    assert_true(ck_numel(huge, 2) == UINT64_MAX);
    assert_false(ck_dim_ok(0));
    assert_false(ck_dim_ok(-4));
    assert_false(ck_dim_ok(CK_DIM_MAX + 1));
    assert_true(ck_dim_ok(CK_DIM_MAX));
    assert_true(ck_dim_ok(1));
}

static void trace_refuses_bad_shapes(void **state)
{
    (void)state;
    Arena a;
    arena_init(&a);
    Trace tr;
    tr_init(&tr, &a);
    int64_t good[2] = {8, 16};
    assert_true(tr_check_shape(&tr, "a tensor", 2, good));
    assert_null(tr.error);
    int64_t zero[2] = {512, 0};
    tr.site = 42;
    assert_false(tr_check_shape(&tr, "a tensor", 2, zero));
    assert_non_null(tr.error);
    assert_int_equal(tr.error_site, 42);
    assert_int_equal(zero[1], 1);   /* replaced: nothing downstream divides by it */
    const char *first = tr.error;
    int64_t big[1] = {1ll << 62};
    tr_check_shape(&tr, "a tensor", 1, big);
    assert_ptr_equal(tr.error, first);   /* the first refusal is kept */
    /* a parameter beyond CK_NUMEL_MAX elements is refused, not wrapped */
    Trace t2;
    tr_init(&t2, &a);
    tr_param(&t2, 1ull << 62);
    assert_non_null(t2.error);
    ParamTotals pt;
    tr_param_totals(&t2, &pt);
    assert_true(pt.total <= CK_NUMEL_MAX);
    arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unsigned_sizes_saturate),
        cmocka_unit_test(signed_overflow_is_reported),
        cmocka_unit_test(numel_and_dimensions),
        cmocka_unit_test(trace_refuses_bad_shapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
