#define _DEFAULT_SOURCE
#include "config.h"
#include "../base/buf.h"
#include "../base/toml.h"
#include "cli.h"
#include "files.h"
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

/* Directories (as written and absolute) to their configuration: an open
 * addressing table, so that a run looks each directory up in O(1). */
typedef struct CacheEntry { char *dir; uint64_t hash; const Config *cfg; } CacheEntry;

struct ConfigCache {
    Arena arena;
    CacheEntry *v;            /* cap slots, a power of two; dir NULL: free */
    size_t n, cap;
    Config empty;
};

ConfigCache *config_cache_new(void)
{
    ConfigCache *c = calloc(1, sizeof *c);
    if (!c)
        abort();
    arena_init(&c->arena);
    c->empty.dir = "";
    c->empty.target_minor = -1;
    c->empty.fail_on = -1;
    return c;
}

void config_cache_free(ConfigCache *c)
{
    for (size_t i = 0; i < c->cap; i++)
        free(c->v[i].dir);
    free(c->v);
    arena_free(&c->arena);
    free(c);
}

static CacheEntry *slot(const ConfigCache *c, const char *dir, uint64_t hash)
{
    size_t i = (size_t)hash & (c->cap - 1);
    while (c->v[i].dir && (c->v[i].hash != hash || strcmp(c->v[i].dir, dir) != 0))
        i = (i + 1) & (c->cap - 1);
    return &c->v[i];
}

static void grow(ConfigCache *c)
{
    CacheEntry *old = c->v;
    size_t old_cap = c->cap;
    c->cap = c->cap ? c->cap * 2 : 64;
    if (!(c->v = calloc(c->cap, sizeof *c->v)))
        abort();
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].dir)
            *slot(c, old[i].dir, old[i].hash) = old[i];
    free(old);
}

static void remember(ConfigCache *c, const char *dir, const Config *cfg)
{
    if (2 * (c->n + 1) > c->cap)
        grow(c);
    uint64_t hash = XXH3_64bits(dir, strlen(dir));
    CacheEntry *e = slot(c, dir, hash);
    if (e->dir)
        return;   /* the first answer stands, as it did for the lookups before */
    if (!(e->dir = strdup(dir)))
        abort();
    e->hash = hash;
    e->cfg = cfg;
    c->n++;
}

static const Config *cached(const ConfigCache *c, const char *dir)
{
    if (!c->n)
        return NULL;
    const CacheEntry *e = slot(c, dir, XXH3_64bits(dir, strlen(dir)));
    return e->dir ? e->cfg : NULL;
}

/* ---- reading one file ---------------------------------------------------------------- */

static void list_push(Arena *a, StrList *l, const char *s)
{
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 8;
        const char **v = arena_alloc(a, cap * sizeof *v);
        if (l->n)
            memcpy(v, l->v, l->n * sizeof *v);
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = s;
}

/* A key under either spelling: "fail-on" or "fail_on". */
static const TomlValue *get(const TomlValue *t, const char *kebab)
{
    const TomlValue *v = toml_table_get(t, kebab);
    if (v)
        return v;
    char snake[64];
    snprintf(snake, sizeof snake, "%s", kebab);
    for (char *p = snake; *p; p++)
        if (*p == '-')
            *p = '_';
    return toml_table_get(t, snake);
}

static const char *config_error(Arena *a, const char *path, const char *key, const char *want)
{
    return arena_printf(a, "%s: [tool.pfc] %s: expected %s", path, key, want);
}

static bool read_list(Arena *a, const TomlValue *t, const char *key, StrList *out,
                      const char *path, const char **err)
{
    const TomlValue *v = get(t, key);
    if (!v)
        return true;
    if (toml_kind(v) != TOML_ARRAY) {
        *err = config_error(a, path, key, "an array of strings");
        return false;
    }
    for (size_t i = 0; i < toml_len(v); i++) {
        const char *s = toml_string(toml_at(v, i), NULL);
        if (!s) {
            *err = config_error(a, path, key, "an array of strings");
            return false;
        }
        list_push(a, out, s);
    }
    return true;
}

static bool read_table(Arena *a, Config *cfg, const TomlValue *t, const char **err)
{
    const char *path = cfg->path;
    if (!read_list(a, t, "select", &cfg->select, path, err) ||
        !read_list(a, t, "extend-select", &cfg->extend_select, path, err) ||
        !read_list(a, t, "ignore", &cfg->ignore, path, err) ||
        !read_list(a, t, "exclude", &cfg->exclude, path, err) ||
        !read_list(a, t, "extend-exclude", &cfg->exclude, path, err))
        return false;
    cfg->has_select = get(t, "select") != NULL;
    const TomlValue *v;
    if ((v = get(t, "target-version"))) {
        const char *s = toml_string(v, NULL);
        if (!s || (cfg->target_minor = parse_target_version(s)) < 0) {
            *err = config_error(a, path, "target-version", "\"3.9\" to \"3.13\" (or \"py39\"...)");
            return false;
        }
    }
    if ((v = get(t, "fail-on"))) {
        const char *s = toml_string(v, NULL);
        static const char *const names[] = {"note", "warning", "error"};
        cfg->fail_on = -1;
        for (int i = 0; s && i < 3; i++)
            if (strcmp(s, names[i]) == 0)
                cfg->fail_on = i;
        if (cfg->fail_on < 0) {
            *err = config_error(a, path, "fail-on", "\"note\", \"warning\" or \"error\"");
            return false;
        }
    }
    if ((v = get(t, "target-gpu")) && !(cfg->target_gpu = toml_string(v, NULL))) {
        *err = config_error(a, path, "target_gpu", "a string");
        return false;
    }
    if ((v = get(t, "per-file-ignores"))) {
        if (toml_kind(v) != TOML_TABLE) {
            *err = config_error(a, path, "per-file-ignores", "a table of glob = [codes]");
            return false;
        }
        for (size_t i = 0; i < toml_len(v); i++) {
            const TomlValue *codes;
            PerFileIgnore p = {toml_key_at(v, i, &codes), {0}};
            StrList *l = &p.codes;
            if (toml_kind(codes) != TOML_ARRAY) {
                *err = config_error(a, path, "per-file-ignores", "arrays of codes");
                return false;
            }
            for (size_t k = 0; k < toml_len(codes); k++)
                if (toml_string(toml_at(codes, k), NULL))
                    list_push(a, l, toml_string(toml_at(codes, k), NULL));
            VEC_PUSH(a, cfg->per_file_ignores, p);
        }
    }
    return true;
}

/* Parses `path`; *found is false when it holds no pfc settings (a pyproject
 * without [tool.pfc]). */
static const Config *load(ConfigCache *c, const char *dir, const char *path, bool own_file,
                          bool *found, const char **err)
{
    char *src;
    uint32_t len;
    const char *ioerr;
    *found = false;
    if (!read_source(path, &src, &len, &ioerr)) {
        *err = arena_printf(&c->arena, "%s: cannot read: %s", path, ioerr);
        return NULL;
    }
    TomlError terr;
    const TomlValue *root = toml_parse(&c->arena, src, len, &terr);
    uint64_t hash = XXH3_64bits(src, len);
    free(src);
    if (!root) {
        *err = arena_printf(&c->arena, "%s:%u:%u: %s", path, terr.line, terr.col, terr.msg);
        return NULL;
    }
    const TomlValue *t = own_file ? root : toml_path(root, "tool.pfc");
    if (own_file && toml_table_get(root, "tool"))
        t = toml_path(root, "tool.pfc") ? toml_path(root, "tool.pfc") : root;
    if (!t)
        return NULL;
    Config *cfg = arena_zalloc(&c->arena, sizeof *cfg);
    cfg->dir = arena_strndup(&c->arena, dir, strlen(dir));
    cfg->path = arena_strndup(&c->arena, path, strlen(path));
    cfg->target_minor = -1;
    cfg->fail_on = -1;
    cfg->hash = hash;
    if (!read_table(&c->arena, cfg, t, err))
        return NULL;
    *found = true;
    return cfg;
}

/* The first of dir's ancestors (itself included) with pfc.toml or a
 * pyproject.toml holding [tool.pfc]; NULL with *err set on a broken file. */
static const Config *search_up(ConfigCache *c, const char *dir, const char **err)
{
    char *cur = strdup(dir);
    Buf path = {0};
    const Config *cfg = NULL;
    while (!cfg && cur) {
        if ((cfg = cached(c, cur)))
            break;
        static const char *const names[] = {"pfc.toml", "pyproject.toml"};
        for (int i = 0; i < 2 && !cfg; i++) {
            path.n = 0;
            buf_printf(&path, "%s/%s%c", strcmp(cur, "/") ? cur : "", names[i], 0);
            if (!path_exists(path.v))
                continue;
            bool found;
            cfg = load(c, cur, path.v, i == 0, &found, err);
            if (*err)
                goto out;
        }
        char *last = strrchr(cur, '/');
        if (!last || last == cur)
            break;
        *last = 0;
    }
    cfg = cfg ? cfg : &c->empty;
out:
    buf_free(&path);
    free(cur);
    return cfg;
}

const Config *config_for_file(ConfigCache *c, const char *file, const char **err)
{
    const char *slash = strrchr(file, '/');
    char *dir = slash ? strndup(file, (size_t)(slash - file)) : strdup(".");
    if (!dir)
        abort();
    if (!*dir) {
        free(dir);
        dir = strdup("/");
    }
    /* the directory as written is a key too: one realpath() per directory,
     * not per file (a string names one directory throughout a run) */
    const Config *cfg = cached(c, dir);
    char *abs = cfg ? NULL : absolute_path(dir);
    if (!cfg && !abs)
        cfg = &c->empty;
    if (!cfg && !(cfg = cached(c, abs)) && (cfg = search_up(c, abs, err)))
        remember(c, abs, cfg);
    if (cfg && abs && strcmp(abs, dir) != 0)
        remember(c, dir, cfg);
    free(abs);
    free(dir);
    return cfg;
}

char *config_relative(const Config *cfg, const char *file)
{
    char *abs = *cfg->dir ? absolute_path(file) : NULL;
    size_t n = strlen(cfg->dir);
    char *rel = abs && strncmp(abs, cfg->dir, n) == 0 && abs[n] == '/' ? strdup(abs + n + 1)
                                                                       : strdup(file);
    free(abs);
    if (!rel)
        abort();
    return rel;
}

static bool glob_matches(const char *glob, const char *rel)
{
    if (fnmatch(glob, rel, 0) == 0)
        return true;
    const char *base = strrchr(rel, '/');
    return !strchr(glob, '/') && base && fnmatch(glob, base + 1, 0) == 0;
}

bool str_list_has_prefix_of(const StrList *l, const char *code)
{
    for (uint32_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i], "ALL") == 0 || strncmp(code, l->v[i], strlen(l->v[i])) == 0)
            return true;
    return false;
}

bool config_file_ignores(const Config *cfg, const char *file, const char *code)
{
    if (!cfg->per_file_ignores.n)
        return false;
    char *rel = config_relative(cfg, file);
    bool ignored = false;
    for (uint32_t i = 0; i < cfg->per_file_ignores.n && !ignored; i++) {
        const PerFileIgnore *p = &cfg->per_file_ignores.v[i];
        ignored = glob_matches(p->glob, rel) && str_list_has_prefix_of(&p->codes, code);
    }
    free(rel);
    return ignored;
}

bool config_excludes(const Config *cfg, const char *path)
{
    if (!cfg->exclude.n)
        return false;
    char *rel = config_relative(cfg, path);
    bool excluded = false;
    for (uint32_t i = 0; i < cfg->exclude.n && !excluded; i++)
        excluded = glob_matches(cfg->exclude.v[i], rel);
    free(rel);
    return excluded;
}
