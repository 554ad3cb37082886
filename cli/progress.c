#define _POSIX_C_SOURCE 200809L
#include "progress.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { REDRAW_MS = 100, DEFAULT_AFTER_MS = 1000 };

struct Progress {
    atomic_size_t done;
    size_t total;
    long after_ms;              /* nothing is drawn for a run shorter than this */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool stop;                  /* under lock */
    int width;                  /* of the line drawn, to erase it; 0 when none */
};

/* CI=true (GitHub Actions, GitLab, most others) or any value but "" / "0" /
 * "false": a log, even when the runner gives the job a pseudo-terminal. */
static bool in_ci(void)
{
    const char *ci = getenv("CI");
    return ci && *ci && strcmp(ci, "0") != 0 && strcmp(ci, "false") != 0;
}

bool progress_wanted(void)
{
    const char *term = getenv("TERM");
    return isatty(STDERR_FILENO) && !in_ci() && !(term && strcmp(term, "dumb") == 0);
}

static void deadline_in(struct timespec *t, long ms)
{
    clock_gettime(CLOCK_REALTIME, t);
    t->tv_sec += ms / 1000;
    t->tv_nsec += (ms % 1000) * 1000000L;
    if (t->tv_nsec >= 1000000000L) {
        t->tv_sec++;
        t->tv_nsec -= 1000000000L;
    }
}

/* Waits up to ms; true when asked to stop. Called with the lock held. */
static bool wait_or_stop(Progress *p, long ms)
{
    struct timespec t;
    deadline_in(&t, ms);
    while (!p->stop)
        if (pthread_cond_timedwait(&p->wake, &p->lock, &t) != 0)
            break;
    return p->stop;
}

static void draw(Progress *p)
{
    char line[64];
    int n = snprintf(line, sizeof line, "\rpfc: %zu/%zu files", atomic_load(&p->done), p->total);
    fputs(line, stderr);
    fflush(stderr);
    p->width = n - 1;
}

static void *run(void *arg)
{
    Progress *p = arg;
    pthread_mutex_lock(&p->lock);
    /* a run asked to show progress at once (after_ms 0) shows it even when it
     * ends before this thread first runs: the draw does not race the stop */
    if (!wait_or_stop(p, p->after_ms) || p->after_ms == 0)
        do
            draw(p);
        while (!wait_or_stop(p, REDRAW_MS));
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* PFC_PROGRESS_AFTER_MS: for tests, how long a run goes undrawn. */
static long after_ms(void)
{
    const char *s = getenv("PFC_PROGRESS_AFTER_MS");
    char *end;
    long v = s && *s ? strtol(s, &end, 10) : -1;
    return v >= 0 && v <= 600000 && s && !*end ? v : DEFAULT_AFTER_MS;
}

Progress *progress_start(size_t total)
{
    if (!total || !progress_wanted())
        return NULL;
    Progress *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->total = total;
    p->after_ms = after_ms();
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    if (pthread_create(&p->thread, NULL, run, p) != 0) {
        pthread_cond_destroy(&p->wake);
        pthread_mutex_destroy(&p->lock);
        free(p);
        return NULL;
    }
    return p;
}

void progress_tick(Progress *p)
{
    if (p)
        atomic_fetch_add(&p->done, 1);
}

void progress_stop(Progress *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
    if (p->width)   /* blanks, not an escape sequence: any terminal erases so */
        fprintf(stderr, "\r%*s\r", p->width, "");
    fflush(stderr);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
    free(p);
}
