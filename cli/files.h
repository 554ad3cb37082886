/* File discovery and reading for the CLI. */
#ifndef PFC_FILES_H
#define PFC_FILES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* v[i] a path; why[i] NULL, or why the walk could not look inside it (a
 * directory that could not be opened): an error to report for that path.
 * stated[i]: st[i] is what stat() said of a path named on the command line
 * (the walk stats each one to see whether it is a directory), so that the
 * cache need not ask again. */
typedef struct PathList {
    char **v;
    char **why;
    struct stat *st;
    bool *stated;
    size_t n, cap;
} PathList;

enum {
    WALK_ALL = 1,          /* no default exclusions (corpus tools) */
    WALK_PY_ONLY = 2,      /* .py files only, not stubs (to compare with ast.parse runs) */
    WALK_NOTEBOOKS = 4,    /* Jupyter notebooks (.ipynb) too (pfc lint) */
};

/* Adds the Python files under each path. Explicitly named files are always
 * added; missing paths are added too, so that reading them reports the error
 * in the normal output, and so are *.py entries that are not regular files
 * (FIFOs, devices, sockets). Directory entries are sorted: output is
 * deterministic. Neither depth nor path length is limited. */
void walk_paths(PathList *out, char **paths, int npaths, int flags);
void path_list_free(PathList *l);

/* Largest file read: nobody lints a 64 MiB script, and a bound keeps a
 * mistaken path (a disk image, a log) from being read whole. */
enum { MAX_SOURCE_BYTES = 64u << 20 };
#define MAX_SOURCE_TEXT "64 MiB"

/* Reads a whole regular file without ever blocking: a FIFO, device, socket
 * or directory is refused with a message naming what it is. Paths longer than
 * PATH_MAX work. On failure returns false and sets *err to a static or
 * strerror message. */
bool read_source(const char *path, char **data, uint32_t *len, const char **err);

/* Does the path exist (any kind, following symlinks; long paths work)? */
bool path_exists(const char *path);

/* realpath() that also works past PATH_MAX (the longest prefix realpath can
 * resolve, then the rest as written); malloc'ed, NULL when it fails. */
char *absolute_path(const char *path);

/* absolute_path() of a directory, remembered for the run (thread-safe): a
 * directory whose parent is known costs one lstat(), not a readlink() per
 * component, and every caller (configuration, the project's imports) shares
 * the answer. malloc'ed; NULL when it does not resolve. */
char *directory_realpath(const char *dir);

#endif
