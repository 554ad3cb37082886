/* A small deterministic generator for the mutation passes: a fixed sequence
 * per seed, so that a failure reproduces. Not for anything that needs real
 * randomness. */
#ifndef PFC_RAND_H
#define PFC_RAND_H
#include <stdint.h>

/* xorshift32; the state must not be 0 */
static inline uint32_t xorshift_next(uint32_t *state)
{
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

#endif
