/* pfc lint --fix: replace a file safely. The sequence: resolve symlinks;
 * refuse read-only and hard-linked files (our own stale temporaries are
 * removed before, by safe_remove_stale_temps);
 * create a fresh temporary with mkostemp (O_CREAT|O_EXCL, mode 0600, so a
 * planted symlink or file is never followed and nobody else can read it);
 * copy owner and mode; write and fsync; check that the file is still the one
 * read, byte for byte; rename over it. */
#define _GNU_SOURCE
#include "safe_write.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

extern char **environ;

/* Longest part of the file name copied into a temporary's name: the rest of
 * ".NAME.pfc-fix-PID-XXXXXX" must still fit in NAME_MAX. */
enum { TEMP_BASE_MAX = 200 };

static const char CHANGED[] = "the file changed while pfc was fixing it; run pfc again";

void safe_stamp(const char *path, SourceStamp *st)
{
    struct stat s;
    memset(st, 0, sizeof *st);
    if (stat(path, &s) != 0 || !S_ISREG(s.st_mode))
        return;
    st->valid = true;
    st->dev = s.st_dev;
    st->ino = s.st_ino;
    st->size = s.st_size;
    st->mtime = s.st_mtim;
}

void safe_stamp_content(SourceStamp *st, const char *data, uint32_t len)
{
    XXH128_hash_t h = XXH3_128bits(data, len);
    st->hash_low = h.low64;
    st->hash_high = h.high64;
    if ((off_t)len != st->size)
        st->valid = false;   /* changed between the stamp and the read */
}

/* ---- the target ------------------------------------------------------------------- */

static bool read_only(const char *target, const struct stat *st)
{
    /* decided from the mode bits for root, who may write anything: 0444 is the
     * user's way of saying "do not touch" */
    if ((st->st_mode & 0222) == 0)
        return true;
    if (geteuid() == 0)
        return false;
    return faccessat(AT_FDCWD, target, W_OK, AT_EACCESS) != 0 && errno == EACCES;
}

/* Why the target must be left alone, or NULL. */
static const char *refusal(const char *target, const struct stat *st, char *why, size_t n)
{
    if (!S_ISREG(st->st_mode)) {
        snprintf(why, n, "not a regular file");
        return why;
    }
    if (st->st_nlink > 1) {
        snprintf(why, n, "the file has %lu hard links and replacing it would split them; "
                 "left alone", (unsigned long)st->st_nlink);
        return why;
    }
    if (read_only(target, st)) {
        snprintf(why, n, "the file is read-only (mode %04o); left alone",
                 (unsigned)(st->st_mode & 07777));
        return why;
    }
    return NULL;
}

/* Splits an absolute path into its directory ("/" for the root) and name. */
static void split_path(char *abs, const char **dir, const char **base)
{
    char *slash = strrchr(abs, '/');
    *base = slash + 1;
    *slash = 0;
    *dir = abs[0] ? abs : "/";
}

/* ---- stale temporaries -------------------------------------------------------------- */

static int temp_prefix(char *out, size_t n, const char *base)
{
    return snprintf(out, n, ".%.*s.pfc-fix-", TEMP_BASE_MAX, base);
}

static bool is_temp_suffix(const char *s, long *pid)
{
    char *end;
    errno = 0;
    *pid = strtol(s, &end, 10);
    if (end == s || *end != '-' || *pid <= 0 || errno)
        return false;
    size_t k = 0;
    for (const char *p = end + 1; *p; p++, k++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
            return false;
    return k == 6;
}

/* Where the ".pfc-fix-PID-XXXXXX" of a temporary's name starts, or NULL.
 * NAME may contain ".pfc-fix-" itself: the last occurrence counts. */
static const char *temp_suffix(const char *name)
{
    static const char mark[] = ".pfc-fix-";
    if (name[0] != '.')
        return NULL;
    const char *found = NULL;
    for (const char *p = strstr(name + 1, mark); p; p = strstr(p + 1, mark))
        found = p;
    return found && found > name + 1 ? found + sizeof mark - 1 : NULL;
}

/* Ours (the name, a plain file of this user with one link) and abandoned
 * (its process is gone, or it is older than any write takes). */
static bool stale_temp(int dirfd, const char *name)
{
    const char *suffix = temp_suffix(name);
    long pid;
    if (!suffix || !is_temp_suffix(suffix, &pid))
        return false;
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
        st.st_uid != geteuid() || st.st_nlink != 1)
        return false;
    bool owner_gone = pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
    return owner_gone || time(NULL) - st.st_mtime > STALE_TEMP_SECONDS;
}

static void remove_stale_in(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (stale_temp(dirfd(d), e->d_name))
            unlinkat(dirfd(d), e->d_name, 0);
    closedir(d);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void safe_remove_stale_temps(char *const *paths, size_t n)
{
    char **dirs = calloc(n ? n : 1, sizeof *dirs);
    size_t ndirs = 0;
    for (size_t i = 0; dirs && i < n; i++) {
        char *real = realpath(paths[i], NULL);   /* a symlink's target is what gets fixed */
        if (!real)
            continue;
        const char *dir, *base;
        split_path(real, &dir, &base);
        if (dir != real) {   /* the root: dir is the literal "/" */
            real[0] = '/';
            real[1] = 0;
        }
        dirs[ndirs++] = real;
    }
    if (ndirs)
        qsort(dirs, ndirs, sizeof *dirs, cmp_str);
    for (size_t i = 0; i < ndirs; i++)
        if (i == 0 || strcmp(dirs[i], dirs[i - 1]) != 0)
            remove_stale_in(dirs[i]);
    for (size_t i = 0; i < ndirs; i++)
        free(dirs[i]);
    free(dirs);
}

/* ---- writing -------------------------------------------------------------------------- */

static bool write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/* Owner first: chown clears set-id bits, chmod puts them back. Only root may
 * give a file away; a group of ours still works for others. */
static bool copy_owner_and_mode(int fd, const struct stat *st)
{
    if (fchown(fd, st->st_uid, st->st_gid) != 0 && errno == EPERM)
        (void)fchown(fd, (uid_t)-1, st->st_gid);
    return fchmod(fd, st->st_mode & 07777) == 0;
}

/* The temporary, beside the target (a rename cannot cross file systems),
 * filled and on disk. Returns the descriptor, or -1 with errno set. */
static int write_temp(const char *dir, const char *base, const struct stat *st,
                      const char *data, uint32_t len, char *tmp, size_t tmp_size)
{
    char prefix[TEMP_BASE_MAX + 16];
    temp_prefix(prefix, sizeof prefix, base);
    int w = snprintf(tmp, tmp_size, "%s/%s%ld-XXXXXX", strcmp(dir, "/") ? dir : "", prefix,
                     (long)getpid());
    if (w < 0 || (size_t)w >= tmp_size) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (copy_owner_and_mode(fd, st) && write_all(fd, data, len) && fsync(fd) == 0)
        return fd;
    int saved = errno;
    close(fd);
    unlink(tmp);
    errno = saved;
    return -1;
}

/* ---- the lost-edit check ---------------------------------------------------------- */

static bool same_content(int fd, const SourceStamp *was)
{
    XXH3_state_t state;
    XXH3_128bits_reset(&state);
    char chunk[1 << 16];
    ssize_t got;
    while ((got = read(fd, chunk, sizeof chunk)) != 0) {
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return false;
        XXH3_128bits_update(&state, chunk, (size_t)got);
    }
    XXH128_hash_t h = XXH3_128bits_digest(&state);
    return h.low64 == was->hash_low && h.high64 == was->hash_high;
}

/* The file at target is the one read: same inode, size, mtime and bytes. */
static bool unchanged(const char *target, const SourceStamp *was)
{
    int fd = open(target, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat st;
    bool same = fstat(fd, &st) == 0 && st.st_dev == was->dev && st.st_ino == was->ino &&
                st.st_size == was->size && st.st_mtim.tv_sec == was->mtime.tv_sec &&
                st.st_mtim.tv_nsec == was->mtime.tv_nsec && same_content(fd, was);
    close(fd);
    return same;
}

/* For tests only (tests/writes.sh): PFC_TEST_HOOK_BEFORE_RENAME is a shell
 * command run, with the file's path as $1, after the temporary is written and
 * before the lost-edit check: it plays the user who saves the file while pfc
 * is fixing it, at the worst moment, deterministically. */
static void run_test_hook(const char *path)
{
    const char *hook = getenv("PFC_TEST_HOOK_BEFORE_RENAME");
    if (!hook || !*hook)
        return;
    char *argv[] = {"sh", "-c", (char *)hook, "sh", (char *)path, NULL};
    pid_t pid;
    if (posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ) == 0)
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
}

/* Writes the temporary and renames it over target (an absolute real path). */
static WriteOutcome replace_target(char *target, const char *path, const struct stat *st,
                                   const SourceStamp *was, const char *data, uint32_t len,
                                   char *why, size_t why_size)
{
    char real[PATH_MAX];
    snprintf(real, sizeof real, "%s", target);
    const char *dir, *base;
    split_path(target, &dir, &base);
    char tmp[PATH_MAX + 64];
    int fd = write_temp(dir, base, st, data, len, tmp, sizeof tmp);
    if (fd < 0) {
        snprintf(why, why_size, "%s", strerror(errno));
        return WRITE_FAILED;
    }
    run_test_hook(path);
    WriteOutcome out = WRITE_DONE;
    if (!unchanged(real, was)) {
        snprintf(why, why_size, "%s", CHANGED);
        out = WRITE_SKIPPED;
    } else if (rename(tmp, real) != 0) {
        /* no fsync of the directory after it: a crash then leaves the old file
         * or the new one, both whole, and --fix over many files stays fast */
        snprintf(why, why_size, "%s", strerror(errno));
        out = WRITE_FAILED;
    }
    if (out != WRITE_DONE)
        unlink(tmp);
    close(fd);
    return out;
}

WriteOutcome safe_replace(const char *path, const SourceStamp *was, const char *data,
                          uint32_t len, char *why, size_t why_size)
{
    char *target = realpath(path, NULL);
    struct stat st;
    if (!target || lstat(target, &st) != 0) {
        bool gone = errno == ENOENT;   /* removed since it was read: do not bring it back */
        snprintf(why, why_size, "%s", gone ? CHANGED : strerror(errno));
        free(target);
        return gone ? WRITE_SKIPPED : WRITE_FAILED;
    }
    WriteOutcome out;
    char refused[160];
    if (!was->valid || st.st_dev != was->dev || st.st_ino != was->ino) {
        snprintf(why, why_size, "%s", CHANGED);
        out = WRITE_SKIPPED;
    } else if (refusal(target, &st, refused, sizeof refused)) {
        snprintf(why, why_size, "%s", refused);
        out = WRITE_SKIPPED;
    } else {
        out = replace_target(target, path, &st, was, data, len, why, why_size);
    }
    free(target);
    return out;
}
