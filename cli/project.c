/* The project, the CLI's half (see project.h).
 *
 * Summaries are memoized by (module, depth left): the summary of M with k
 * levels left reads its imports' summaries with k - 1 left, and with none
 * left an import is unknown. So the result is a function of the module and
 * the bound alone, whichever file asks first and in whatever thread: an
 * import cycle simply runs out of levels, and no order of linting changes a
 * finding. A summary that never ran out (no chain reached the bound) is
 * exact: it serves every later request with at least as many levels. */
#define _GNU_SOURCE
#include "project.h"
#include "files.h"
#include "cache.h"
#include "../parser/parser.h"
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

/* How far imports are followed from a linted file: train.py -> models/ ->
 * models/gpt.py -> models/layers.py is three. */
enum { MAX_IMPORT_DEPTH = 6, ABSENT_BIT = 1u << 31 };

typedef struct IdVec { uint32_t *v; uint32_t n, cap; } IdVec;

static void *grow(void *v, uint32_t *cap, uint32_t n, size_t elem)
{
    if (n < *cap)
        return v;
    *cap = *cap ? *cap * 2 : 8;
    v = realloc(v, *cap * elem);
    if (!v)
        abort();
    return v;
}

static void id_push(IdVec *s, uint32_t id)
{
    s->v = grow(s->v, &s->cap, s->n, sizeof *s->v);
    s->v[s->n++] = id;
}

static void id_append(IdVec *s, const IdVec *t)
{
    for (uint32_t i = 0; i < t->n; i++)
        id_push(s, t->v[i]);
}

static int id_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void id_sort_unique(IdVec *s)
{
    if (!s->n)
        return;
    qsort(s->v, s->n, sizeof *s->v, id_cmp);
    uint32_t k = 1;
    for (uint32_t i = 1; i < s->n; i++)
        if (s->v[i] != s->v[k - 1])
            s->v[k++] = s->v[i];
    s->n = k;
}

static char *xstrdup(const char *s)
{
    char *d = strdup(s);
    if (!d)
        abort();
    return d;
}

/* ---- tables ------------------------------------------------------------------------------ */

/* What is at a path, looked up once per run: imports are resolved by
 * probing the few names they can be (stat), never by listing a directory. */
typedef enum PathKind { PATH_NONE, PATH_FILE, PATH_DIR } PathKind;

typedef struct Probe {
    char *path;
    uint8_t kind;        /* PathKind */
    uint64_t dir_stamp;  /* its directory's, taken before the probe (dir_stamp) */
    uint64_t dir_order;  /* dir_order(path): how cache entries sort it */
    int64_t root;        /* a directory: the package root of files in it (probe id), -1 until known */
} Probe;

/* One summary of a module: with `k` levels of imports left, or exact. */
typedef struct Memo {
    bool done, cut;      /* cut: some import chain ran out of levels */
    bool relevant;       /* relevance memos: the module or an import mentions torch */
    uint8_t height;      /* exact: the longest import chain below it */
    ProjectSummary *summary;
    IdVec closure;       /* the modules it read, and the paths it found absent */
    IdVec refs;          /* the memos of its imports it read (memo_ref): flattened only
                            for a cache entry, so a long import chain costs no copies */
} Memo;

/* A memo by name: module, levels left, relevance or summary. */
static uint32_t memo_ref(uint32_t m, int levels, bool relevance)
{
    return m << 4 | (uint32_t)levels << 1 | relevance;
}

typedef struct Module {
    char *path;
    uint64_t hash;
    bool hashed;
    bool stamped;
    uint64_t stamp;                  /* module_stamp before its first read this run */
    uint64_t dir_order;              /* dir_order(path) */
    Memo exact;                      /* summaries */
    Memo at[MAX_IMPORT_DEPTH + 1];
    bool scanned, mentions;          /* its text read once: does it name torch? */
    IdVec imports;                   /* the modules its import lines name */
    IdVec scan_read;                 /* itself and the paths the scan found absent */
    Memo rel_exact;                  /* relevance: can the summary say anything? */
    Memo rel_at[MAX_IMPORT_DEPTH + 1];
} Module;

typedef struct Stamps { uint32_t *v; size_t cap; } Stamps;

typedef struct PathSlot { const char *path; uint32_t id; } PathSlot;
typedef struct PathMap { PathSlot *slots; uint32_t mask, n; } PathMap;

struct Project {
    pthread_mutex_t lock;
    char **inputs;       /* as given: their common directory, computed when needed */
    int ninputs;
    char *inputs_root;
    bool inputs_root_known;
    Probe *probes;
    uint32_t nprobes, capprobes;
    Module *mods;
    uint32_t nmods, capmods;
    PathMap probe_map, mod_map;
    /* directories' stamps (dir_stamp), once per run */
    PathMap stamp_map;
    struct DirStamp { char *path; uint64_t stamp; } *stamps;
    uint32_t nstamps, capstamps;
    int64_t start_ns;    /* CLOCK_REALTIME at project_new: what is racy */
    uint64_t *known;     /* project_deps_current's lines found current (hashes) */
    PathMap known_stat_map;              /* project_known_stats: path -> known_stats[id] */
    const struct stat *known_stats;
    uint32_t known_mask, nknown;
    /* find_module's answers: "dir\ntext" -> index into finds */
    PathMap find_map;
    struct Found { int64_t id; uint32_t absent_at, nabsent; } *finds;
    uint32_t nfinds, capfinds;
    IdVec found_absent;  /* the absent paths each answer recorded, in runs */
    /* project_request_deps' marks: an id is seen in this flattening when its
     * stamp is the flattening's round (no clearing, no sort per file) */
    Stamps refs_seen, mods_seen, probes_seen;
    uint32_t round;
    /* linted files' directories as named -> absolute (NULL: unresolvable) */
};

struct ProjectRequest {
    Project *P;
    const char *path;    /* the linted file, as named */
    Memo reads;          /* what its facts read (closure and refs) */
    char *dir;           /* linted_dir(path), once asked (NULL: none) */
    bool dir_known;
};

/* The importing file while its imports resolve. */
typedef struct Importer {
    Project *P;
    const char *dir;
    uint32_t root;       /* its package root (probe id) */
    int levels;          /* levels its imports get */
    Memo *into;          /* collects closure, cut and height */
} Importer;

static PathSlot *map_slot(PathMap *m, const char *path)
{
    uint64_t h = XXH3_64bits(path, strlen(path));
    for (uint32_t i = (uint32_t)h & m->mask;; i = (i + 1) & m->mask)
        if (!m->slots[i].path || strcmp(m->slots[i].path, path) == 0)
            return &m->slots[i];
}

static void map_put(PathMap *m, const char *path, uint32_t id)
{
    if ((m->n + 1) * 2 > m->mask + 1) {
        PathMap bigger = {calloc((m->mask + 1) * 2, sizeof(PathSlot)), (m->mask + 1) * 2 - 1, 0};
        if (!bigger.slots)
            abort();
        for (uint32_t i = 0; m->slots && i <= m->mask; i++)
            if (m->slots[i].path)
                *map_slot(&bigger, m->slots[i].path) = m->slots[i];
        bigger.n = m->n;
        free(m->slots);
        *m = bigger;
    }
    PathSlot *s = map_slot(m, path);
    s->path = path;
    s->id = id;
    m->n++;
}

static int64_t map_get(PathMap *m, const char *path)
{
    if (!m->slots)
        return -1;
    PathSlot *s = map_slot(m, path);
    return s->path ? (int64_t)s->id : -1;
}

/* ---- directory stamps --------------------------------------------------------------------- */

/* An absent dir/x.py can appear only if dir's listing changes, which moves
 * dir's mtime and ctime: a cache entry records, with each absent path, the
 * stamp of its directory taken before the path was probed, and a later run
 * that finds the same stamp knows the path is still absent without a stat
 * (33,000 stats of the standard library's entries become about 1,100). A
 * directory that does not exist (or is not one) has its parent's stamp: the
 * name appears only by a change there. A stamp is 0 (unknown: the paths are
 * stat'ed) when the directory's times are not older than the run's start by
 * CACHE_RACY_NS (a change in the same tick would not move them), or when it
 * cannot be examined. */
static char *parent_of(const char *path);

/* The directory part of path as written: "." for a bare name, "/" for "/x". */
static char *dir_part(const char *path)
{
    return strchr(path, '/') ? parent_of(path) : xstrdup(".");
}

/* The order of deps: by a hash of the directory part, then by path. It
 * groups each directory's paths (which share all but their last component)
 * without comparing long common prefixes: strcmp over sorted full paths was
 * half the cost of an entry's deps. Deterministic, so entries are too. */
static uint64_t dir_order(const char *path)
{
    const char *slash = strrchr(path, '/');
    return XXH3_64bits(path, slash ? (size_t)(slash - path) : 0);
}

/* The stamp of a directory or file (its path, device, inode, size, times). */
static uint64_t stamp_of(Project *P, const char *dir, const struct stat *st)
{
    CacheStat cs;
    cache_stat_of(st, &cs);
    if (cs.mtime_ns >= P->start_ns - CACHE_RACY_NS || cs.ctime_ns >= P->start_ns - CACHE_RACY_NS)
        return 0;
    return XXH3_64bits_withSeed(&cs, sizeof cs, XXH3_64bits(dir, strlen(dir))) | 1;
}

static uint64_t dir_stamp(Project *P, const char *dir)
{
    int64_t id = map_get(&P->stamp_map, dir);
    if (id >= 0)
        return P->stamps[id].stamp;
    struct stat st;
    uint64_t stamp = 0;
    int err = stat(dir, &st) == 0 ? 0 : errno;
    if (!err && S_ISDIR(st.st_mode)) {
        stamp = stamp_of(P, dir, &st);
    } else if ((!err || err == ENOENT || err == ENOTDIR) && strcmp(dir, "/") != 0 &&
               strcmp(dir, ".") != 0) {
        char *up = dir_part(dir);
        stamp = dir_stamp(P, up);
        free(up);
    }
    P->stamps = grow(P->stamps, &P->capstamps, P->nstamps, sizeof *P->stamps);
    P->stamps[P->nstamps] = (struct DirStamp){xstrdup(dir), stamp};
    map_put(&P->stamp_map, P->stamps[P->nstamps].path, P->nstamps);
    P->nstamps++;
    return stamp;
}

/* A module file's stat as a stamp, taken before it is first read: a later
 * run that finds the same stamp knows its bytes (and their hash) unchanged
 * without reading it. 0 (read and hash it) when racy or not a regular file. */
static uint64_t module_stamp(Project *P, uint32_t m)
{
    Module *M = &P->mods[m];
    if (M->stamped)
        return M->stamp;
    struct stat st;
    M->stamped = true;
    int64_t known = map_get(&P->known_stat_map, M->path);
    const struct stat *s = known >= 0 ? &P->known_stats[known] : stat(M->path, &st) == 0 ? &st : NULL;
    M->stamp = s && S_ISREG(s->st_mode) ? stamp_of(P, M->path, s) : 0;
    return M->stamp;
}

static uint64_t parent_stamp(Project *P, const char *path)
{
    char *dir = dir_part(path);
    uint64_t stamp = dir_stamp(P, dir);
    free(dir);
    return stamp;
}

static uint32_t probe_id(Project *P, const char *path)
{
    int64_t id = map_get(&P->probe_map, path);
    if (id >= 0)
        return (uint32_t)id;
    uint64_t stamp = parent_stamp(P, path);   /* before the probe: a later creation shows */
    P->probes = grow(P->probes, &P->capprobes, P->nprobes, sizeof *P->probes);
    Probe *p = &P->probes[P->nprobes];
    struct stat st;
    p->dir_stamp = stamp;
    p->path = xstrdup(path);
    p->dir_order = dir_order(path);
    p->kind = stat(path, &st) != 0 ? PATH_NONE : S_ISDIR(st.st_mode) ? PATH_DIR : PATH_FILE;
    p->root = -1;
    map_put(&P->probe_map, p->path, P->nprobes);
    return P->nprobes++;
}

static PathKind probe_kind(Project *P, const char *path)
{
    uint32_t id = probe_id(P, path);   /* may grow the table: index after */
    return (PathKind)P->probes[id].kind;
}

static uint32_t module_id(Project *P, const char *path)
{
    int64_t id = map_get(&P->mod_map, path);
    if (id >= 0)
        return (uint32_t)id;
    P->mods = grow(P->mods, &P->capmods, P->nmods, sizeof *P->mods);
    Module *m = &P->mods[P->nmods];
    memset(m, 0, sizeof *m);
    m->path = xstrdup(path);
    m->dir_order = dir_order(path);
    map_put(&P->mod_map, m->path, P->nmods);
    return P->nmods++;
}

/* ---- where things are -------------------------------------------------------------------- */

static bool is_within(const char *path, const char *root)
{
    size_t n = strlen(root);
    if (n == 1 && root[0] == '/')
        return path[0] == '/';
    return strncmp(path, root, n) == 0 && (path[n] == '/' || path[n] == 0);
}

/* The directory part of an absolute path (malloc'ed; "/" stays "/"). */
static char *parent_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash && slash != path ? (size_t)(slash - path) : 1;
    char *d = xstrdup(path);
    d[n] = 0;
    return d;
}

/* dir/name[0..len) (malloc'ed); a path is built on every probe, so no printf. */
static char *join_n(const char *dir, const char *name, size_t len)
{
    size_t dl = strlen(dir);
    bool slash = !(dl == 1 && dir[0] == '/');
    char *p = malloc(dl + slash + len + 1);
    if (!p)
        abort();
    memcpy(p, dir, dl);
    if (slash)
        p[dl] = '/';
    memcpy(p + dl + slash, name, len);
    p[dl + slash + len] = 0;
    return p;
}

static char *join(const char *dir, const char *name) { return join_n(dir, name, strlen(name)); }

static const char *const markers[] = {"pyproject.toml", "setup.py", "setup.cfg", ".git"};

static bool has_marker(Project *P, const char *dir)
{
    for (size_t i = 0; i < sizeof markers / sizeof markers[0]; i++) {
        char *p = join(dir, markers[i]);
        bool found = probe_kind(P, p) != PATH_NONE;
        free(p);
        if (found)
            return true;
    }
    return false;
}

static char *common_root(char **inputs, int n);

static const char *inputs_root(Project *P)
{
    if (!P->inputs_root_known)
        P->inputs_root = common_root(P->inputs, P->ninputs);
    P->inputs_root_known = true;
    return P->inputs_root;
}

/* The nearest directory at or above `dir` with a marker, else the inputs'
 * common root, else the directory itself (a probe id). */
static uint32_t root_of(Project *P, const char *dir)
{
    uint32_t d = probe_id(P, dir);
    if (P->probes[d].root >= 0)
        return (uint32_t)P->probes[d].root;
    char *cur = xstrdup(dir);
    int64_t found = -1;
    for (;;) {
        if (has_marker(P, cur)) {
            found = probe_id(P, cur);
            break;
        }
        if (strcmp(cur, "/") == 0)
            break;
        char *up = parent_of(cur);
        free(cur);
        cur = up;
    }
    free(cur);
    const char *in = found < 0 ? inputs_root(P) : NULL;
    if (in && is_within(dir, in))
        found = probe_id(P, in);
    P->probes[d].root = found < 0 ? d : found;
    return (uint32_t)P->probes[d].root;
}

/* Is there a file (or directory) at dir/name? A miss is what the facts read
 * too: creating the file later must re-lint the importer. */
static PathKind look(Importer *im, const char *dir, const char *name, size_t len)
{
    char *p = join_n(dir, name, len);
    uint32_t id = probe_id(im->P, p);
    PathKind k = (PathKind)im->P->probes[id].kind;
    if (k == PATH_NONE)
        id_push(&im->into->closure, id | ABSENT_BIT);
    free(p);
    return k;
}

static int64_t module_at(Importer *im, const char *dir, const char *file)
{
    char *path = join(dir, file);
    uint32_t id = module_id(im->P, path);
    free(path);
    return id;
}

/* The last component of a dotted module under `dir`: a package's
 * __init__.py before a module file (as Python's finder does). */
static int64_t module_file(Importer *im, const char *dir, const char *comp, size_t len)
{
    char *file = malloc(len + 4);
    if (!file)
        abort();
    memcpy(file, comp, len);
    memcpy(file + len, ".py", 4);
    int64_t id = -1;
    if (look(im, dir, comp, len) == PATH_DIR) {
        char *pkg = join(dir, file);
        pkg[strlen(pkg) - 3] = 0;
        if (look(im, pkg, "__init__.py", 11) == PATH_FILE)
            id = module_at(im, pkg, "__init__.py");
        free(pkg);
    }
    if (id < 0 && look(im, dir, file, len + 3) == PATH_FILE)
        id = module_at(im, dir, file);
    free(file);
    return id;
}

/* "a.b.c" under `base`: packages (or namespace directories) a and b, then c. */
static int64_t resolve_in(Importer *im, const char *base, const char *dotted)
{
    if (!*dotted)   /* `from . import x`: the package itself */
        return look(im, base, "__init__.py", 11) == PATH_FILE ? module_at(im, base, "__init__.py")
                                                             : -1;
    char *cur = xstrdup(base);
    int64_t id = -1;
    for (const char *p = dotted;;) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        if (!len)
            break;
        if (!dot) {
            id = module_file(im, cur, p, len);
            break;
        }
        if (look(im, cur, p, len) != PATH_DIR)
            break;
        char *next = join_n(cur, p, len);
        free(cur);
        cur = next;
        p = dot + 1;
    }
    free(cur);
    return id;
}

/* A module as an import writes it, from the importing file's directory. */
static int64_t find_module_uncached(Importer *im, const char *text)
{
    size_t dots = strspn(text, ".");
    const char *root = im->P->probes[im->root].path;
    if (dots) {
        char *base = xstrdup(im->dir);
        bool above = false;
        for (size_t i = 1; i < dots; i++) {
            above |= strcmp(base, root) == 0;
            char *up = parent_of(base);
            free(base);
            base = up;
        }
        int64_t id = !above && is_within(base, root) ? resolve_in(im, base, text + dots) : -1;
        free(base);
        return id;
    }
    int64_t id = resolve_in(im, im->dir, text);
    if (id < 0 && strcmp(root, im->dir) != 0)
        id = resolve_in(im, root, text);
    return id;
}

/* find_module, memoized per (directory, text) for the run: every module of
 * a standard library imports os and sys, and each answer costs several
 * probes. The root is a function of the directory, and probes are looked up
 * once per run, so an answer never changes; the absent paths it recorded
 * are recorded again for each asker's cache entry. */
static int64_t find_module(Importer *im, const char *text)
{
    Project *P = im->P;
    size_t dl = strlen(im->dir), tl = strlen(text);
    char *key = malloc(dl + tl + 2);
    if (!key)
        abort();
    memcpy(key, im->dir, dl);
    key[dl] = '\n';
    memcpy(key + dl + 1, text, tl + 1);
    int64_t at = map_get(&P->find_map, key);
    if (at < 0) {
        uint32_t before = im->into->closure.n;
        int64_t id = find_module_uncached(im, text);
        P->finds = grow(P->finds, &P->capfinds, P->nfinds, sizeof *P->finds);
        struct Found *f = &P->finds[P->nfinds];
        f->id = id;
        f->absent_at = P->found_absent.n;
        f->nabsent = 0;
        for (uint32_t i = before; i < im->into->closure.n; i++)
            if (im->into->closure.v[i] & ABSENT_BIT)
                id_push(&P->found_absent, im->into->closure.v[i]), f->nabsent++;
        map_put(&P->find_map, key, P->nfinds++);
        return id;
    }
    free(key);
    const struct Found *f = &P->finds[at];
    for (uint32_t i = 0; i < f->nabsent; i++)
        id_push(&im->into->closure, P->found_absent.v[f->absent_at + i]);
    return f->id;
}

/* ---- summaries --------------------------------------------------------------------------- */

static Memo module_memo(Project *P, uint32_t m, int levels);

static void resolve_hook(void *ctx, const Ir *ir, ProjectView *view);

static ProjectSummary *summarize_file(Importer *child, const char *path, uint64_t *hash)
{
    char *src;
    uint32_t len;
    const char *err;
    *hash = 0;
    if (!read_source(path, &src, &len, &err))
        return NULL;   /* unknown, as any module not found */
    *hash = XXH3_64bits(src, len);
    Arena arena;
    arena_init(&arena);
    Syntax s;
    parse_file(&s, src, len, &arena);
    ProjectSummary *sum = NULL;
    if (!s.diags.n) {
        IrProjectHook hook = {resolve_hook, child};
        Ir ir;
        ir_build_in_project(&ir, &s, &hook);
        sum = ir_project_summarize(&ir);
        sum->path = (char *)path;   /* the module's, which outlives it */
    }
    arena_free(&arena);
    free(src);
    return sum;
}

/* What an import's summary adds to the importer's: what it read, whether a
 * chain ran out of levels, how deep its chains go. */
static void absorb(Memo *into, const Memo *dep, uint32_t ref)
{
    if ((ref >> 1 & 7) != 0)   /* with no level left nothing was read */
        id_push(&into->refs, ref);
    into->cut |= dep->cut;
    if (!dep->cut && dep->height + 1 > into->height)
        into->height = (uint8_t)(dep->height + 1);
}

static Memo memoized(Project *P, uint32_t m, int levels, bool relevance);

/* ---- relevance: most imported modules (a stdlib, utilities) can say nothing */

/* A "cuda" or 'cuda:0' string: a device, even in a module importing no torch. */
/* A string that is "cuda" or starts "cuda:" ('cudarrl;', an HTML entity, is
 * not). Found from its opening quote: quotes are rarer than any letter of
 * the word, and every module of the project is scanned. */
static bool mentions_cuda(const char *src, uint32_t len)
{
    const char *end = src + len;
    for (int k = 0; k < 2; k++) {
        char quote = k ? '\'' : '"';
        for (const char *q = src; (q = memchr(q, quote, (size_t)(end - q))); q++)
            if (end - q > 5 && memcmp(q + 1, "cuda", 4) == 0 &&
                (q[5] == '"' || q[5] == '\'' || q[5] == ':'))
                return true;
    }
    return false;
}

/* An import of a library whose names the facts know (torch, torchvision,
 * transformers, ...): the module's own code can make a model or a loader. */
static bool training_library(const char *module)
{
    static const char *const libs[] = {"transformers", "lightning", "pytorch_lightning", "timm",
                                       "deepspeed", "accelerate", "peft", "bitsandbytes"};
    if (strncmp(module, "torch", 5) == 0)
        return true;
    size_t n = strcspn(module, ".");
    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++)
        if (strlen(libs[i]) == n && memcmp(module, libs[i], n) == 0)
            return true;
    return false;
}

typedef struct Scan { Importer *im; const char *p, *end; IdVec *imports; bool library; } Scan;

static void skip_blanks(Scan *sc, bool newlines)
{
    while (sc->p < sc->end && (*sc->p == ' ' || *sc->p == '\t' || *sc->p == '\\' ||
                               (newlines && (*sc->p == '\n' || *sc->p == '\r'))))
        sc->p++;
}

/* A dotted name (with leading dots for a relative import) into buf. */
static size_t scan_dotted(Scan *sc, char *buf, size_t cap)
{
    size_t n = 0;
    while (sc->p < sc->end && n + 1 < cap &&
           (*sc->p == '.' || *sc->p == '_' || (unsigned)((*sc->p | 0x20) - 'a') < 26u ||
            (unsigned)(*sc->p - '0') < 10u || (unsigned char)*sc->p >= 0x80))
        buf[n++] = *sc->p++;
    buf[n] = 0;
    return n;
}

static bool scan_word(Scan *sc, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(sc->end - sc->p) <= n || memcmp(sc->p, w, n) != 0 ||
        (sc->p[n] != ' ' && sc->p[n] != '\t' && sc->p[n] != '(' && sc->p[n] != '\\'))
        return false;
    sc->p += n;
    skip_blanks(sc, false);
    return true;
}

/* One imported module (or its submodule `name`), found and remembered. */
static void scan_import(Scan *sc, const char *module, const char *name)
{
    char sub[512];
    int64_t id = -1;
    if (training_library(module)) {
        sc->library = true;
        return;
    }
    size_t ml = strlen(module), nl = name ? strlen(name) : 0;
    bool dot = ml && module[ml - 1] != '.';
    if (nl && ml + dot + nl < sizeof sub) {   /* module.name, or .name after dots */
        memcpy(sub, module, ml);
        sub[ml] = '.';
        memcpy(sub + ml + dot, name, nl + 1);
        id = find_module(sc->im, sub);
    }
    if (id < 0)
        id = find_module(sc->im, module);
    if (id >= 0)
        id_push(sc->imports, (uint32_t)id);
}

/* from M import a, b as c | (a, b) | *   --   import a.b as c, d */
static void scan_statement(Scan *sc)
{
    char module[512], name[256];
    if (scan_word(sc, "from")) {
        if (!scan_dotted(sc, module, sizeof module))
            return;
        skip_blanks(sc, false);
        if (!scan_word(sc, "import"))
            return;
        bool paren = sc->p < sc->end && *sc->p == '(';
        sc->p += paren;
        for (;;) {
            skip_blanks(sc, paren);
            if (!scan_dotted(sc, name, sizeof name) && !(sc->p < sc->end && *sc->p == '*'))
                break;
            scan_import(sc, module, name);
            skip_blanks(sc, paren);
            if (scan_word(sc, "as"))
                scan_dotted(sc, name, sizeof name), skip_blanks(sc, paren);
            if (sc->p >= sc->end || *sc->p != ',')
                break;
            sc->p++;
        }
    } else if (scan_word(sc, "import")) {
        for (;;) {
            if (!scan_dotted(sc, module, sizeof module))
                break;
            scan_import(sc, module, NULL);
            skip_blanks(sc, false);
            if (scan_word(sc, "as"))
                scan_dotted(sc, name, sizeof name), skip_blanks(sc, false);
            if (sc->p >= sc->end || *sc->p != ',')
                break;
            sc->p++;
            skip_blanks(sc, false);
        }
    }
}

/* Import statements found by their first word on a line: no parse. One
 * missed (a `;` before it) only leaves its module unknown. */
static void scan_imports(Scan *sc)
{
    while (sc->p < sc->end && !sc->library) {
        uint64_t w;   /* indentation: eight spaces at a time */
        while (sc->end - sc->p >= 8 && (memcpy(&w, sc->p, 8), w == 0x2020202020202020ull))
            sc->p += 8;
        while (sc->p < sc->end && (*sc->p == ' ' || *sc->p == '\t'))
            sc->p++;
        if (sc->p < sc->end && (*sc->p == 'f' || *sc->p == 'i'))
            scan_statement(sc);
        const char *nl = memchr(sc->p, '\n', (size_t)(sc->end - sc->p));
        sc->p = nl ? nl + 1 : sc->end;
    }
}

/* Reads module m once: whether it names torch, and else which modules its
 * import lines name (a cheap scan, no parse). */
static void scan_module(Project *P, uint32_t m)
{
    char *src;
    uint32_t len;
    const char *err;
    Memo read = {0};
    IdVec imports = {0};
    id_push(&read.closure, m);
    module_stamp(P, m);   /* before reading: a later change shows */
    bool ok = read_source(P->mods[m].path, &src, &len, &err);
    bool mentions = ok && mentions_cuda(src, len);
    uint64_t hash = ok ? XXH3_64bits(src, len) : 0;
    if (ok && !mentions) {
        char *dir = parent_of(P->mods[m].path);
        Importer im = {P, dir, root_of(P, dir), 0, &read};
        Scan sc = {&im, src, src + len, &imports, false};
        scan_imports(&sc);
        mentions = sc.library;
        free(dir);
    }
    if (ok)
        free(src);
    Module *M = &P->mods[m];
    M->hash = hash;
    M->hashed = true;
    M->scanned = true;
    M->mentions = mentions;
    id_sort_unique(&imports);
    id_sort_unique(&read.closure);
    M->imports = imports;
    M->scan_read = read.closure;
}

/* Can module m's summary with `levels` left say anything: does it, or a
 * module it imports with one level less, name torch? */
static Memo relevance_of(Project *P, uint32_t m, int levels)
{
    if (!P->mods[m].scanned)
        scan_module(P, m);
    Memo r = {0};
    r.done = true;
    r.height = 1;
    id_append(&r.closure, &P->mods[m].scan_read);
    r.relevant = P->mods[m].mentions;
    for (uint32_t i = 0; !r.relevant && i < P->mods[m].imports.n; i++) {
        uint32_t id = P->mods[m].imports.v[i];
        Memo dep = memoized(P, id, levels - 1, true);
        absorb(&r, &dep, memo_ref(id, levels - 1, true));
        r.relevant = dep.relevant;
    }
    id_sort_unique(&r.closure);
    return r;
}

/* ---- summaries ---------------------------------------------------------------------- */

/* Reads, parses and summarises module m, its imports with levels - 1 left;
 * a module that cannot say anything is not parsed. */
static Memo analyse_module(Project *P, uint32_t m, int levels)
{
    Memo rel = memoized(P, m, levels, true);
    if (!rel.relevant) {   /* what it read is what its relevance read */
        Memo r = {0};
        r.done = true;
        r.cut = rel.cut;
        r.height = rel.height;
        id_push(&r.refs, memo_ref(m, levels, true));
        return r;
    }
    Memo r = {0};
    r.done = true;
    r.relevant = true;
    r.height = 1;   /* a module without imports: one level */
    char *path = P->mods[m].path;
    char *dir = parent_of(path);
    Importer child = {P, dir, root_of(P, dir), levels - 1, &r};
    id_push(&r.closure, m);
    uint64_t hash;
    module_stamp(P, m);   /* before reading */
    r.summary = summarize_file(&child, path, &hash);
    P->mods[m].hash = hash;
    P->mods[m].hashed = true;
    id_sort_unique(&r.closure);
    free(dir);
    return r;
}

/* A summary (or a relevance) of module m with `levels` left, memoized. */
static Memo memoized(Project *P, uint32_t m, int levels, bool relevance)
{
    Module *M = &P->mods[m];
    Memo *exact = relevance ? &M->rel_exact : &M->exact;
    Memo *at = relevance ? M->rel_at : M->at;
    if (exact->done && exact->height <= levels)
        return *exact;
    if (at[levels].done)
        return at[levels];
    if (levels == 0) {
        Memo cut = {true, true, false, 0, NULL, {0}, {0}};
        return cut;
    }
    Memo r = relevance ? relevance_of(P, m, levels) : analyse_module(P, m, levels);
    M = &P->mods[m];   /* the table may have grown */
    exact = relevance ? &M->rel_exact : &M->exact;
    at = relevance ? M->rel_at : M->at;
    if (r.cut) {
        at[levels] = r;
    } else if (!exact->done) {
        *exact = r;
    } else {   /* an exact one computed meanwhile: the same facts */
        project_summary_free(r.summary);
        free(r.closure.v);
        free(r.refs.v);
        return *exact;
    }
    return r;
}

static Memo module_memo(Project *P, uint32_t m, int levels) { return memoized(P, m, levels, false); }

/* One import of the importing file: its module's summary at one level less. */
static void view_add(Importer *im, const Ir *ir, ProjectView *view, uint32_t *cap,
                     const char *text, int64_t mod, bool star)
{
    if (mod < 0)
        return;
    for (uint32_t i = 0; i < view->n; i++)
        if (view->v[i].star == star && strcmp(view->v[i].module, text) == 0)
            return;
    Memo r = module_memo(im->P, (uint32_t)mod, im->levels);
    absorb(im->into, &r, memo_ref((uint32_t)mod, im->levels, false));
    if (!r.summary)
        return;
    if (view->n == *cap) {
        uint32_t n = *cap ? *cap * 2 : 8;
        ProjectImport *v = arena_alloc(ir->syn->arena, n * sizeof *v);
        if (view->n)
            memcpy(v, view->v, view->n * sizeof *v);
        view->v = v;
        *cap = n;
    }
    ProjectImport p = {text, r.summary, star};
    view->v[view->n++] = p;
}

/* `from M import name` names the submodule M.name when there is one, else
 * a name M exports. */
static void resolve_request(Importer *im, const Ir *ir, const ImportRequest *q,
                            ProjectView *view, uint32_t *cap)
{
    if (q->name && !q->star) {
        size_t ml = strlen(q->module);
        const char *sub = arena_printf(ir->syn->arena, "%s%s%s", q->module,
                                       q->module[ml - 1] == '.' ? "" : ".", q->name);
        int64_t id = find_module(im, sub);
        if (id >= 0) {
            view_add(im, ir, view, cap, sub, id, false);
            return;
        }
    }
    view_add(im, ir, view, cap, q->module, find_module(im, q->module), q->star);
}

/* A library is never a module of the project: `import torch` is not looked
 * for beside the script (nobody shadows torch), so a script importing only
 * libraries costs no probe. */
static void resolve_requests(Importer *im, const Ir *ir, const ImportRequestVec *reqs,
                             ProjectView *view)
{
    uint32_t cap = 0;
    for (uint32_t i = 0; i < reqs->n; i++)
        if (!training_library(reqs->v[i].module))
            resolve_request(im, ir, &reqs->v[i], view, &cap);
}

static void resolve_hook(void *ctx, const Ir *ir, ProjectView *view)
{
    ImportRequestVec reqs;
    ir_project_imports(ir, &reqs);
    resolve_requests(ctx, ir, &reqs, view);
}

static bool names_project_candidate(const ImportRequestVec *reqs)
{
    for (uint32_t i = 0; i < reqs->n; i++)
        if (!training_library(reqs->v[i].module))
            return true;
    return false;
}

/* ---- the linted file --------------------------------------------------------------------- */

/* The absolute directory of a linted file (malloc'ed, or NULL), through
 * directory_realpath: one resolution per directory for the whole run. A
 * symlink resolves by itself: its target's directory is where its imports
 * are. */
static char *linted_dir(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0 || S_ISLNK(st.st_mode)) {
        char *abs = absolute_path(path);
        char *dir = abs ? parent_of(abs) : NULL;
        free(abs);
        return dir;
    }
    const char *slash = strrchr(path, '/');
    char *named = slash ? xstrdup(path) : xstrdup(".");
    if (slash)
        named[slash == path ? 1 : slash - path] = 0;
    char *dir = directory_realpath(named);
    free(named);
    return dir;
}

/* The request's directory: one lstat per linted file, not one per question. */
static const char *request_dir(ProjectRequest *r)
{
    if (!r->dir_known)
        r->dir = linted_dir(r->path);
    r->dir_known = true;
    return r->dir;
}

static void linted_hook(void *ctx, const Ir *ir, ProjectView *view)
{
    ProjectRequest *r = ctx;
    Project *P = r->P;
    ImportRequestVec reqs;
    ir_project_imports(ir, &reqs);
    if (!names_project_candidate(&reqs))
        return;
    const char *dir = request_dir(r);   /* thread-safe: outside the lock */
    if (!dir)
        return;   /* no directory to resolve from: imports stay unknown */
    pthread_mutex_lock(&P->lock);
    Importer im = {P, dir, root_of(P, dir), MAX_IMPORT_DEPTH, &r->reads};
    resolve_requests(&im, ir, &reqs, view);
    pthread_mutex_unlock(&P->lock);
}

char *project_module_file(Project *P, const char *importer, const char *dotted)
{
    Memo sink;
    memset(&sink, 0, sizeof sink);
    pthread_mutex_lock(&P->lock);
    char *dir = linted_dir(importer);
    char *file = NULL;
    if (dir) {
        Importer im = {P, dir, root_of(P, dir), 0, &sink};
        int64_t id = find_module(&im, dotted);
        if (id >= 0)
            file = xstrdup(P->mods[id].path);
    }
    pthread_mutex_unlock(&P->lock);
    free(dir);
    free(sink.closure.v);
    return file;
}

ProjectRequest *project_request_new(Project *p, const char *path)
{
    ProjectRequest *r = calloc(1, sizeof *r);
    if (!r)
        abort();
    r->P = p;
    r->path = path;
    return r;
}

bool project_request_relevant(ProjectRequest *r, const char *src, uint32_t len)
{
    if (mentions_cuda(src, len))
        return true;
    Project *P = r->P;
    const char *dir = request_dir(r);   /* thread-safe: outside the lock */
    if (!dir)
        return true;   /* nothing to resolve from: let the lowering decide */
    IdVec imports = {0};
    pthread_mutex_lock(&P->lock);
    Importer im = {P, dir, root_of(P, dir), MAX_IMPORT_DEPTH, &r->reads};
    Scan sc = {&im, src, src + len, &imports, false};
    scan_imports(&sc);
    bool relevant = sc.library;
    for (uint32_t i = 0; !relevant && i < imports.n; i++) {
        Memo dep = memoized(P, imports.v[i], MAX_IMPORT_DEPTH, true);
        absorb(&r->reads, &dep, memo_ref(imports.v[i], MAX_IMPORT_DEPTH, true));
        relevant = dep.relevant;
    }
    pthread_mutex_unlock(&P->lock);
    free(imports.v);
    return relevant;
}

IrProjectHook project_hook(ProjectRequest *r)
{
    IrProjectHook h = {linted_hook, r};
    return h;
}

/* The memo a ref names, as memoized() found it. */
static const Memo *memo_of(const Project *P, uint32_t ref)
{
    const Module *M = &P->mods[ref >> 4];
    int levels = ref >> 1 & 7;
    bool rel = ref & 1;
    const Memo *exact = rel ? &M->rel_exact : &M->exact;
    return exact->done && exact->height <= levels ? exact : rel ? &M->rel_at[levels] : &M->at[levels];
}

/* True the first time i is stamped in this round. */
static bool stamp_first(Stamps *s, size_t i, uint32_t round)
{
    if (i >= s->cap) {
        size_t cap = s->cap ? s->cap : 256;
        while (cap <= i)
            cap *= 2;
        if (!(s->v = realloc(s->v, cap * sizeof *s->v)))
            abort();
        memset(s->v + s->cap, 0, (cap - s->cap) * sizeof *s->v);
        s->cap = cap;
    }
    if (s->v[i] == round)
        return false;
    s->v[i] = round;
    return true;
}

static uint32_t next_round(Project *P)
{
    if (++P->round == 0) {   /* wrapped: old stamps could match again */
        Stamps *all[] = {&P->refs_seen, &P->mods_seen, &P->probes_seen};
        for (int i = 0; i < 3; i++)
            if (all[i]->v)
                memset(all[i]->v, 0, all[i]->cap * sizeof *all[i]->v);
        P->round = 1;
    }
    return P->round;
}

static void add_closure(Project *P, const IdVec *closure, uint32_t round, IdVec *out)
{
    for (uint32_t i = 0; i < closure->n; i++) {
        uint32_t id = closure->v[i];
        Stamps *seen = id & ABSENT_BIT ? &P->probes_seen : &P->mods_seen;
        if (stamp_first(seen, id & ~ABSENT_BIT, round))
            id_push(out, id);
    }
}

/* Every module and absent path below `top`, once each, in the order met;
 * each ref visited once. */
static void flatten(Project *P, const Memo *top, IdVec *out)
{
    uint32_t round = next_round(P);
    IdVec stack = {0};
    add_closure(P, &top->closure, round, out);
    id_append(&stack, &top->refs);
    while (stack.n) {
        uint32_t ref = stack.v[--stack.n];
        if (!stamp_first(&P->refs_seen, ref, round))
            continue;
        const Memo *m = memo_of(P, ref);
        add_closure(P, &m->closure, round, out);
        id_append(&stack, &m->refs);
    }
    free(stack.v);
}

static void put_hex16(char *at, uint64_t v)
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 16; i++)
        at[i] = hex[v >> (60 - 4 * i) & 15];
}

/* The dependency lines of a cache entry, sorted by path, each path written
 * as the length it shares with the previous line's and the rest (entries
 * list thousands of them, mostly under the same few directories: front
 * coding makes an entry about a third as long); formatted by hand, printf
 * was most of their cost:
 *   "F HASH STAMP SHARED REST\n"  a module: the hash of its bytes, its module_stamp
 *   "N STAMP SHARED REST\n"       an absent path: its directory's dir_stamp
 *   "n SHARED REST\n"             the same, with the previous N line's STAMP
 * each HASH or STAMP 16 hex digits, SHARED decimal. */
typedef struct Dep {
    uint64_t dir;        /* dir_order of its path: the sort's first key */
    const char *path;
    char kind;
    uint64_t hash, stamp;
} Dep;

static int dep_cmp(const void *a, const void *b)
{
    const Dep *x = *(const Dep *const *)a, *y = *(const Dep *const *)b;
    if (x->dir != y->dir)
        return x->dir < y->dir ? -1 : 1;
    return strcmp(x->path, y->path);
}

/* How many leading bytes a and b (lengths na, nb) share: eight at a time,
 * since neighbouring paths share 80 bytes or so (a byte at a time was a
 * quarter of writing an entry's deps). */
static size_t shared_prefix(const char *a, size_t na, const char *b, size_t nb)
{
    size_t n = 0, max = na < nb ? na : nb;
    for (; n + 8 <= max; n += 8) {
        uint64_t x, y;
        memcpy(&x, a + n, 8);
        memcpy(&y, b + n, 8);
        if (x != y)
            break;   /* the differing byte is among these eight */
    }
    while (n < max && a[n] == b[n])
        n++;
    return n;
}

/* n in decimal at head[k..]; the position after it (snprintf per line was
 * a third of the cost of an entry's deps). */
static size_t put_decimal(char *head, size_t k, size_t n)
{
    char digits[24];
    size_t d = 0;
    do
        digits[d++] = (char)('0' + n % 10);
    while ((n /= 10) != 0);
    while (d)
        head[k++] = digits[--d];
    return k;
}

static void put_deps(Buf *out, Dep *deps, uint32_t n)
{
    Dep **order = malloc((n + 1) * sizeof *order);   /* sorted as pointers: no copies of Deps */
    if (!order)
        abort();
    for (uint32_t i = 0; i < n; i++)
        order[i] = &deps[i];
    qsort(order, n, sizeof *order, dep_cmp);
    const char *prev = "";
    size_t prev_len = 0;
    uint64_t absent_stamp = 0;
    bool have_absent = false;
    for (uint32_t i = 0; i < n; i++) {
        const Dep *d = order[i];
        char head[64];
        size_t k = 0;
        bool same = d->kind == 'N' && have_absent && d->stamp == absent_stamp;
        head[k++] = same ? 'n' : d->kind;
        head[k++] = ' ';
        if (d->kind == 'F') {
            put_hex16(head + k, d->hash);
            k += 16;
            head[k++] = ' ';
        }
        if (!same) {
            put_hex16(head + k, d->stamp);
            k += 16;
            head[k++] = ' ';
        }
        size_t len = strlen(d->path), shared = shared_prefix(prev, prev_len, d->path, len);
        k = put_decimal(head, k, shared);
        head[k++] = ' ';
        buf_put(out, head, k);
        buf_put(out, d->path + shared, len - shared);
        buf_putc(out, '\n');
        if (d->kind == 'N') {
            absent_stamp = d->stamp;
            have_absent = true;
        }
        prev = d->path;
        prev_len = len;
    }
    free(order);
}

void project_request_deps(const ProjectRequest *r, Buf *out)
{
    Project *P = r->P;
    if (!r->reads.closure.n && !r->reads.refs.n)
        return;
    pthread_mutex_lock(&P->lock);
    IdVec all = {0};
    flatten(P, &r->reads, &all);
    Dep *deps = malloc((all.n + 1) * sizeof *deps);
    if (!deps)
        abort();
    for (uint32_t i = 0; i < all.n; i++) {
        uint32_t id = all.v[i];
        if (id & ABSENT_BIT)
            deps[i] = (Dep){P->probes[id & ~ABSENT_BIT].dir_order, P->probes[id & ~ABSENT_BIT].path,
                            'N', 0, P->probes[id & ~ABSENT_BIT].dir_stamp};
        else
            deps[i] = (Dep){P->mods[id].dir_order, P->mods[id].path, 'F', P->mods[id].hash,
                            module_stamp(P, id)};
    }
    put_deps(out, deps, all.n);
    free(deps);
    free(all.v);
    pthread_mutex_unlock(&P->lock);
}

void project_request_free(ProjectRequest *r)
{
    if (!r)
        return;
    free(r->reads.closure.v);
    free(r->reads.refs.v);
    free(r->dir);
    free(r);
}

/* ---- cache entries ----------------------------------------------------------------------- */

static uint64_t current_file_hash(Project *P, const char *path)
{
    uint32_t m = module_id(P, path);
    if (!P->mods[m].hashed) {
        module_stamp(P, m);   /* before reading */
        char *src;
        uint32_t len;
        const char *err;
        bool ok = read_source(path, &src, &len, &err);
        P->mods[m].hash = ok ? XXH3_64bits(src, len) : 0;
        if (ok)
            free(src);
        P->mods[m].hashed = true;
    }
    return P->mods[m].hash;
}

/* 16 hex digits, exactly. */
static bool parse_hex16(const char *s, uint64_t *v)
{
    *v = 0;
    for (int i = 0; i < 16; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return false;
        *v = *v << 4 | (uint64_t)d;
    }
    return true;
}

/* Is the module at path, whose bytes hashed to `hash` when its stamp was
 * `stamp`, the same now? The same stamp says so without a read. */
static bool module_current(Project *P, const char *path, uint64_t hash, uint64_t stamp)
{
    if (stamp && module_stamp(P, module_id(P, path)) == stamp)
        return true;
    return current_file_hash(P, path) == hash;
}

/* Is the absent path, whose directory had `stamp`, still absent? */
static bool still_absent(Project *P, const char *path, uint64_t stamp)
{
    if (stamp && parent_stamp(P, path) == stamp)
        return true;   /* its directory unchanged: no stat */
    return probe_kind(P, path) == PATH_NONE;
}

/* The reader of put_deps' lines: the previous line's path and stamp. The
 * line as checked ("K" HASH STAMP PATH, binary) is kept in `line`, whose
 * hash stands for it in project_deps_current's memory. */
typedef struct DepReader {
    Buf line;              /* kind, hash, stamp, then the path, NUL-terminated */
    uint64_t absent_stamp;
    bool have_absent;
} DepReader;

enum { DEP_HEAD = 1 + 2 * sizeof(uint64_t) };

/* A decimal of at most 6 digits, then a space; the position after it. */
static const char *parse_shared(const char *p, const char *end, size_t *v)
{
    *v = 0;
    const char *start = p;
    while (p < end && *p >= '0' && *p <= '9' && p - start < 6)
        *v = *v * 10 + (size_t)(*p++ - '0');
    return p > start && p < end && *p == ' ' ? p + 1 : NULL;
}

/* Parses one line (without its newline) into rd->line; false when it is
 * not one put_deps wrote. */
static bool dep_parse(DepReader *rd, const char *p, const char *end, char *kind, uint64_t *hash,
                      uint64_t *stamp)
{
    if (end - p < 2 || p[1] != ' ' || (p[0] != 'F' && p[0] != 'N' && p[0] != 'n'))
        return false;
    bool inherits = p[0] == 'n';
    *kind = inherits ? 'N' : p[0];
    *hash = 0;
    *stamp = rd->absent_stamp;
    p += 2;
    if (*kind == 'F') {
        if (end - p < 17 || !parse_hex16(p, hash) || p[16] != ' ')
            return false;
        p += 17;
    }
    if (!inherits) {   /* F and N carry their stamp */
        if (end - p < 17 || !parse_hex16(p, stamp) || p[16] != ' ')
            return false;
        p += 17;
    } else if (!rd->have_absent) {
        return false;
    }
    size_t shared;
    if (!(p = parse_shared(p, end, &shared)) || shared > rd->line.n - DEP_HEAD - 1)
        return false;
    rd->line.n = DEP_HEAD + shared;
    buf_put(&rd->line, p, (size_t)(end - p));
    buf_putc(&rd->line, 0);
    rd->line.v[0] = *kind;
    memcpy(rd->line.v + 1, hash, sizeof *hash);
    memcpy(rd->line.v + 1 + sizeof *hash, stamp, sizeof *stamp);
    if (*kind == 'N') {
        rd->absent_stamp = *stamp;
        rd->have_absent = true;
    }
    return true;
}

/* Is the dependency still as it was? */
static bool dep_current(Project *P, char kind, uint64_t hash, uint64_t stamp, const char *path)
{
    return kind == 'F' ? module_current(P, path, hash, stamp) : still_absent(P, path, stamp);
}

/* The lines found current this run, by their hash: entries share most of
 * their lines (the standard library's absent names, common modules), and
 * each is checked once. A line's answer cannot change within a run: what it
 * asks (a probe, a hash, a stamp) is asked once per run. */
static bool line_known(const Project *P, uint64_t h)
{
    for (uint32_t i = (uint32_t)h & P->known_mask; P->known && P->known[i]; i = (i + 1) & P->known_mask)
        if (P->known[i] == h)
            return true;
    return false;
}

static void line_remember(Project *P, uint64_t h)
{
    if ((P->nknown + 1) * 2 > (uint64_t)P->known_mask + 1 || !P->known) {
        uint32_t cap = P->known ? (P->known_mask + 1) * 2 : 1024;
        uint64_t *old = P->known, oldcap = P->known ? P->known_mask + 1 : 0;
        if (!(P->known = calloc(cap, sizeof *P->known)))
            abort();
        P->known_mask = cap - 1;
        P->nknown = 0;
        for (uint64_t i = 0; i < oldcap; i++)
            if (old[i])
                line_remember(P, old[i]);
        free(old);
    }
    uint32_t i = (uint32_t)h & P->known_mask;
    while (P->known[i] && P->known[i] != h)
        i = (i + 1) & P->known_mask;
    P->nknown += !P->known[i];
    P->known[i] = h;
}

void project_known_stats(Project *P, char *const *paths, const struct stat *st, const bool *stated,
                         size_t n, int64_t since_ns)
{
    pthread_mutex_lock(&P->lock);
    P->known_stats = st;
    for (size_t i = 0; i < n; i++)
        if (stated[i] && map_get(&P->known_stat_map, paths[i]) < 0)
            map_put(&P->known_stat_map, paths[i], (uint32_t)i);
    if (since_ns < P->start_ns)
        P->start_ns = since_ns;   /* a stamp is racy from the earliest stat on */
    pthread_mutex_unlock(&P->lock);
}

bool project_deps_current(Project *P, const char *deps, size_t len)
{
    bool ok = true;
    DepReader rd = {{0}, 0, false};
    char zero[DEP_HEAD + 1] = {0};
    buf_put(&rd.line, zero, sizeof zero);   /* the first line shares nothing */
    pthread_mutex_lock(&P->lock);
    for (const char *p = deps, *end = deps + len; ok && p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        char kind;
        uint64_t hash, stamp;
        if (!nl || !dep_parse(&rd, p, nl, &kind, &hash, &stamp)) {
            ok = false;
            break;
        }
        size_t n = rd.line.n - 1;   /* without the NUL */
        uint64_t h = XXH3_64bits(rd.line.v, n) | 1;   /* 0 marks an empty slot */
        if (!line_known(P, h)) {
            ok = dep_current(P, kind, hash, stamp, rd.line.v + DEP_HEAD);
            if (ok)
                line_remember(P, h);
        }
        p = nl + 1;
    }
    pthread_mutex_unlock(&P->lock);
    buf_free(&rd.line);
    return ok;
}

/* ---- the run ----------------------------------------------------------------------------- */

/* The longest common directory of the inputs (each a file's directory or a
 * directory itself). */
/* The directory of a regular file as named ("." for a bare name), or NULL
 * for a directory, a symlink or a path that cannot be examined. */
static char *named_parent(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return NULL;
    const char *slash = strrchr(path, '/');
    char *dir = xstrdup(slash ? path : ".");
    if (slash)
        dir[slash == path ? 1 : slash - path] = 0;
    return dir;
}

/* The absolute directory of an input that is a directory or a symlink: the
 * directory itself, or the one its target lies in. */
static char *input_directory(const char *input)
{
    char *abs = absolute_path(input);
    if (!abs)
        return NULL;
    DIR *d = opendir(abs);
    char *dir = d ? xstrdup(abs) : parent_of(abs);
    if (d)
        closedir(d);
    free(abs);
    return dir;
}

static char *common_root(char **inputs, int n)
{
    char *root = NULL, *prev = NULL;   /* prev: the directory of the file before */
    for (int i = 0; i < n; i++) {
        /* a file beside the one before adds nothing: one realpath() per directory */
        char *named = named_parent(inputs[i]);
        if (named && prev && strcmp(named, prev) == 0) {
            free(named);
            continue;
        }
        free(prev);
        prev = NULL;
        char *dir = named ? directory_realpath(named) : input_directory(inputs[i]);
        if (!dir) {
            free(named);
            continue;
        }
        prev = named;
        while (root && !is_within(dir, root)) {
            char *up = parent_of(root);
            free(root);
            root = up;
        }
        if (!root)
            root = xstrdup(dir);
        free(dir);
    }
    free(prev);
    return root;
}

Project *project_new(char **inputs, int ninputs)
{
    Project *P = calloc(1, sizeof *P);
    if (!P)
        abort();
    pthread_mutex_init(&P->lock, NULL);
    P->start_ns = cache_now_ns();
    P->inputs = inputs;   /* the command line's: they outlive the run */
    P->ninputs = ninputs;
    return P;
}

static void memo_free(Memo *m)
{
    project_summary_free(m->summary);
    free(m->closure.v);
    free(m->refs.v);
}

void project_free(Project *P)
{
    if (!P)
        return;
    for (uint32_t i = 0; i < P->nmods; i++) {
        memo_free(&P->mods[i].exact);
        memo_free(&P->mods[i].rel_exact);
        free(P->mods[i].imports.v);
        free(P->mods[i].scan_read.v);
        for (int k = 0; k <= MAX_IMPORT_DEPTH; k++) {
            memo_free(&P->mods[i].at[k]);
            memo_free(&P->mods[i].rel_at[k]);
        }
        free(P->mods[i].path);
    }
    for (uint32_t i = 0; i < P->nprobes; i++)
        free(P->probes[i].path);
    free(P->mods);
    free(P->probes);
    free(P->probe_map.slots);
    for (uint32_t i = 0; i < P->nstamps; i++)
        free(P->stamps[i].path);
    free(P->stamps);
    free(P->stamp_map.slots);
    free(P->known);
    free(P->known_stat_map.slots);
    free(P->mod_map.slots);
    for (uint32_t i = 0; P->find_map.slots && i <= P->find_map.mask; i++)
        free((char *)P->find_map.slots[i].path);
    free(P->find_map.slots);
    free(P->finds);
    free(P->found_absent.v);
    free(P->inputs_root);
    free(P->refs_seen.v);
    free(P->mods_seen.v);
    free(P->probes_seen.v);
    pthread_mutex_destroy(&P->lock);
    free(P);
}
