#define _GNU_SOURCE
#include "files.h"
#include "../base/buf.h"
#include "../base/ignore.h"
#include "../base/intern.h"
#include <pthread.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- reading ------------------------------------------------------------------------ */

/* O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused after
 * fstat); O_NOCTTY: a terminal named as input must not become ours. */
enum { READ_FLAGS = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC };

/* open() for paths longer than PATH_MAX: one directory at a time. */
static int open_long(int dir, const char *path, int flags)
{
    int cur = dir;
    if (*path == '/') {
        cur = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        while (*path == '/')
            path++;
    }
    const char *slash;
    while (cur >= 0 || cur == AT_FDCWD) {
        if (!(slash = strchr(path, '/')))
            break;
        char name[NAME_MAX + 1];
        size_t n = (size_t)(slash - path);
        int next = -1;
        if (n > NAME_MAX)
            errno = ENAMETOOLONG;
        else {
            memcpy(name, path, n);
            name[n] = 0;
            next = openat(cur, n ? name : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
        }
        int saved = errno;
        if (cur != dir && cur >= 0)
            close(cur);
        errno = saved;
        cur = next;
        path = slash + 1;
    }
    if (cur < 0 && cur != AT_FDCWD)
        return -1;
    int fd = openat(cur, *path ? path : ".", flags);
    int saved = errno;
    if (cur != dir && cur >= 0)
        close(cur);
    errno = saved;
    return fd;
}

static int open_at(int dir, const char *path, int flags)
{
    int fd = openat(dir, path, flags);
    if (fd < 0 && errno == ENAMETOOLONG)
        fd = open_long(dir, path, flags);
    return fd;
}

/* What a path is when it is not a regular file; NULL when it is. */
static const char *not_regular(mode_t mode)
{
    if (S_ISREG(mode))
        return NULL;
    if (S_ISDIR(mode))
        return "is a directory";
    if (S_ISFIFO(mode))
        return "is a FIFO";
    if (S_ISCHR(mode))
        return "is a character device";
    if (S_ISBLK(mode))
        return "is a block device";
    if (S_ISSOCK(mode))
        return "is a socket";
    return "is not a regular file";
}

/* open() cannot open a socket (ENXIO): say what the path is instead. */
static const char *open_error(int dir, const char *path, int err)
{
    struct stat st;
    if (err == ENXIO && fstatat(dir, path, &st, 0) == 0 && not_regular(st.st_mode))
        return not_regular(st.st_mode);
    return strerror(err);
}

/* The size comes from fstat: one read() for a file that did not change since;
 * a file that grew is read to its end, up to the limit. */
static bool read_fd(int fd, char **data, uint32_t *len, const char **err)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        *err = strerror(errno);
        return false;
    }
    if ((*err = not_regular(st.st_mode)))
        return false;
    if (st.st_size > MAX_SOURCE_BYTES) {
        *err = "file too large (pfc reads files up to " MAX_SOURCE_TEXT ")";
        return false;
    }
    size_t want = (size_t)st.st_size, cap = want + 1, n = 0;
    char *buf = malloc(cap + 1);
    if (!buf)
        abort();
    for (;;) {
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            *err = strerror(errno);
            free(buf);
            return false;
        }
        n += (size_t)got;
        if (got == 0 || (n == want && n < cap))
            break;   /* the end, or exactly the size fstat gave: no read() to find EOF */
        if (n == cap) {
            if (cap > MAX_SOURCE_BYTES) {
                *err = "file too large (pfc reads files up to " MAX_SOURCE_TEXT ")";
                free(buf);
                return false;
            }
            cap = cap * 2 > (size_t)MAX_SOURCE_BYTES + 1 ? (size_t)MAX_SOURCE_BYTES + 1 : cap * 2;
            if (!(buf = realloc(buf, cap + 1)))
                abort();
        }
    }
    buf[n] = 0;
    *data = buf;
    *len = (uint32_t)n;
    return true;
}

static bool read_at(int dir, const char *path, char **data, uint32_t *len, const char **err)
{
    *data = NULL;
    *len = 0;
    int fd = open_at(dir, path, READ_FLAGS);
    if (fd < 0) {
        *err = open_error(dir, path, errno);
        return false;
    }
    bool ok = read_fd(fd, data, len, err);
    close(fd);
    return ok;
}

bool read_source(const char *path, char **data, uint32_t *len, const char **err)
{
    return read_at(AT_FDCWD, path, data, len, err);
}

bool path_exists(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0)
        return true;
    if (errno != ENAMETOOLONG)
        return false;
    int fd = open_long(AT_FDCWD, path, O_PATH | O_CLOEXEC);
    if (fd >= 0)
        close(fd);
    return fd >= 0;
}

char *absolute_path(const char *path)
{
    char *abs = realpath(path, NULL);
    const char *slash = strrchr(path, '/');
    if (abs || errno != ENAMETOOLONG || !slash || slash == path)
        return abs;
    char *head = strndup(path, (size_t)(slash - path));
    abs = head ? absolute_path(head) : NULL;
    free(head);
    const char *tail = slash + 1;
    if (!abs || !*tail || strcmp(tail, ".") == 0)
        return abs;
    if (strcmp(tail, "..") == 0) {
        char *last = strrchr(abs, '/');
        last[last == abs] = 0;
        return abs;
    }
    Buf b = {abs, strlen(abs), strlen(abs) + 1};
    if (strcmp(abs, "/") != 0)
        buf_putc(&b, '/');
    buf_puts(&b, tail);
    buf_putc(&b, 0);
    return b.v;
}

/* ---- the list ----------------------------------------------------------------------- */

static void push_entry(PathList *l, char *p, char *why)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        l->why = realloc(l->why, l->cap * sizeof *l->why);
        l->st = realloc(l->st, l->cap * sizeof *l->st);
        l->stated = realloc(l->stated, l->cap * sizeof *l->stated);
        if (!l->v || !l->why || !l->st || !l->stated)
            abort();
    }
    if (!p)
        abort();
    l->v[l->n] = p;
    l->stated[l->n] = false;
    l->why[l->n++] = why;
}

static void push_stated(PathList *l, const char *p, const struct stat *st)
{
    push_entry(l, strdup(p), NULL);
    l->st[l->n - 1] = *st;
    l->stated[l->n - 1] = true;
}

static void push_path(PathList *l, const char *p) { push_entry(l, strdup(p), NULL); }

static void push_error(PathList *l, const char *p, int err)
{
    push_entry(l, strdup(p), strdup(strerror(err)));
}

void path_list_free(PathList *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i]);
        free(l->why[i]);
    }
    free(l->v);
    free(l->why);
    free(l->st);
    free(l->stated);
    memset(l, 0, sizeof *l);
}

/* ---- walking ------------------------------------------------------------------------ */

static bool is_python_file(const char *name, int flags)
{
    size_t n = strlen(name);
    return (n > 3 && strcmp(name + n - 3, ".py") == 0) ||
           (!(flags & WALK_PY_ONLY) && n > 4 && strcmp(name + n - 4, ".pyi") == 0) ||
           ((flags & WALK_NOTEBOOKS) && n > 6 && strcmp(name + n - 6, ".ipynb") == 0);
}

/* Directories that never hold the user's own code (by name; virtual
 * environments of any name are recognised by their pyvenv.cfg). */
static bool excluded_name(const char *name)
{
    static const char *const skip[] = {
        ".git", ".hg", ".svn", ".bzr", "__pycache__", "site-packages", "dist-packages",
        "node_modules", ".venv", "venv", ".tox", ".nox", ".mypy_cache", ".pytest_cache",
        ".ruff_cache", ".pfc_cache", ".eggs", "__pypackages__", ".ipynb_checkpoints",
    };
    for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++)
        if (strcmp(name, skip[i]) == 0)
            return true;
    return false;
}

static bool is_venv(int dir)
{
    struct stat st;
    return fstatat(dir, "pyvenv.cfg", &st, 0) == 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One walk: paths grow and shrink in place as it descends, so neither depth
 * nor length is bounded; directories are opened relative to their parent. */
typedef struct Walk {
    PathList *out;
    IgnoreList *ign;
    int flags;
    Buf path, rel;   /* NUL-terminated */
} Walk;

static size_t path_enter(Buf *b, const char *name, bool bare)
{
    size_t mark = b->n;
    if (!bare && !(b->n == 1 && b->v[0] == '/'))
        buf_putc(b, '/');
    buf_puts(b, name);
    buf_putc(b, 0);
    b->n--;
    return mark;
}

static void path_leave(Buf *b, size_t mark)
{
    b->n = mark;
    b->v[mark] = 0;
}

/* Adds the directory's .gitignore patterns, relative to the walk root. */
static void load_gitignore(Walk *w, int dir)
{
    char *text;
    uint32_t len;
    const char *err;
    if (w->ign && read_at(dir, ".gitignore", &text, &len, &err)) {
        ignore_add_file(w->ign, w->rel.v, text, len);
        free(text);
    }
}

/* Sorted names, with the d_type of each after its NUL (DT_UNKNOWN when the
 * file system does not say): output is deterministic. */
static void list_dir(DIR *d, PathList *names)
{
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        size_t n = strlen(e->d_name);
        char *s = malloc(n + 2);
        if (!s)
            abort();
        memcpy(s, e->d_name, n + 1);
        s[n + 1] = (char)e->d_type;
        push_entry(names, s, NULL);
    }
    if (names->n)
        qsort(names->v, names->n, sizeof *names->v, cmp_str);
}

static void walk_dir(Walk *w, int fd);

static void walk_entry(Walk *w, int dir, const char *name, unsigned char type)
{
    if (type == DT_UNKNOWN) {
        struct stat st;
        if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            return;   /* gone since it was listed */
        type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_LNK;
    }
    bool is_dir = type == DT_DIR;
    size_t rel_mark = path_enter(&w->rel, name, w->rel.n == 0);
    if (w->ign && ignore_match(w->ign, w->rel.v, is_dir)) {
        path_leave(&w->rel, rel_mark);
        return;
    }
    /* "." is the default path: report "pkg/x.py", not "./pkg/x.py" */
    bool bare = w->path.n == 1 && w->path.v[0] == '.';
    if (bare)
        path_leave(&w->path, 0);
    size_t mark = path_enter(&w->path, name, bare);
    if (is_dir && ((w->flags & WALK_ALL) || !excluded_name(name))) {
        int sub = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0)
            push_error(w->out, w->path.v, errno);
        else if (!(w->flags & WALK_ALL) && is_venv(sub))
            close(sub);
        else
            walk_dir(w, sub);
    } else if (!is_dir && is_python_file(name, w->flags)) {
        /* FIFOs, devices and sockets too: reading them says what they are */
        push_path(w->out, w->path.v);
    }
    path_leave(&w->path, mark);
    if (bare)
        path_enter(&w->path, ".", true);
    path_leave(&w->rel, rel_mark);
}

/* Takes ownership of fd. */
static void walk_dir(Walk *w, int fd)
{
    size_t mark = w->ign ? ignore_mark(w->ign) : 0;
    load_gitignore(w, fd);
    DIR *d = fdopendir(fd);
    if (!d) {
        push_error(w->out, w->path.v, errno);
        close(fd);
    } else {
        PathList names = {0};
        list_dir(d, &names);
        for (size_t i = 0; i < names.n; i++) {
            const char *name = names.v[i];
            walk_entry(w, dirfd(d), name, (unsigned char)name[strlen(name) + 1]);
        }
        path_list_free(&names);
        closedir(d);
    }
    if (w->ign)
        ignore_reset(w->ign, mark);
}

/* The named path opened as a directory, or -1 (*stated when st holds its
 * stat). A stat first: most named paths are files, and a failed
 * open(O_DIRECTORY) costs as much as the stat. */
static int named_directory(const char *p, struct stat *st, bool *stated)
{
    *stated = stat(p, st) == 0;
    if (*stated ? !S_ISDIR(st->st_mode) : errno != ENAMETOOLONG)
        return -1;
    return open_at(AT_FDCWD, p, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
}

void walk_paths(PathList *out, char **paths, int npaths, int flags)
{
    for (int i = 0; i < npaths; i++) {
        char *p = paths[i];
        size_t n = strlen(p);
        while (n > 1 && p[n - 1] == '/')
            p[--n] = 0;
        struct stat st;
        bool stated;
        int fd = named_directory(p, &st, &stated);
        if (fd < 0 && stated && !S_ISDIR(st.st_mode)) {
            push_stated(out, p, &st);
            continue;
        }
        if (fd < 0) {
            push_path(out, p);   /* missing, or cannot be opened: reading it reports why */
            continue;
        }
        /* .gitignore files are honoured below each directory walked,
         * except by the corpus tools, which see everything */
        Walk w = {out, (flags & WALK_ALL) ? NULL : ignore_new(), flags, {0}, {0}};
        path_enter(&w.path, p, true);
        buf_putc(&w.rel, 0);
        w.rel.n = 0;
        walk_dir(&w, fd);
        ignore_free(w.ign);
        buf_free(&w.path);
        buf_free(&w.rel);
    }
}

/* ---- directories, resolved once ------------------------------------------------------- */

static pthread_mutex_t dir_lock = PTHREAD_MUTEX_INITIALIZER;
static Arena dir_arena;
static Interner dir_names;   /* the directories as named: id -> dir_known[id] */
typedef struct KnownDir { bool asked; char *abs; /* NULL: did not resolve */ } KnownDir;
static KnownDir *dir_known;
static uint32_t dir_cap;

static bool is_plain_component(const char *name)
{
    return *name && strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

/* The parent's answer plus the last component, when that component is a
 * directory and no symlink (one lstat); else realpath() of the whole. */
static char *resolve_directory(const char *dir)
{
    const char *slash = strrchr(dir, '/');
    const char *name = slash ? slash + 1 : dir;
    if (!is_plain_component(name) || slash == dir)
        return absolute_path(dir);
    char *parent = slash ? strndup(dir, (size_t)(slash - dir)) : strdup(".");
    if (!parent)
        abort();
    char *base = directory_realpath(parent);
    free(parent);
    if (!base)
        return absolute_path(dir);
    Buf b = {0};
    buf_puts(&b, base);
    if (strcmp(base, "/") != 0)
        buf_putc(&b, '/');
    buf_puts(&b, name);
    buf_putc(&b, 0);
    free(base);
    struct stat st;
    if (lstat(b.v, &st) == 0 && S_ISDIR(st.st_mode))
        return b.v;
    buf_free(&b);
    return absolute_path(dir);   /* a symlink, missing, or too long for lstat */
}

static int64_t remembered_directory(const char *dir, uint32_t len)
{
    if (!dir_arena.head)
        return -1;
    uint32_t id = intern_lookup(&dir_names, dir, len);
    return id && id < dir_cap && dir_known[id].asked ? (int64_t)id : -1;
}

char *directory_realpath(const char *dir)
{
    size_t len = strlen(dir);
    if (len > UINT32_MAX / 2)
        return absolute_path(dir);
    pthread_mutex_lock(&dir_lock);
    int64_t known = remembered_directory(dir, (uint32_t)len);
    char *abs = known >= 0 && dir_known[known].abs ? strdup(dir_known[known].abs) : NULL;
    pthread_mutex_unlock(&dir_lock);
    if (known >= 0)
        return abs;
    abs = resolve_directory(dir);   /* recursion takes the lock for the parent */
    pthread_mutex_lock(&dir_lock);
    if (!dir_arena.head) {
        arena_init(&dir_arena);
        intern_init(&dir_names, &dir_arena);
    }
    uint32_t id = intern(&dir_names, arena_copy(&dir_arena, dir, len + 1), (uint32_t)len);
    if (id >= dir_cap) {
        uint32_t cap = dir_cap ? dir_cap : 64;
        while (cap <= id)
            cap *= 2;
        dir_known = realloc(dir_known, cap * sizeof *dir_known);
        if (!dir_known)
            abort();
        memset(dir_known + dir_cap, 0, (cap - dir_cap) * sizeof *dir_known);
        dir_cap = cap;
    }
    if (!dir_known[id].asked)   /* another thread may have answered meanwhile */
        dir_known[id] = (KnownDir){true, abs ? strdup(abs) : NULL};
    pthread_mutex_unlock(&dir_lock);
    return abs;
}
