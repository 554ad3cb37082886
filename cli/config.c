#define _DEFAULT_SOURCE
#include "config.h"
#include "../base/buf.h"
#include "../base/toml.h"
#include "../estimator/gpu.h"
#include "cli.h"
#include "codes.h"
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

typedef struct Merged { const Config *base, *merged; } Merged;

struct ConfigCache {
    Arena arena;
    CacheEntry *v;            /* cap slots, a power of two; dir NULL: free */
    size_t n, cap;
    Config empty;
    const Config *fixed;       /* --config PATH or --isolated: no discovery */
    const Config *overrides;   /* --config "key = value" */
    ARENA_VEC(Merged) merged;  /* a discovered config with the overrides applied */
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

/* Codes are case-insensitive and must name a known code or prefix: a typo
 * would silently select nothing. */
static bool check_codes(Arena *a, StrList *l, uint32_t from, const char *path, const char *key,
                        const char **err)
{
    for (uint32_t i = from; i < l->n; i++) {
        char *code = arena_strndup(a, l->v[i], strlen(l->v[i]));
        code_upcase(code);
        l->v[i] = code;
    }
    char msg[300], where[80];
    snprintf(where, sizeof where, "[tool.pfc] %s", key);
    if (codes_check(l->v + from, l->n - from, where, msg, sizeof msg))
        return true;
    *err = arena_printf(a, "%s: %s", path, msg);
    return false;
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

/* The keys of [tool.pfc], in their kebab-case spelling (snake_case works too). */
static const char *const known_keys[] = {
    "select", "extend-select", "ignore", "exclude", "extend-exclude", "per-file-ignores",
    "target-version", "fail-on", "target-gpu", "target-world-size",
};

/* An unknown key is an error: a typo (`selct`) would be a setting silently
 * not applied. own_root: pfc.toml's top level, where a [tool] table is
 * someone else's. */
static bool check_keys(Arena *a, const TomlValue *t, const char *path, bool own_root,
                       const char **err)
{
    size_t nkeys = sizeof known_keys / sizeof known_keys[0];
    for (size_t i = 0; i < toml_len(t); i++) {
        const TomlValue *v;
        const char *key = toml_key_at(t, i, &v);
        char kebab[64];
        snprintf(kebab, sizeof kebab, "%s", key);
        for (char *p = kebab; *p; p++)
            *p = *p == '_' ? '-' : *p;
        const char *near = NULL;
        size_t best = (size_t)-1;
        for (size_t k = 0; k < nkeys && best; k++) {
            size_t d = edit_distance(kebab, known_keys[k]);
            if (d < best)
                best = d, near = known_keys[k];
        }
        if (best == 0 || (own_root && strcmp(key, "tool") == 0))
            continue;
        if (toml_kind(v) == TOML_TABLE && strcmp(key, "lint") == 0)
            *err = arena_printf(a, "%s: [tool.pfc.lint]: pfc has no 'lint' table (that is "
                                "ruff's layout); did you mean to put its keys in [tool.pfc] "
                                "itself?", path);
        else if (best <= 3)
            *err = arena_printf(a, "%s: [tool.pfc] unknown key '%s' (did you mean '%s'?)", path,
                                key, near);
        else {
            Buf known = {0};
            for (size_t k = 0; k < nkeys; k++)
                buf_printf(&known, "%s%s", k ? ", " : "", known_keys[k]);
            *err = arena_printf(a, "%s: [tool.pfc] unknown key '%s' (known: %.*s)", path, key,
                                (int)known.n, known.v);
            buf_free(&known);
        }
        return false;
    }
    return true;
}

static bool read_codes(Arena *a, const TomlValue *t, const char *key, StrList *out,
                       const char *path, const char **err)
{
    uint32_t from = out->n;
    return read_list(a, t, key, out, path, err) && check_codes(a, out, from, path, key, err);
}

static bool read_table(Arena *a, Config *cfg, const TomlValue *t, const char **err)
{
    const char *path = cfg->path;
    if (!read_codes(a, t, "select", &cfg->select, path, err) ||
        !read_codes(a, t, "extend-select", &cfg->extend_select, path, err) ||
        !read_codes(a, t, "ignore", &cfg->ignore, path, err) ||
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
    if (cfg->target_gpu && !gpu_target(cfg->target_gpu, &(const Gpu *){0}, &(uint32_t){0})) {
        *err = arena_printf(a, "%s: [tool.pfc] target_gpu: unknown GPU or instance '%s' "
                            "(pfc gpus lists them)", path, cfg->target_gpu);
        return false;
    }
    if ((v = get(t, "target-world-size")) &&
        (toml_kind(v) != TOML_INTEGER || toml_integer(v) < 1 || toml_integer(v) > 65536)) {
        *err = config_error(a, path, "target-world-size", "an integer from 1 to 65536");
        return false;
    }
    cfg->target_world_size = v ? toml_integer(v) : 0;
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
            for (size_t k = 0; k < toml_len(codes); k++) {
                if (!toml_string(toml_at(codes, k), NULL)) {
                    *err = config_error(a, path, "per-file-ignores", "arrays of codes");
                    return false;
                }
                list_push(a, l, toml_string(toml_at(codes, k), NULL));
            }
            if (!check_codes(a, l, 0, path, "per-file-ignores", err))
                return false;
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
    if (!check_keys(&c->arena, t, path, own_file && t == root, err) ||
        !read_table(&c->arena, cfg, t, err))
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

/* The overrides' settings replace the base's, as ruff's --config "k = v" does. */
static const Config *merge_overrides(ConfigCache *c, const Config *base)
{
    for (uint32_t i = 0; i < c->merged.n; i++)
        if (c->merged.v[i].base == base)
            return c->merged.v[i].merged;
    const Config *o = c->overrides;
    Config *m = arena_copy(&c->arena, base, sizeof *m);
    if (o->has_select)
        m->has_select = true, m->select = o->select;
    if (o->extend_select.n)
        m->extend_select = o->extend_select;
    if (o->ignore.n)
        m->ignore = o->ignore;
    if (o->exclude.n)
        m->exclude = o->exclude;
    if (o->per_file_ignores.n)
        m->per_file_ignores.v = o->per_file_ignores.v, m->per_file_ignores.n = o->per_file_ignores.n;
    m->target_minor = o->target_minor >= 0 ? o->target_minor : base->target_minor;
    m->fail_on = o->fail_on >= 0 ? o->fail_on : base->fail_on;
    m->target_gpu = o->target_gpu ? o->target_gpu : base->target_gpu;
    m->hash = base->hash ^ (o->hash * 0x9E3779B97F4A7C15ull);
    Merged e = {base, m};
    VEC_PUSH(&c->arena, c->merged, e);
    return m;
}

static char *parent_dir(const char *file)
{
    char *abs = absolute_path(file);
    char *slash = abs ? strrchr(abs, '/') : NULL;
    if (slash)
        *(slash == abs ? slash + 1 : slash) = 0;
    return abs;
}

bool config_cache_setup(ConfigCache *c, bool isolated, const char *file, const char *inline_toml,
                        size_t len, const char **err)
{
    *err = NULL;
    if (isolated)
        c->fixed = &c->empty;
    if (file && !isolated) {
        if (!path_exists(file)) {
            *err = arena_printf(&c->arena, "--config: no such file '%s'", file);
            return false;
        }
        const char *base = strrchr(file, '/');
        bool own = strcmp(base ? base + 1 : file, "pyproject.toml") != 0;
        char *dir = parent_dir(file);
        bool found;
        c->fixed = load(c, dir ? dir : ".", file, own, &found, err);
        free(dir);
        if (*err)
            return false;
        if (!c->fixed)
            c->fixed = &c->empty;   /* a pyproject.toml without [tool.pfc] */
    }
    if (inline_toml && len) {
        TomlError terr;
        const TomlValue *t = toml_parse(&c->arena, inline_toml, len, &terr);
        if (!t) {
            *err = arena_printf(&c->arena, "--config: %s (expected a file or 'key = value')",
                                terr.msg);
            return false;
        }
        Config *o = arena_zalloc(&c->arena, sizeof *o);
        o->dir = "";
        o->path = "--config";
        o->target_minor = o->fail_on = -1;
        o->hash = XXH3_64bits(inline_toml, len);
        if (!check_keys(&c->arena, t, o->path, false, err) || !read_table(&c->arena, o, t, err))
            return false;
        c->overrides = o;
    }
    return true;
}

static const Config *discover(ConfigCache *c, const char *file, const char **err);

const Config *config_for_file(ConfigCache *c, const char *file, const char **err)
{
    const Config *base = c->fixed ? c->fixed : discover(c, file, err);
    return base && c->overrides ? merge_overrides(c, base) : base;
}

static const Config *discover(ConfigCache *c, const char *file, const char **err)
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
    char *abs = cfg ? NULL : directory_realpath(dir);
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
