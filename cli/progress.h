/* Progress of a long pfc lint on a terminal: "pfc: 120/3400 files" on stderr,
 * redrawn in place from one second into the run, erased when it ends. Only
 * when stderr is a terminal, and never in CI (CI set, TERM=dumb): logs keep
 * no carriage-return noise. stdout is never touched. */
#ifndef PFC_PROGRESS_H
#define PFC_PROGRESS_H
#include <stdbool.h>
#include <stddef.h>

typedef struct Progress Progress;

/* Would a progress line be shown here (terminal, not CI)? */
bool progress_wanted(void);
/* Starts the drawing thread; NULL when not wanted (every call takes NULL). */
Progress *progress_start(size_t total);
/* One file done; thread-safe. */
void progress_tick(Progress *p);
/* Stops drawing, erases the line, frees p. */
void progress_stop(Progress *p);

#endif
