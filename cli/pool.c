#include "pool.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct Pool {
    size_t n;
    atomic_size_t next;
    atomic_int workers;          /* numbers the workers as they start */
    void (*fn)(size_t, void *);
    void (*worker_fn)(size_t, int, void *);
    void *ctx;
} Pool;

static void *worker(void *arg)
{
    Pool *p = arg;
    int self = atomic_fetch_add(&p->workers, 1);
    for (;;) {
        size_t i = atomic_fetch_add(&p->next, 1);
        if (i >= p->n)
            return NULL;
        if (p->worker_fn)
            p->worker_fn(i, self, p->ctx);
        else
            p->fn(i, p->ctx);
    }
}

static void run_pool(Pool *p, int jobs)
{
    size_t n = p->n;
    if (jobs <= 1 || n <= 1) {
        worker(p);
        return;
    }
    if ((size_t)jobs > n)
        jobs = (int)n;
    pthread_t *t = malloc(sizeof *t * (size_t)jobs);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    /* deep but legal nesting recurses in the parser: same stack as main */
    pthread_attr_setstacksize(&attr, 16u << 20);
    int started = 0;
    for (int i = 0; i < jobs; i++)
        if (pthread_create(&t[i], &attr, worker, p) == 0)
            started++;
        else
            break;
    if (started == 0)
        worker(p);
    for (int i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    pthread_attr_destroy(&attr);
    free(t);
}

void parallel_for(size_t n, int jobs, void (*fn)(size_t, void *), void *ctx)
{
    Pool p = {n, 0, 0, fn, NULL, ctx};
    run_pool(&p, jobs);
}

void parallel_for_workers(size_t n, int jobs, void (*fn)(size_t, int, void *), void *ctx)
{
    Pool p = {n, 0, 0, NULL, fn, ctx};
    run_pool(&p, jobs);
}

int default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}
