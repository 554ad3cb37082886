/* Replacing a source file with its fixed version (pfc lint --fix) without
 * losing anything: not an edit the user made while pfc worked, not the file's
 * owner, mode or links, and never through a temporary file that someone else
 * planted or could read. */
#ifndef PFC_SAFE_WRITE_H
#define PFC_SAFE_WRITE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* The file as pfc read it. Taken before reading (safe_stamp) and completed
 * with the bytes read (safe_stamp_content): any change after the stamp shows
 * as another inode, size, mtime or content just before the rename. */
typedef struct SourceStamp {
    bool valid;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    uint64_t hash_low, hash_high;   /* XXH3-128 of the bytes read */
} SourceStamp;

typedef enum WriteOutcome {
    WRITE_DONE,
    WRITE_SKIPPED,   /* left alone on purpose: changed since read, read-only, hard links */
    WRITE_FAILED,    /* tried and could not: a directory not writable, a full disk */
} WriteOutcome;

/* Temporary files are ".NAME.pfc-fix-PID-XXXXXX" beside the target; one left
 * by a killed run is removed once its process is gone or it is this old. */
enum { STALE_TEMP_SECONDS = 60 };

/* Before fixing: removes the stale temporaries of earlier runs from the
 * directories of these files (once per directory, from one thread). */
void safe_remove_stale_temps(char *const *paths, size_t n);

void safe_stamp(const char *path, SourceStamp *st);
void safe_stamp_content(SourceStamp *st, const char *data, uint32_t len);

/* Replaces the file that path names (following a symlink: the link stays a
 * link) with data, if it is still what *was describes. On WRITE_SKIPPED and
 * WRITE_FAILED, why says why, for a message after the path. */
WriteOutcome safe_replace(const char *path, const SourceStamp *was, const char *data,
                          uint32_t len, char *why, size_t why_size);

#endif
