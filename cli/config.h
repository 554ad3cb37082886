/* [tool.pfc] in the nearest pyproject.toml, or pfc.toml (top-level keys),
 * found by walking up from each linted file's directory. */
#ifndef PFC_CONFIG_H
#define PFC_CONFIG_H
#include "../base/arena.h"
#include "../base/finding.h"
#include <stdbool.h>

typedef struct StrList { const char **v; uint32_t n, cap; } StrList;

typedef struct PerFileIgnore { const char *glob; StrList codes; } PerFileIgnore;

typedef struct Config {
    const char *dir;           /* absolute directory of the file ("" when none) */
    const char *path;          /* the file it came from, for messages */
    bool has_select;
    StrList select, extend_select, ignore, exclude;
    ARENA_VEC(PerFileIgnore) per_file_ignores;
    int target_minor;          /* -1 when unset */
    int fail_on;               /* a Severity, or -1 */
    const char *target_gpu;    /* NULL when unset; a name gpu_target() knows */
    int64_t target_world_size; /* ranks of a sharded run for TG901; 0 when unset */
    uint64_t hash;             /* of the file's bytes: part of the result cache key */
} Config;

typedef struct ConfigCache ConfigCache;

ConfigCache *config_cache_new(void);
void config_cache_free(ConfigCache *c);

/* --isolated (no configuration file), --config FILE (that file for every
 * linted file) and --config "key = value" (TOML lines whose settings replace
 * the file's); call before the first lookup. False with *err on a bad one. */
bool config_cache_setup(ConfigCache *c, bool isolated, const char *file, const char *inline_toml,
                        size_t len, const char **err);

/* The configuration for a file (NULL-free: an empty Config when none applies).
 * On a broken configuration file returns NULL and sets *err (path:line:col:
 * message). Not thread-safe: resolve in the main thread. */
const Config *config_for_file(ConfigCache *c, const char *file, const char **err);

/* The file's path relative to the config's directory, or the path itself
 * when it is outside; malloc'ed. */
char *config_relative(const Config *cfg, const char *file);

/* Codes ignored for this file by per-file-ignores. */
bool config_file_ignores(const Config *cfg, const char *file, const char *code);

/* Does an exclude pattern match this path (for directory walking)? */
bool config_excludes(const Config *cfg, const char *path);

bool str_list_has_prefix_of(const StrList *l, const char *code);

#endif
