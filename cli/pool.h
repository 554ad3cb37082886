/* Runs fn(i, ctx) for i in [0, n) on `jobs` threads. Items are claimed in
 * order through an atomic counter; results go to per-item slots, so callers
 * print in input order and output never depends on scheduling. */
#ifndef PFC_POOL_H
#define PFC_POOL_H
#include <stddef.h>

void parallel_for(size_t n, int jobs, void (*fn)(size_t i, void *ctx), void *ctx);
int default_jobs(void);

#endif
