/* File discovery and reading for the CLI. */
#ifndef PFC_FILES_H
#define PFC_FILES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct PathList { char **v; size_t n, cap; } PathList;

enum {
    WALK_ALL = 1,          /* no default exclusions (corpus tools) */
    WALK_PY_ONLY = 2,      /* .py files only, not stubs (to compare with ast.parse runs) */
};

/* Adds the Python files under each path. Explicitly named files are always
 * added; missing paths are added too, so that reading them reports the error
 * in the normal output. Directory entries are sorted: output is deterministic. */
void walk_paths(PathList *out, char **paths, int npaths, int flags);
void path_list_free(PathList *l);

/* Largest file read: offsets are 32-bit and nobody lints a 1 GiB script. */
enum { MAX_SOURCE_BYTES = 1u << 30 };

/* Reads a whole file. On failure returns false and sets *err to a static or
 * strerror message. */
bool read_source(const char *path, char **data, uint32_t *len, const char **err);

#endif
