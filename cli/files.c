#define _DEFAULT_SOURCE
#include "files.h"
#include "../base/ignore.h"
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void push_path(PathList *l, const char *p)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        if (!l->v)
            abort();
    }
    l->v[l->n++] = strdup(p);
}

void path_list_free(PathList *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static bool is_python_file(const char *name, int flags)
{
    size_t n = strlen(name);
    return (n > 3 && strcmp(name + n - 3, ".py") == 0) ||
           (!(flags & WALK_PY_ONLY) && n > 4 && strcmp(name + n - 4, ".pyi") == 0);
}

/* Directories that never hold the user's own code. */
static bool excluded_dir(const char *dir, const char *name)
{
    static const char *const skip[] = {
        ".git", ".hg", ".svn", ".bzr", "__pycache__", "site-packages", "dist-packages",
        "node_modules", ".venv", "venv", ".tox", ".nox", ".mypy_cache", ".pytest_cache",
        ".ruff_cache", ".pfc_cache", ".eggs", "__pypackages__", ".ipynb_checkpoints",
    };
    for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++)
        if (strcmp(name, skip[i]) == 0)
            return true;
    /* any virtual environment, whatever its name */
    char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s/pyvenv.cfg", dir, name);
    struct stat st;
    return stat(buf, &st) == 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds dir/.gitignore's patterns, relative to the walk root as `rel`. */
static void load_gitignore(IgnoreList *ign, const char *dir, const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/.gitignore", dir);
    char *text;
    uint32_t len;
    const char *err;
    if (ign && read_source(path, &text, &len, &err)) {
        ignore_add_file(ign, rel, text, len);
        free(text);
    }
}

static void walk_dir(PathList *out, const char *dir, const char *rel, IgnoreList *ign,
                     int flags, int depth)
{
    if (depth > 64)
        return;
    size_t mark = ign ? ignore_mark(ign) : 0;
    load_gitignore(ign, dir, rel);
    DIR *d = opendir(dir);
    if (!d) {
        push_path(out, dir);  /* reading it will report why */
        if (ign)
            ignore_reset(ign, mark);
        return;
    }
    PathList names = {0};
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        push_path(&names, e->d_name);
    }
    closedir(d);
    if (names.n)
        qsort(names.v, names.n, sizeof *names.v, cmp_str);
    char path[4096], relpath[4096];
    for (size_t i = 0; i < names.n; i++) {
        /* "." is the default path: report "pkg/x.py", not "./pkg/x.py" */
        int w = strcmp(dir, ".") == 0
                    ? snprintf(path, sizeof path, "%s", names.v[i])
                    : snprintf(path, sizeof path, "%s/%s", strcmp(dir, "/") ? dir : "",
                               names.v[i]);
        if (w < 0 || (size_t)w >= sizeof path)
            continue;
        struct stat st;
        if (lstat(path, &st) != 0)
            continue;
        snprintf(relpath, sizeof relpath, "%s%s%s", rel, *rel ? "/" : "", names.v[i]);
        bool is_dir = S_ISDIR(st.st_mode);
        if (ign && ignore_match(ign, relpath, is_dir))
            continue;
        if (is_dir) {
            if ((flags & WALK_ALL) || !excluded_dir(dir, names.v[i]))
                walk_dir(out, path, relpath, ign, flags, depth + 1);
        } else if ((S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) && is_python_file(names.v[i], flags)) {
            push_path(out, path);
        }
    }
    path_list_free(&names);
    if (ign)
        ignore_reset(ign, mark);
}

void walk_paths(PathList *out, char **paths, int npaths, int flags)
{
    for (int i = 0; i < npaths; i++) {
        struct stat st;
        char *p = paths[i];
        size_t n = strlen(p);
        while (n > 1 && p[n - 1] == '/')
            p[--n] = 0;
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            /* .gitignore files are honoured below each directory walked,
             * except by the corpus tools, which see everything */
            IgnoreList *ign = (flags & WALK_ALL) ? NULL : ignore_new();
            walk_dir(out, p, "", ign, flags, 0);
            ignore_free(ign);
        } else
            push_path(out, p);
    }
}

bool read_source(const char *path, char **data, uint32_t *len, const char **err)
{
    *data = NULL;
    *len = 0;
    struct stat st;
    if (stat(path, &st) != 0) {
        *err = strerror(errno);
        return false;
    }
    if (S_ISDIR(st.st_mode)) {
        *err = "is a directory";
        return false;
    }
    if (st.st_size > MAX_SOURCE_BYTES) {
        *err = "file too large (pfc reads files up to 1 GiB)";
        return false;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        *err = strerror(errno);
        return false;
    }
    size_t cap = (size_t)st.st_size + 1, n = 0;
    char *buf = malloc(cap);
    if (!buf)
        abort();
    for (;;) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap) {
            if (ferror(f)) {
                *err = strerror(errno ? errno : EIO);
                fclose(f);
                free(buf);
                return false;
            }
            break;
        }
        if (cap >= MAX_SOURCE_BYTES) {   /* a file that grew while we read it */
            *err = "file too large (pfc reads files up to 1 GiB)";
            fclose(f);
            free(buf);
            return false;
        }
        cap *= 2;
        buf = realloc(buf, cap);
        if (!buf)
            abort();
    }
    fclose(f);
    *data = buf;
    *len = (uint32_t)n;
    return true;
}
