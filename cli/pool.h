/* Runs fn(i, ctx) for i in [0, n) on `jobs` threads. Items are claimed in
 * order through an atomic counter; results go to per-item slots, so callers
 * print in input order and output never depends on scheduling. */
#ifndef PFC_POOL_H
#define PFC_POOL_H
#include <stddef.h>

void parallel_for(size_t n, int jobs, void (*fn)(size_t i, void *ctx), void *ctx);
/* The same, telling fn which of the min(jobs, n) workers (0-based) runs it,
 * so that a worker can keep state (an arena) from one item to the next. */
void parallel_for_workers(size_t n, int jobs, void (*fn)(size_t i, int worker, void *ctx),
                          void *ctx);
int default_jobs(void);

#endif
