/* Checked arithmetic for shapes, element counts and byte sizes.
 *
 * Every number the estimator multiplies or adds can come from the script
 * (`nn.Linear(2**31, 2**31)`, `x.view(2**62, 2**62)`), so no product or sum
 * of them may wrap: a wrapped count turns an absurd model into one that
 * "fits". Unsigned sizes saturate at UINT64_MAX (which stays above every
 * limit below, so the caller refuses); signed arithmetic reports the
 * overflow and the caller decides. */
#ifndef PFC_CHECKED_H
#define PFC_CHECKED_H
#include <stdbool.h>
#include <stdint.h>

/* The largest tensor dimension or module size taken as meant (2**40): above
 * it a number is a mistake or a mutation, not a model. */
#define CK_DIM_MAX ((int64_t)1 << 40)
/* Elements of one tensor or parameter (2**50, a quadrillion). */
#define CK_NUMEL_MAX ((uint64_t)1 << 50)
/* Bytes: a peak or a component above 1 EiB is "too large to estimate". */
#define CK_BYTES_MAX ((uint64_t)1 << 60)
/* Memory one estimate's interpreter and trace may use (their arena). */
#define CK_ARENA_MAX ((size_t)1 << 30)

static inline uint64_t ck_mul(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

static inline uint64_t ck_add(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* a - b, or 0 when b is larger (a size never goes below zero). */
static inline uint64_t ck_sub(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

/* Signed: false when the exact result does not fit in 64 bits. */
static inline bool ck_imul(int64_t a, int64_t b, int64_t *out) { return !__builtin_mul_overflow(a, b, out); }
static inline bool ck_iadd(int64_t a, int64_t b, int64_t *out) { return !__builtin_add_overflow(a, b, out); }
static inline bool ck_isub(int64_t a, int64_t b, int64_t *out) { return !__builtin_sub_overflow(a, b, out); }

/* Signed, saturating at INT64_MAX / INT64_MIN: for dimensions computed from
 * other dimensions (a convolution's output, a concatenation), whose result
 * is checked as a shape afterwards. */
static inline int64_t ck_smul(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_mul_overflow(a, b, &r) ? ((a < 0) != (b < 0) ? INT64_MIN : INT64_MAX) : r;
}

static inline int64_t ck_sadd(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_add_overflow(a, b, &r) ? (a < 0 ? INT64_MIN : INT64_MAX) : r;
}

/* The product of the positive values in dim[0..n), saturating. */
static inline uint64_t ck_numel(const int64_t *dim, int n)
{
    uint64_t r = 1;
    for (int i = 0; i < n; i++)
        r = ck_mul(r, (uint64_t)(dim[i] > 0 ? dim[i] : 1));
    return r;
}

/* A dimension or size the estimator takes as meant: 1 .. CK_DIM_MAX. */
static inline bool ck_dim_ok(int64_t d) { return d > 0 && d <= CK_DIM_MAX; }

#endif
