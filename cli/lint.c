/* pfc lint: find files, analyse them in parallel, print in input order. */
#define _GNU_SOURCE
#include "../emit/fix.h"
#include "../emit/report.h"
#include "../passes/pass.h"
#include "cli.h"
#include "cache.h"
#include "codes.h"
#include "config.h"
#include "files.h"
#include "notebook.h"
#include "pool.h"
#include "progress.h"
#include "project.h"
#include "safe_write.h"
#include "target.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <stddef.h>
#include <sys/stat.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

typedef struct CodeList { const char *v[64]; int n; } CodeList;

typedef struct LintOptions {
    ReportStyle style;
    int jobs;
    int target_minor;
    Severity fail_on;
    bool exit_zero, no_cache, statistics;
    bool fix, unsafe_fixes, diff, show_fixes;
    bool target_set, fail_on_set;   /* given on the command line: beats the config */
    bool quiet, show_settings, isolated;
    bool analyse_all;               /* --analyse-all: no file is skipped as naming no training code */
    const char *output_file, *stdin_filename;
    const char *config_file;        /* --config PATH */
    Buf config_inline;              /* --config "key = value" lines, as TOML */
    CodeList select, ignore, extend_select;
    const char *target_gpu;   /* --target-gpu: beats [tool.pfc] target_gpu */
    Project *project;   /* the run's table of project modules (thread-safe) */
} LintOptions;

enum { MAX_STAT_CODES = 32 };
/* safe/unsafe: how many of the n findings have a fix of that kind */
typedef struct CodeCount { const char *code, *name; uint32_t n, safe, unsafe; } CodeCount;

typedef struct FileResult {
    Buf out;
    uint32_t counts[3];     /* findings by Severity */
    CodeCount *stats;       /* for --statistics: up to MAX_STAT_CODES, grown as met */
    uint32_t nstats, capstats;
    struct CachedHit *cached;   /* a cache hit: stats point into it */
    uint32_t fixed;         /* fixes written (or, with --diff, that would be) */
    Buf fix_log;            /* per fix: "path: fixed CODE", and failures */
    Buf diff;               /* --diff output */
    bool write_failed;      /* --fix could not write: an E902 in the output */
    Notebook *notebook;     /* a .ipynb: the source linted is its code cells joined */
    bool broken;            /* not a notebook at all: an E902, and exit 2 */
} FileResult;

/* Room for n stats (most files have none: a fixed array per file was 1 KB
 * of a warm run's memory per file). */
static void stats_reserve(FileResult *r, uint32_t n)
{
    if (n <= r->capstats)
        return;
    r->capstats = r->capstats ? 2 * r->capstats : 4;
    if (r->capstats < n)
        r->capstats = n;
    if (!(r->stats = realloc(r->stats, r->capstats * sizeof *r->stats)))
        abort();
}

static void count_code(FileResult *r, const Finding *f)
{
    uint32_t i = 0;
    while (i < r->nstats && strcmp(r->stats[i].code, f->code) != 0)
        i++;
    if (i == r->nstats) {
        if (r->nstats == MAX_STAT_CODES)
            return;
        stats_reserve(r, r->nstats + 1);
        r->stats[r->nstats++] = (CodeCount){f->code, f->name, 0, 0, 0};
    }
    r->stats[i].n++;
    if (f->fix && f->fix->applicability == FIX_SAFE)
        r->stats[i].safe++;
    else if (f->fix)
        r->stats[i].unsafe++;
}

typedef struct LintRun {
    const LintOptions *opt;
    PathList files;
    FileResult *results;
    const Config **configs;   /* per file */
    uint64_t settings;        /* everything besides the file and its config that shapes output */
    Cache *cache;             /* NULL: --no-cache, --fix, --diff, or not writable */
    Progress *progress;       /* NULL off a terminal */
    Arena *arenas;            /* per worker, reset between its files */
    Buf *deps;                /* per worker: what a file's facts read, until it is stored */
} LintRun;

/* The SARIF rule table: every code pfc reports (cli/codes.h). */
static const RuleMeta *rule_meta(size_t *n)
{
    static RuleMeta meta[128];
    static size_t count;
    const RuleInfo *r;
    if (!count)
        for (size_t i = 0; (r = code_nth(i)) && count < 128; i++)
            meta[count++] = (RuleMeta){r->code, r->name, r->summary, r->explain, r->severity};
    *n = count;
    return meta;
}

static bool rule_default_on(const char *code)
{
    const RuleInfo *r = rule_by_code(code);
    return r && r->default_on;
}

/* ---- options ------------------------------------------------------------------------ */

static bool parse_codes(char *s, CodeList *l)
{
    for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
        while (*tok == ' ')
            tok++;
        if (!*tok)
            continue;
        if (l->n == (int)(sizeof l->v / sizeof l->v[0]))
            return false;
        char *end = tok + strlen(tok);
        while (end > tok && end[-1] == ' ')
            *--end = 0;
        code_upcase(tok);   /* codes are case-insensitive: tg001 is TG001 */
        l->v[l->n++] = tok;
    }
    return true;
}

static bool code_matches(const CodeList *l, const char *code)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->v[i], "ALL") == 0 || strncmp(code, l->v[i], strlen(l->v[i])) == 0)
            return true;
    return false;
}

/* Syntax and I/O errors are always reported, as in ruff: a file that cannot be
 * read or parsed was not checked, and silence would claim it was. */
/* Syntax and I/O errors are always shown. Otherwise: the command line's
 * --select replaces the configuration's select (+ extend-select), which
 * replaces the rules on by default; ignores from both apply, and so do the
 * configuration's per-file-ignores. */
static bool code_enabled(const LintOptions *o, const Config *cfg, const char *file,
                         const char *code)
{
    if (code[0] == 'E' && code[1] == '9')
        return true;
    bool on;
    if (o->select.n)
        on = code_matches(&o->select, code);
    else if (cfg->has_select)
        on = str_list_has_prefix_of(&cfg->select, code);
    else
        on = rule_default_on(code);
    if ((!o->select.n && str_list_has_prefix_of(&cfg->extend_select, code)) ||
        code_matches(&o->extend_select, code))
        on = true;
    return on && !code_matches(&o->ignore, code) &&
           !str_list_has_prefix_of(&cfg->ignore, code) && !config_file_ignores(cfg, file, code);
}

static bool is_option(const char *arg, const char *name)
{
    size_t n = strlen(name);
    return strncmp(arg, name, n) == 0 && (arg[n] == 0 || arg[n] == '=');
}

/* The flags without a value; false when `a` is none of them. */
static bool parse_lint_flag(const char *a, LintOptions *o)
{
    static const struct { const char *name; size_t offset; } flags[] = {
        {"--exit-zero", offsetof(LintOptions, exit_zero)},
        {"--no-cache", offsetof(LintOptions, no_cache)},
        {"--statistics", offsetof(LintOptions, statistics)},
        {"--fix", offsetof(LintOptions, fix)},
        {"--unsafe-fixes", offsetof(LintOptions, unsafe_fixes)},
        {"--diff", offsetof(LintOptions, diff)},
        {"--show-fixes", offsetof(LintOptions, show_fixes)},
        {"--quiet", offsetof(LintOptions, quiet)},
        {"-q", offsetof(LintOptions, quiet)},
        {"--show-settings", offsetof(LintOptions, show_settings)},
        {"--isolated", offsetof(LintOptions, isolated)},
        {"--analyse-all", offsetof(LintOptions, analyse_all)},
    };
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (strcmp(a, flags[i].name) == 0) {
            *(bool *)((char *)o + flags[i].offset) = true;
            return true;
        }
    return false;
}

static int parse_code_option(const char *name, char *v, CodeList *l)
{
    if (!parse_codes(v, l))
        return usage_error("%s: too many codes", name);
    char err[300];
    if (!codes_check((const char *const *)l->v, (size_t)l->n, name, err, sizeof err))
        return usage_error("%s", err);
    return -1;
}

/* --config PATH, or ruff's inline --config "key = value" (a TOML line). */
static int parse_config_option(const char *v, LintOptions *o)
{
    if (strchr(v, '=') && !path_exists(v)) {
        buf_printf(&o->config_inline, "%s\n", v);
        return -1;
    }
    if (o->config_file)
        return usage_error("--config: one configuration file only ('%s', then '%s')",
                           o->config_file, v);
    o->config_file = v;
    return -1;
}

static int parse_jobs(const char *v, LintOptions *o)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (!*v || *end || n < 1 || n > 1024)
        return usage_error("-j expects a number from 1 to 1024, not '%s'", v);
    o->jobs = (int)n;
    return -1;
}

/* An option with a value (name=value or name value); -1 when parsed. */
static int parse_lint_value(const char *name, char *v, LintOptions *o)
{
    if (strcmp(name, "--output-format") == 0)
        return output_format_parse(v, &o->style.format) ? -1
               : usage_error("--output-format expects full, concise, json, github or sarif, "
                             "not '%s'", v);
    if (strcmp(name, "--target-version") == 0) {
        o->target_set = true;
        return (o->target_minor = parse_target_version(v)) >= 0 ? -1
               : usage_error("--target-version expects 3.9 to 3.13, not '%s'", v);
    }
    if (strcmp(name, "--fail-on") == 0) {
        o->fail_on_set = true;
        return severity_parse(v, &o->fail_on) ? -1
               : usage_error("--fail-on expects note, warning or error, not '%s'", v);
    }
    if (strcmp(name, "--select") == 0)
        return parse_code_option(name, v, &o->select);
    if (strcmp(name, "--ignore") == 0)
        return parse_code_option(name, v, &o->ignore);
    if (strcmp(name, "--extend-select") == 0)
        return parse_code_option(name, v, &o->extend_select);
    if (strcmp(name, "--config") == 0)
        return parse_config_option(v, o);
    if (strcmp(name, "--output-file") == 0 || strcmp(name, "-o") == 0)
        return o->output_file = v, -1;
    if (strcmp(name, "--stdin-filename") == 0)
        return o->stdin_filename = v, -1;
    if (strcmp(name, "--target-gpu") == 0) {
        LintTarget t;
        if (!lint_target_resolve(v, 0, &t))
            return usage_error("--target-gpu: unknown GPU or instance '%s' (pfc gpus lists them)", v);
        return o->target_gpu = v, -1;
    }
    return parse_jobs(v, o);   /* -j, --jobs */
}

static const char *const lint_value_options[] = {
    "--output-format", "--target-version", "--fail-on", "--select", "--ignore",
    "--extend-select", "--config", "--output-file", "-o", "--stdin-filename", "--target-gpu",
    "--jobs", "-j",
};

/* Returns -1 on success, else the exit status of a usage error. Paths are
 * compacted to the front of argv; their count goes to *npaths. */
static int parse_lint_args(int argc, char **argv, LintOptions *o, int *npaths)
{
    const char *env = getenv("PFC_OUTPUT_FORMAT");
    if (env && *env && !output_format_parse(env, &o->style.format))
        return usage_error("invalid PFC_OUTPUT_FORMAT '%s'", env);
    bool only_paths = false;
    *npaths = 0;
    for (int i = 0; i < argc; i++) {
        char *a = argv[i];
        if (only_paths || a[0] != '-' || a[1] == 0) {
            argv[(*npaths)++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_paths = true;
            continue;
        }
        if (parse_lint_flag(a, o))
            continue;
        if (strncmp(a, "-j", 2) == 0 && a[2] && a[2] != '=') {   /* -j4 */
            int status = parse_jobs(a + 2, o);
            if (status >= 0)
                return status;
            continue;
        }
        const char *name = NULL;
        for (size_t k = 0; k < sizeof lint_value_options / sizeof *lint_value_options; k++)
            if (is_option(a, lint_value_options[k]))
                name = lint_value_options[k];
        if (!name)
            return usage_error("unknown option '%s' (pfc lint --help lists them)", a);
        char *v = a[strlen(name)] == '=' ? a + strlen(name) + 1 : NULL;
        if (!v && i + 1 >= argc)
            return usage_error("%s needs a value", name);
        int status = parse_lint_value(name, v ? v : argv[++i], o);
        if (status >= 0)
            return status;
    }
    return -1;
}

/* ---- one file ----------------------------------------------------------------------- */

static void syntax_findings(Syntax *s, FindingVec *out)
{
    for (uint32_t i = 0; i < s->diags.n; i++) {
        const Diag *d = &s->diags.v[i];
        Finding f = {"E999", "syntax-error", SEV_ERROR, d->start, d->end, d->msg, NULL, NULL};
        VEC_PUSH(s->arena, *out, f);
    }
}

/* ---- suppression comments ----------------------------------------------------------- */

typedef struct Noqa {
    uint32_t line;
    uint32_t start, end;      /* the comment */
    const char *codes;        /* after "noqa:", or NULL for all codes */
    uint32_t codes_len;
    uint32_t used;            /* bit k: the k-th code suppressed something */
    bool any_used;
} Noqa;
typedef ARENA_VEC(Noqa) NoqaVec;

static bool ieq(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((a[i] | 0x20) != (b[i] | 0x20))
            return false;
    return true;
}

static bool is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* "# noqa", "# noqa: TG001, TG002" anywhere in a comment; "# pfc: noqa" for
 * the whole file (the "noqa" part in any case). Another tool's file directive
 * ("# flake8: noqa", "# ruff: noqa") is that tool's: pfc neither obeys it nor
 * reports it. */
static void scan_comment(Syntax *s, uint32_t a, uint32_t b, NoqaVec *out, bool *whole_file)
{
    const char *c = s->src;
    for (uint32_t p = a; p + 4 <= b; p++) {
        if (!ieq(c + p, "noqa", 4) || (p > a && is_alnum(c[p - 1])))
            continue;
        uint32_t q = p + 4;
        uint32_t k = p;
        while (k > a && (c[k - 1] == ' ' || c[k - 1] == '\t'))
            k--;
        if (k > a && c[k - 1] == ':') {   /* "TOOL: noqa" */
            uint32_t w = k - 1;
            while (w > a && is_alnum(c[w - 1]))
                w--;
            *whole_file |= k - 1 - w == 3 && ieq(c + w, "pfc", 3);
            return;
        }
        Noqa n = {0, a, b, NULL, 0, 0, false};
        syntax_line_col(s, a, &n.line, &(uint32_t){0});
        if (q < b && c[q] == ':') {
            q++;
            while (q < b && c[q] == ' ')
                q++;
            n.codes = c + q;
            n.codes_len = b - q;
        }
        VEC_PUSH(s->arena, *out, n);
        return;
    }
}

static void collect_noqa(Syntax *s, NoqaVec *out, bool *whole_file)
{
    uint32_t prev = 0;
    for (uint32_t i = 0; i < s->toks.n; i++) {
        uint32_t p = prev, end = s->toks.v[i].start;
        while (p < end) {
            TriviaKind k;
            uint32_t len = trivia_piece(s->src, p, end, &k);
            if (k == TRIVIA_COMMENT)
                scan_comment(s, p, p + len, out, whole_file);
            p += len;
        }
        prev = end + s->toks.v[i].len;
    }
}

enum { NOQA_MAX_CODES = 32 };

/* The k-th code of a "noqa:" list (letters then digits, any case), or false
 * past the last: the list ends at the first word that is not a code. */
static bool noqa_code(const Noqa *n, uint32_t k, const char **code, uint32_t *len)
{
    uint32_t i = 0;
    for (uint32_t seen = 0; n->codes && i < n->codes_len; seen++) {
        while (i < n->codes_len && (n->codes[i] == ',' || n->codes[i] == ' '))
            i++;
        uint32_t from = i, letters;
        while (i < n->codes_len && is_alnum(n->codes[i]) && !(n->codes[i] >= '0' &&
                                                             n->codes[i] <= '9'))
            i++;
        letters = i - from;
        while (i < n->codes_len && n->codes[i] >= '0' && n->codes[i] <= '9')
            i++;
        if (!letters || i == from + letters || (i < n->codes_len && is_alnum(n->codes[i])))
            return false;
        if (seen == k) {
            *code = n->codes + from;
            *len = i - from;
            return true;
        }
    }
    return false;
}

/* Marks what it uses: the code's entry, or the whole comment for a bare noqa. */
static bool noqa_covers(Noqa *n, const char *code)
{
    if (!n->codes)
        return n->any_used = true;
    const char *c;
    uint32_t len;
    for (uint32_t k = 0; k < NOQA_MAX_CODES && noqa_code(n, k, &c, &len); k++)
        if (len == strlen(code) && ieq(c, code, len)) {
            n->used |= 1u << k;
            return n->any_used = true;
        }
    return false;
}

/* TG000 for the pfc codes (TG + digits) of a noqa list that suppressed
 * nothing. Other tools' codes (F401, E501) and a bare noqa, which may be meant
 * for another tool, are never reported. */
static void report_unused_noqa(Syntax *s, const Noqa *n, FindingVec *out)
{
    Buf unused = {0};
    const char *c;
    uint32_t len;
    for (uint32_t k = 0; k < NOQA_MAX_CODES && noqa_code(n, k, &c, &len); k++)
        if (!(n->used & (1u << k)) && len > 2 && ieq(c, "tg", 2) && c[2] >= '0' && c[2] <= '9')
            buf_printf(&unused, "%s%.*s", unused.n ? ", " : "", (int)len, c);
    if (unused.n) {
        const char *msg = arena_printf(s->arena, "this noqa comment suppresses nothing for %.*s",
                                       (int)unused.n, unused.v);
        Finding f = {"TG000", "unused-noqa", SEV_NOTE, n->start, n->end, msg,
                     "remove the unused codes (or the comment)", NULL};
        VEC_PUSH(s->arena, *out, f);
    }
    buf_free(&unused);
}

/* Syntax and I/O errors cannot be suppressed: without other findings (and
 * without TG000) the comments need not be read. */
static bool any_suppressible(const FindingVec *v)
{
    for (uint32_t i = 0; i < v->n; i++)
        if (v->v[i].code[0] != 'E')
            return true;
    return false;
}

/* Drops suppressed findings; with TG000 enabled, reports noqa comments that
 * suppressed nothing. Syntax errors cannot be suppressed. */
static void apply_noqa(Syntax *s, const FindingVec *in, FindingVec *out, bool report_unused)
{
    NoqaVec noqa = {0};
    bool whole_file = false;
    if (report_unused || any_suppressible(in))
        collect_noqa(s, &noqa, &whole_file);
    for (uint32_t i = 0; i < in->n; i++) {
        const Finding *f = &in->v[i];
        bool suppressed = false;
        if (f->code[0] != 'E') {
            uint32_t line, col;
            syntax_line_col(s, f->start, &line, &col);
            suppressed = whole_file;
            for (uint32_t k = 0; k < noqa.n; k++)
                if (noqa.v[k].line == line && noqa_covers(&noqa.v[k], f->code))
                    suppressed = true;
        }
        if (!suppressed)
            VEC_PUSH(s->arena, *out, *f);
    }
    if (!report_unused || whole_file)
        return;
    for (uint32_t k = 0; k < noqa.n; k++)
        report_unused_noqa(s, &noqa.v[k], out);
}

/* By position, then code: stable output whatever order the rules ran in. */
static void sort_findings(FindingVec *v)
{
    for (uint32_t i = 1; i < v->n; i++) {
        Finding x = v->v[i];
        uint32_t j = i;
        while (j > 0 && (v->v[j - 1].start > x.start ||
                         (v->v[j - 1].start == x.start && strcmp(v->v[j - 1].code, x.code) > 0))) {
            v->v[j] = v->v[j - 1];
            j--;
        }
        v->v[j] = x;
    }
}

static const char CACHE_DIR[] = ".pfc_cache";

/* What a hit keeps until its output is printed: the output is a view into
 * the cache, valid until cache_close (after printing); the codes and names
 * its stats point at are copied here. Only as large as its stats: a
 * CachedResult per file (2 KB, most of it empty stats) was a quarter of a
 * warm run. */
typedef struct CachedHit {
    const char *out;
    size_t out_len;
    char names[];   /* code NUL name NUL, per stat */
} CachedHit;

static void cached_free(CachedHit *c)
{
    free(c);
}

static CachedHit *keep_hit(const CachedResult *c, FileResult *r)
{
    size_t n = 0;
    for (uint32_t i = 0; i < r->nstats; i++)
        n += strlen(c->stats[i].code) + strlen(c->stats[i].name) + 2;
    CachedHit *h = malloc(sizeof *h + n);
    if (!h)
        abort();
    h->out = c->out;
    h->out_len = c->out_len;
    char *p = h->names;
    for (uint32_t i = 0; i < r->nstats; i++) {
        const char *code = p;
        p = stpcpy(p, c->stats[i].code) + 1;
        const char *name = p;
        p = stpcpy(p, c->stats[i].name) + 1;
        r->stats[i] = (CodeCount){code, name, c->stats[i].n, c->stats[i].safe_fixes,
                                  c->stats[i].unsafe_fixes};
    }
    return h;
}

/* A hit also needs every project module the entry's facts read unchanged:
 * editing model.py re-lints train.py. With `source` (the stat taken before
 * reading), the entry is looked up by the path and its stamp, not the bytes. */
static bool replay_cached(Cache *cache, Project *project, FileResult *r, const CacheKey *key,
                          uint64_t source, const CacheStat *now)
{
    CachedResult c;
    if (!(key ? cache_load(cache, key, now, &c) : cache_load_stat(cache, source, now, &c)))
        return false;
    if (c.deps_len && !project_deps_current(project, c.deps, c.deps_len))
        return false;
    memcpy(r->counts, c.counts, sizeof r->counts);
    r->nstats = c.nstats < MAX_STAT_CODES ? c.nstats : MAX_STAT_CODES;
    stats_reserve(r, r->nstats);
    r->cached = keep_hit(&c, r);
    return true;
}

static void store_cached(Cache *cache, const FileResult *r, const Buf *deps, const CacheKey *key,
                         const CacheStat *stat)
{
    CachedResult *c = calloc(1, sizeof *c);
    if (!c)
        return;
    memcpy(c->counts, r->counts, sizeof c->counts);
    c->nstats = r->nstats;
    for (uint32_t i = 0; i < r->nstats; i++) {
        snprintf(c->stats[i].code, sizeof c->stats[i].code, "%s", r->stats[i].code);
        snprintf(c->stats[i].name, sizeof c->stats[i].name, "%s", r->stats[i].name);
        c->stats[i].n = r->stats[i].n;
        c->stats[i].safe_fixes = r->stats[i].safe;
        c->stats[i].unsafe_fixes = r->stats[i].unsafe;
    }
    c->out = r->out.v;   /* copied by cache_store */
    c->out_len = r->out.n;
    c->deps = deps->v;
    c->deps_len = deps->n;
    if (stat)
        c->stat = *stat;
    cache_store(cache, key, c);
    free(c);
}

/* The options that shape a file's output, hashed for the cache key. */
static uint64_t settings_hash(const LintOptions *o)
{
    Buf b = {0};
    buf_printf(&b, "pfc %s|fmt %d|color %d|target %d %d|", PFC_VERSION, o->style.format,
               o->style.color, o->target_minor, o->target_set);
    if (o->target_gpu)
        buf_printf(&b, "gpu %s|", o->target_gpu);
    for (int i = 0; i < o->select.n; i++)
        buf_printf(&b, "s %s|", o->select.v[i]);
    for (int i = 0; i < o->ignore.n; i++)
        buf_printf(&b, "i %s|", o->ignore.v[i]);
    for (int i = 0; i < o->extend_select.n; i++)
        buf_printf(&b, "e %s|", o->extend_select.v[i]);
    buf_printf(&b, "unsafe %d|", o->unsafe_fixes);   /* the [*] marks depend on it */
    buf_printf(&b, "all %d|", o->analyse_all);       /* a check of the skip must not replay it */
    uint64_t h = XXH3_64bits(b.v, b.n);
    buf_free(&b);
    return h;
}

/* TG901 (cli/target.c): the estimator runs only with a target GPU, and only
 * when TG901 is selected for the file. */
static void check_target(const LintOptions *o, const Config *cfg, const char *path, Syntax *s,
                         const Ir *ir, FindingVec *all)
{
    LintTarget t;
    if (lint_target_resolve(o->target_gpu ? o->target_gpu : cfg->target_gpu,
                            cfg->target_world_size, &t) &&
        code_enabled(o, cfg, path, "TG901"))
        lint_target_check(s, path, ir, &t, all);
}

static bool any_rule_enabled(const LintOptions *o, const Config *cfg, const char *path)
{
    size_t n;
    const RuleInfo *r = rules_all(&n);
    for (size_t i = 0; i < n; i++)
        if (code_enabled(o, cfg, path, r[i].code))
            return true;
    return false;
}

/* Everything pfc reports about one version of a file: parse, IR, rules,
 * selection and suppression. The Syntax stays valid until the arena is freed. */
static void analyse(const LintOptions *o, const Config *cfg, const char *path, const char *src,
                    uint32_t len, Arena *arena, Syntax *s, FindingVec *shown, Buf *deps)
{
    parse_file(s, src, len, arena);
    parse_check_target(s, o->target_set || cfg->target_minor < 0 ? o->target_minor
                                                                 : cfg->target_minor);
    FindingVec all = {0};
    syntax_findings(s, &all);
    /* rules need a whole tree: a file with syntax errors reports only those;
     * with no rule enabled for the file (--select E999) nothing is lowered */
    if (!s->diags.n && any_rule_enabled(o, cfg, path)) {
        ProjectRequest *req = project_request_new(o->project, path);
        /* a file that names no training library, module or method cannot
         * reach a premise: it is not lowered (docs/performance.md) */
        if (o->analyse_all || passes_names_training(s) || project_request_relevant(req, src, len)) {
            Ir ir;
            IrProjectHook hook = project_hook(req);
            ir_build_in_project(&ir, s, &hook);   /* imports of the project's own modules */
            passes_run(s, &ir, &all);
            check_target(o, cfg, path, s, &ir, &all);
            sort_findings(&all);
        }
        if (deps)
            project_request_deps(req, deps);
        project_request_free(req);
    }
    FindingVec enabled = {0};
    memset(shown, 0, sizeof *shown);
    for (uint32_t k = 0; k < all.n; k++)
        if (code_enabled(o, cfg, path, all.v[k].code))
            VEC_PUSH(arena, enabled, all.v[k]);
    apply_noqa(s, &enabled, shown, code_enabled(o, cfg, path, "TG000"));
    sort_findings(shown);
}

static bool fix_wanted(const LintOptions *o, const Fix *f)
{
    return f && (f->applicability == FIX_SAFE || o->unsafe_fixes);
}

static bool edits_overlap(const Edit *a, const Edit *b)
{
    if (a->start == a->end && b->start == b->end)
        return a->start == b->start;   /* two insertions at one point: order unclear */
    return a->start < b->end && b->start < a->end;
}

/* The fixes to apply in one round: wanted, not overlapping the ones before
 * them; their edits sorted by position. Returns the number of fixes. */
typedef ARENA_VEC(Edit) EditVec;

static uint32_t choose_fixes(const LintOptions *o, const FindingVec *findings, Arena *a,
                             EditVec *edits, const char **codes, uint32_t max_codes)
{
    uint32_t chosen = 0;
    for (uint32_t i = 0; i < findings->n; i++) {
        const Fix *f = findings->v[i].fix;
        if (!fix_wanted(o, f))
            continue;
        bool clash = false;
        for (uint32_t e = 0; e < f->nedits && !clash; e++)
            for (uint32_t k = 0; k < edits->n && !clash; k++)
                clash = edits_overlap(&f->edits[e], &edits->v[k]);
        if (clash)
            continue;   /* applied in a later round, after re-linting */
        for (uint32_t e = 0; e < f->nedits; e++)
            VEC_PUSH(a, *edits, f->edits[e]);
        if (chosen < max_codes)
            codes[chosen] = findings->v[i].code;
        chosen++;
    }
    for (uint32_t i = 1; i < edits->n; i++)   /* insertion sort: few edits */
        for (uint32_t j = i; j > 0 && edits->v[j - 1].start > edits->v[j].start; j--) {
            Edit t = edits->v[j];
            edits->v[j] = edits->v[j - 1];
            edits->v[j - 1] = t;
        }
    return chosen;
}

static uint32_t count_code_in(const FindingVec *v, const char *code)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < v->n; i++)
        n += strcmp(v->v[i].code, code) == 0;
    return n;
}

enum { MAX_FIX_ROUNDS = 10, MAX_ROUND_CODES = 256 };

/* --fix / --diff: apply fixes round by round until none is left. A round is
 * kept only if the result parses and each fixed rule reports fewer findings;
 * otherwise the file stays as it was before that round and the failure is
 * reported. The fixes made go to *applied ("path: fixed CODE" lines) and
 * *napplied: they count only once written. Returns the final source (src
 * itself, or a new buffer). */
static char *fix_file(const LintOptions *o, const Config *cfg, const char *path, char *src,
                      uint32_t *len, FileResult *r, Buf *applied, uint32_t *napplied)
{
    for (int round = 0; round < MAX_FIX_ROUNDS; round++) {
        Arena arena;
        arena_init(&arena);
        Syntax s;
        FindingVec shown;
        analyse(o, cfg, path, src, *len, &arena, &s, &shown, NULL);
        EditVec edits = {0};
        const char *codes[MAX_ROUND_CODES];
        uint32_t nfix = s.diags.n ? 0 : choose_fixes(o, &shown, &arena, &edits, codes,
                                                    MAX_ROUND_CODES);
        if (!nfix) {
            arena_free(&arena);
            break;
        }
        if (r->notebook && !notebook_edits_fit(r->notebook, edits.v, edits.n)) {
            buf_printf(&r->fix_log, "%s: fixes not applied: a fix would cross a cell or "
                       "IPython syntax\n", path);
            arena_free(&arena);
            break;
        }
        Buf out = {0};
        emit_apply_edits(src, *len, edits.v, edits.n, &out);
        Arena check_arena;
        arena_init(&check_arena);
        Syntax fixed;
        FindingVec after;
        analyse(o, cfg, path, out.v ? out.v : "", (uint32_t)out.n, &check_arena, &fixed, &after,
                NULL);
        const char *why = fixed.diags.n ? "the result would not parse" : NULL;
        for (uint32_t k = 0; !why && k < nfix && k < MAX_ROUND_CODES; k++)
            if (count_code_in(&after, codes[k]) >= count_code_in(&shown, codes[k]))
                why = arena_printf(&arena, "%s would still be reported", codes[k]);
        if (why) {
            buf_printf(&r->fix_log, "%s: fixes not applied: %s\n", path, why);
            buf_free(&out);
            arena_free(&check_arena);
            arena_free(&arena);
            break;
        }
        for (uint32_t k = 0; k < nfix && k < MAX_ROUND_CODES; k++)
            buf_printf(applied, "%s: fixed %s\n", path, codes[k]);
        *napplied += nfix;
        if (r->notebook)
            notebook_apply_edits(r->notebook, edits.v, edits.n);
        arena_free(&check_arena);
        arena_free(&arena);
        free(src);
        buf_putc(&out, 0);   /* keep a terminator past the end; not part of the file */
        src = out.v;
        *len = (uint32_t)out.n - 1;
    }
    return src;
}

/* Writes the fixed source over the file (cli/safe_write.c says how). A file
 * left alone is a warning on stderr; a failed write, an E902 in the output
 * (report_write_failure). Returns whether the file now holds the fixes. */
static bool write_fixes(const char *path, const SourceStamp *stamp, const char *src,
                        uint32_t len, FileResult *r, char *failure, size_t failure_size)
{
    char why[512];
    switch (safe_replace(path, stamp, src, len, why, sizeof why)) {
    case WRITE_DONE:
        return true;
    case WRITE_SKIPPED:
        buf_printf(&r->fix_log, "%s: warning: not fixed: %s\n", path, why);
        return false;
    case WRITE_FAILED:
        snprintf(failure, failure_size, "could not write the fixes: %s", why);
        r->write_failed = true;
        return false;
    }
    return false;
}

/* After the file's findings, in the same format, like an unreadable file. */
static void report_write_failure(FileResult *r, const ReportStyle *st, const char *path,
                                 const char *msg)
{
    if (r->out.n && (st->format == FMT_JSON || st->format == FMT_SARIF))
        buf_puts(&r->out, ",\n");
    report_file_error(&r->out, st, path, msg);
    r->counts[SEV_ERROR]++;
}

/* After --fix: the notebook as the file now holds it (written, the JSON
 * rendered; else as it was), and *src its joined source, so that findings
 * point at the cells and lines on disk. */
static void notebook_reopen(FileResult *r, const Buf *written, char **src, uint32_t *len)
{
    uint32_t n;
    const char *json = written ? written->v : notebook_json(r->notebook, &n);
    n = written ? (uint32_t)written->n : n;
    char err[256];
    Notebook *fresh = notebook_open(json, n, err, sizeof err);
    if (!fresh)
        return;   /* cannot happen: rendering keeps the JSON valid; keep the old map */
    notebook_free(r->notebook);
    r->notebook = fresh;
    const char *joined = notebook_source(fresh, len);
    free(*src);
    *src = malloc(*len + 1u);
    if (!*src)
        abort();
    memcpy(*src, joined, *len + 1u);
}

/* Reads path's notebook into r->notebook and swaps *src (its JSON) for the
 * joined source of its code cells. False when there is nothing to lint: the
 * error (an E902, exit 2) or why it was skipped (a note on stderr) is in r. */
static bool open_notebook(const ReportStyle *st, const char *path, char **src, uint32_t *len,
                          FileResult *r)
{
    char err[256];
    r->notebook = notebook_open(*src, *len, err, sizeof err);
    if (!r->notebook) {
        report_file_error(&r->out, st, path, err);
        r->counts[SEV_ERROR]++;
        r->broken = true;
        return false;
    }
    const char *skip = notebook_skip_reason(r->notebook);
    if (skip) {
        buf_printf(&r->fix_log, "pfc: note: %s: skipped: %s\n", path, skip);
        return false;
    }
    const char *joined = notebook_source(r->notebook, len);
    free(*src);
    *src = malloc(*len + 1u);
    if (!*src)
        abort();
    memcpy(*src, joined, *len + 1u);
    return true;
}

/* --fix and --diff: fixes *src; writes it (--fix) or diffs it against
 * original (--diff). Returns whether the file on disk now holds the fixes. */
static bool fix_and_write(const LintOptions *o, const Config *cfg, const char *path,
                          const SourceStamp *stamp, char **src, uint32_t *len,
                          const char *original, uint32_t original_len, FileResult *r,
                          char *failure, size_t failure_size)
{
    Buf applied = {0}, json = {0};
    uint32_t napplied = 0;
    *src = fix_file(o, cfg, path, *src, len, r, &applied, &napplied);
    const char *disk = *src;   /* what the file will hold */
    uint32_t disk_len = *len;
    if (r->notebook) {
        notebook_render(r->notebook, *src, *len, &json);
        disk = json.v ? json.v : "";
        disk_len = (uint32_t)json.n;
        original = notebook_json(r->notebook, &original_len);
    }
    bool changed = disk_len != original_len || memcmp(disk, original, disk_len) != 0;
    bool kept = false;
    if (changed && o->diff) {
        emit_unified_diff(path, original, original_len, disk, disk_len, &r->diff);
        kept = true;
    } else if (changed) {
        kept = write_fixes(path, stamp, disk, disk_len, r, failure, failure_size);
    }
    if (r->notebook)
        notebook_reopen(r, kept && !o->diff ? &json : NULL, src, len);
    buf_free(&json);
    /* in the order things happened: the fixes, then why the rest were not */
    if (kept) {
        buf_put(&applied, r->fix_log.v, r->fix_log.n);
        buf_free(&r->fix_log);
        r->fix_log = applied;
        r->fixed = napplied;
    } else {
        buf_free(&applied);
    }
    return kept && !o->diff;
}

/* The stamp of a regular file (stat follows a symlink, as reading does):
 * the walk's for a file named on the command line. */
static bool stat_source(const PathList *files, size_t i, CacheStat *out)
{
    struct stat st;
    if (!files->stated[i] && stat(files->v[i], &st) != 0)
        return false;
    const struct stat *s = files->stated[i] ? &files->st[i] : &st;
    if (!S_ISREG(s->st_mode))
        return false;
    cache_stat_of(s, out);
    return true;
}

static void lint_one(size_t i, int worker, void *ctx)
{
    LintRun *run = ctx;
    const LintOptions *o = run->opt;
    FileResult *r = &run->results[i];
    const char *path = run->files.v[i];
    const Config *cfg = run->configs[i];
    char *src;
    uint32_t len;
    const char *err;
    SourceStamp stamp = {0};
    if (o->fix && !o->diff)
        safe_stamp(path, &stamp);   /* before reading: a later change shows */
    CacheStat now;
    bool stated = run->cache && !run->files.why[i] && stat_source(&run->files, i, &now);   /* before reading too */
    uint64_t source = run->cache ? cache_source(run->settings ^ cfg->hash, path) : 0;
    if (stated && replay_cached(run->cache, o->project, r, NULL, source, &now))
        return;
    if (run->files.why[i] || !read_source(path, &src, &len, &err)) {
        report_file_error(&r->out, &o->style, path, run->files.why[i] ? run->files.why[i] : err);
        r->counts[SEV_ERROR]++;
        return;
    }
    bool fixing = o->fix || o->diff;
    CacheKey key;
    if (run->cache) {
        cache_key(&key, source, src, len);
        if (replay_cached(run->cache, o->project, r, &key, source, stated ? &now : NULL)) {
            free(src);
            return;
        }
    }
    if (notebook_is_path(path) && !open_notebook(&o->style, path, &src, &len, r)) {
        notebook_free(r->notebook);
        r->notebook = NULL;
        free(src);
        return;
    }
    char *original = NULL;
    uint32_t original_len = len;
    bool written = false;
    char failure[600] = "";
    if (fixing) {
        original = malloc(len + 1);
        memcpy(original, src, len);
        uint32_t disk_len = original_len;
        const char *disk = r->notebook ? notebook_json(r->notebook, &disk_len) : original;
        safe_stamp_content(&stamp, disk, disk_len);
        written = fix_and_write(o, cfg, path, &stamp, &src, &len, original, original_len, r,
                                failure, sizeof failure);
    }
    Arena *arena = &run->arenas[worker];
    Buf *deps = run->cache ? &run->deps[worker] : NULL;   /* copied into the entry when stored */
    if (deps)
        deps->n = 0;
    Syntax s;
    FindingVec shown;
    /* the file as it is on disk: fixed only if the fixes were written */
    if (fixing && !written)
        analyse(o, cfg, path, original, original_len, arena, &s, &shown, deps);
    else
        analyse(o, cfg, path, src, len, arena, &s, &shown, deps);
    for (uint32_t k = 0; r->notebook && k < shown.n; k++)
        if (shown.v[k].code[0] == 'E')
            shown.v[k].message = notebook_cell_message(r->notebook, &s, shown.v[k].message);
    for (uint32_t k = 0; k < shown.n; k++) {
        r->counts[shown.v[k].severity]++;
        count_code(r, &shown.v[k]);
    }
    CellMap cells = r->notebook ? notebook_cells(r->notebook) : (CellMap){0};
    if (!o->diff && r->notebook)
        report_notebook(&r->out, &o->style, path, &s, shown.v, shown.n, &cells);
    else if (!o->diff)
        report_file(&r->out, &o->style, path, &s, shown.v, shown.n);
    if (failure[0])
        report_write_failure(r, &o->style, path, failure);
    if (run->cache)
        store_cached(run->cache, r, deps, &key, stated ? &now : NULL);
    arena_reset(arena);
    notebook_free(r->notebook);
    r->notebook = NULL;
    free(original);
    free(src);
}

static void lint_one_counted(size_t i, int worker, void *ctx)
{
    lint_one(i, worker, ctx);
    progress_tick(((LintRun *)ctx)->progress);
}

/* ---- the run -------------------------------------------------------------------------- */

/* Failed fixes always go to stderr; with --show-fixes, the applied ones too. */
static void print_fix_log(const LintOptions *o, const FileResult *r)
{
    const char *p = r->fix_log.v, *end = r->fix_log.v + r->fix_log.n;
    while (p && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p + 1) : (size_t)(end - p);
        bool applied = memmem(p, n, ": fixed ", 8) != NULL;
        if (!applied)
            fwrite(p, 1, n, stderr);
        else if (o->show_fixes)
            fwrite(p, 1, n, stdout);
        p += n;
    }
}

/* The findings per code over all files, most frequent first; returns the count. */
static uint32_t gather_statistics(const LintRun *run, CodeCount *all, uint32_t max)
{
    uint32_t n = 0;
    for (size_t i = 0; i < run->files.n; i++)
        for (uint32_t k = 0; k < run->results[i].nstats; k++) {
            const CodeCount *c = &run->results[i].stats[k];
            uint32_t j = 0;
            while (j < n && strcmp(all[j].code, c->code) != 0)
                j++;
            if (j == n && n < max)
                all[n++] = (CodeCount){c->code, c->name, 0, 0, 0};
            if (j < n) {
                all[j].n += c->n;
                all[j].safe += c->safe;
                all[j].unsafe += c->unsafe;
            }
        }
    for (uint32_t i = 1; i < n; i++)   /* by count, then code */
        for (uint32_t j = i; j > 0 && (all[j - 1].n < all[j].n ||
                                       (all[j - 1].n == all[j].n &&
                                        strcmp(all[j - 1].code, all[j].code) > 0)); j--) {
            CodeCount t = all[j];
            all[j] = all[j - 1];
            all[j - 1] = t;
        }
    return n;
}

static uint32_t fixable_now(const LintOptions *o, const CodeCount *c)
{
    return c->safe + (o->unsafe_fixes ? c->unsafe : 0);
}

/* --statistics: a table, or with --output-format json a JSON array in place
 * of the findings (as ruff does), so that stdout stays one JSON document. In
 * github and sarif the table goes to stderr for the same reason. */
static void print_statistics(const LintOptions *o, const LintRun *run)
{
    CodeCount all[MAX_STAT_CODES * 2];
    uint32_t n = gather_statistics(run, all, MAX_STAT_CODES * 2);
    if (o->style.format == FMT_JSON) {
        Buf b = {0};
        buf_puts(&b, n ? "[\n" : "[");
        for (uint32_t i = 0; i < n; i++) {
            buf_printf(&b, "  {\"code\": \"%s\", \"name\": \"%s\", \"count\": %u, "
                       "\"fixable\": %s}%s\n", all[i].code, all[i].name, all[i].n,
                       fixable_now(o, &all[i]) ? "true" : "false", i + 1 < n ? "," : "");
        }
        buf_puts(&b, "]\n");
        buf_write(&b, stdout);
        buf_free(&b);
        return;
    }
    FILE *to = o->style.format == FMT_FULL || o->style.format == FMT_CONCISE ? stdout : stderr;
    for (uint32_t i = 0; i < n; i++)
        fprintf(to, "%6u  %-6s %s%s\n", all[i].n, all[i].code,
                fixable_now(o, &all[i]) ? "[*] " : "", all[i].name);
}

/* Finds each file's configuration (main thread: the cache is not shared),
 * drops walked files that an exclude pattern matches, and takes fail-on and
 * target-version from the configuration where the command line is silent.
 * Returns -1, or the exit status of a configuration error. */
static int resolve_configs(LintRun *run, ConfigCache *cache, char **paths, int npaths,
                           LintOptions *o)
{
    run->configs = calloc(run->files.n + 1, sizeof *run->configs);
    Arena arena;   /* the paths named on the command line, as a set */
    arena_init(&arena);
    Interner named;
    intern_init(&named, &arena);
    bool *is_named = arena_zalloc(&arena, (size_t)npaths + NAME_FIRST_DYNAMIC);
    for (int k = 0; k < npaths; k++)
        is_named[intern(&named, paths[k], (uint32_t)strlen(paths[k]))] = true;
    size_t kept = 0;
    for (size_t i = 0; i < run->files.n; i++) {
        const char *err = NULL;
        const Config *cfg = config_for_file(cache, run->files.v[i], &err);
        if (!cfg) {
            fprintf(stderr, "pfc: error: %s\n", err);
            arena_free(&arena);
            return EXIT_USAGE;
        }
        const char *f = run->files.v[i];
        bool explicit_file = is_named[intern_lookup(&named, f, (uint32_t)strlen(f))];
        if (!explicit_file && config_excludes(cfg, run->files.v[i])) {
            free(run->files.v[i]);
            free(run->files.why[i]);
            continue;
        }
        if (!o->fail_on_set && cfg->fail_on >= 0)
            o->fail_on = (Severity)cfg->fail_on;
        run->files.v[kept] = run->files.v[i];
        run->files.why[kept] = run->files.why[i];
        run->configs[kept++] = cfg;
    }
    run->files.n = kept;
    arena_free(&arena);
    return -1;
}

/* ruff's closing lines: the count, then what --fix (and --unsafe-fixes) would fix. */
static void print_summary(const LintOptions *o, const LintRun *run, uint32_t total,
                          uint32_t files_with)
{
    if ((o->style.format != FMT_FULL && o->style.format != FMT_CONCISE) || o->quiet)
        return;
    if (total == 0) {
        puts("All checks passed!");
        return;
    }
    printf("Found %u %s in %u %s.\n", total, total == 1 ? "problem" : "problems", files_with,
           files_with == 1 ? "file" : "files");
    CodeCount all[MAX_STAT_CODES * 2];
    uint32_t n = gather_statistics(run, all, MAX_STAT_CODES * 2), fixable = 0, hidden = 0;
    for (uint32_t i = 0; i < n; i++) {
        fixable += fixable_now(o, &all[i]);
        hidden += o->unsafe_fixes ? 0 : all[i].unsafe;
    }
    char more[128] = "";
    if (hidden)
        snprintf(more, sizeof more, " (%u hidden %s can be enabled with the `--unsafe-fixes` "
                 "option)", hidden, hidden == 1 ? "fix" : "fixes");
    if (fixable)
        printf("[*] %u fixable with the `--fix` option%s.\n", fixable, more);
    else if (hidden)
        printf("No fixes available%s.\n", more);
}

/* --output-file: everything that would go to stdout goes to the file. */
static int open_output(LintOptions *o)
{
    if (o->output_file && !freopen(o->output_file, "w", stdout)) {
        fprintf(stderr, "pfc: error: --output-file: cannot write '%s': %s\n", o->output_file,
                strerror(errno));
        return EXIT_USAGE;
    }
    o->style.color = !o->output_file && isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
    o->style.unsafe_fixes = o->unsafe_fixes;
    return -1;
}

static void print_str_list(const char *key, const char *const *v, size_t n)
{
    printf("%-18s [", key);
    for (size_t i = 0; i < n; i++)
        printf("%s\"%s\"", i ? ", " : "", v[i]);
    puts("]");
}

/* --show-settings: what applies to `file`, and the rules that end up enabled. */
static int show_settings(const LintOptions *o, const Config *cfg, const char *file)
{
    static const char *const formats[] = {"full", "concise", "json", "github", "sarif"};
    int minor = o->target_set || cfg->target_minor < 0 ? o->target_minor : cfg->target_minor;
    printf("Resolved settings for: %s\n", file);
    printf("%-18s %s\n", "config file", cfg->path && *cfg->path ? cfg->path : "(none)");
    if (o->select.n)
        print_str_list("select (cli)", o->select.v, (size_t)o->select.n);
    else if (cfg->has_select)
        print_str_list("select", cfg->select.v, cfg->select.n);
    else
        printf("%-18s (the rules on by default)\n", "select");
    print_str_list("extend-select", cfg->extend_select.v, cfg->extend_select.n);
    if (o->extend_select.n)
        print_str_list("extend-select (cli)", o->extend_select.v, (size_t)o->extend_select.n);
    print_str_list("ignore", cfg->ignore.v, cfg->ignore.n);
    if (o->ignore.n)
        print_str_list("ignore (cli)", o->ignore.v, (size_t)o->ignore.n);
    for (uint32_t i = 0; i < cfg->per_file_ignores.n; i++) {
        char key[80];
        snprintf(key, sizeof key, "per-file-ignores %s", cfg->per_file_ignores.v[i].glob);
        print_str_list(key, cfg->per_file_ignores.v[i].codes.v, cfg->per_file_ignores.v[i].codes.n);
    }
    print_str_list("exclude", cfg->exclude.v, cfg->exclude.n);
    printf("%-18s \"3.%d\"\n%-18s \"%s\"\n", "target-version", minor, "fail-on",
           severity_name(o->fail_on));
    printf("%-18s %s\n%-18s %s\n", "target-gpu", cfg->target_gpu ? cfg->target_gpu : "(none)",
           "output-format", formats[o->style.format]);
    printf("%-18s", "enabled rules");
    const RuleInfo *r;
    for (size_t i = 0; (r = code_nth(i)); i++)
        if (code_enabled(o, cfg, file, r->code))
            printf(" %s", r->code);
    putchar('\n');
    return EXIT_CLEAN;
}

static int lint_exit(const LintOptions *o, uint32_t failing)
{
    return failing && !o->exit_zero ? EXIT_FINDINGS : EXIT_CLEAN;
}

static void read_stdin(Buf *in)
{
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0)
        buf_put(in, chunk, n);
    buf_putc(in, 0);   /* a terminator past the end, as read_source leaves */
    in->n--;
}

/* --diff on stdin: the diff of the fixes on stdout; exit 1 when there is one. */
static int diff_stdin(LintOptions *o, const Config *cfg, const char *name, char *src,
                      uint32_t len)
{
    char *original = malloc(len + 1);
    memcpy(original, src, len + 1);
    FileResult r;
    memset(&r, 0, sizeof r);
    Buf applied = {0}, diff = {0};
    uint32_t napplied = 0, fixed_len = len;
    src = fix_file(o, cfg, name, src, &fixed_len, &r, &applied, &napplied);
    emit_unified_diff(name, original, len, src, fixed_len, &diff);
    buf_write(&diff, stdout);
    fwrite(r.fix_log.v ? r.fix_log.v : "", 1, r.fix_log.n, stderr);
    if (!o->quiet)
        fprintf(stderr, "Would fix %u %s.\n", napplied, napplied == 1 ? "problem" : "problems");
    int status = diff.n ? EXIT_FINDINGS : EXIT_CLEAN;
    buf_free(&diff);
    buf_free(&applied);
    buf_free(&r.fix_log);
    free(r.stats);
    project_free(o->project);
    free(original);
    free(src);
    return status;
}

/* pfc lint - : the source comes from stdin and is reported as --stdin-filename
 * (which also picks the configuration). With --fix the fixed source goes to
 * stdout and the findings left to stderr, as in ruff. */
static int lint_stdin(LintOptions *o, ConfigCache *configs)
{
    const char *name = o->stdin_filename ? o->stdin_filename : "-";
    const char *err = NULL;
    const Config *cfg = config_for_file(configs, name, &err);
    if (!cfg) {
        fprintf(stderr, "pfc: error: %s\n", err);
        return EXIT_USAGE;
    }
    if (!o->fail_on_set && cfg->fail_on >= 0)
        o->fail_on = (Severity)cfg->fail_on;
    if (o->show_settings)
        return show_settings(o, cfg, name);
    Buf in = {0};
    read_stdin(&in);
    char *src = in.v ? in.v : calloc(1, 1);
    uint32_t len = (uint32_t)in.n;
    char *inputs[] = {o->stdin_filename ? (char *)o->stdin_filename : "."};
    o->project = project_new(inputs, 1);
    FileResult r;
    memset(&r, 0, sizeof r);
    Buf applied = {0};
    uint32_t napplied = 0;
    if (o->diff)
        return diff_stdin(o, cfg, name, src, len);
    if (o->fix)
        src = fix_file(o, cfg, name, src, &len, &r, &applied, &napplied);
    Arena arena;
    arena_init(&arena);
    Syntax s;
    FindingVec shown;
    analyse(o, cfg, name, src, len, &arena, &s, &shown, NULL);
    uint32_t failing = 0;
    for (uint32_t k = 0; k < shown.n; k++) {
        failing += shown.v[k].severity >= o->fail_on;
        count_code(&r, &shown.v[k]);
    }
    Buf out = {0};
    report_file(&out, &o->style, name, &s, shown.v, shown.n);
    if (o->fix)
        fwrite(src, 1, len, stdout);
    buf_write(&out, o->fix ? stderr : stdout);
    if (!o->fix) {   /* stdout holds the fixed source with --fix: nothing else */
        LintRun run = {o, {.n = 1}, &r, NULL, 0, NULL, NULL, NULL, NULL};
        print_summary(o, &run, shown.n, shown.n > 0);
    }
    fwrite(r.fix_log.v ? r.fix_log.v : "", 1, r.fix_log.n, stderr);
    buf_free(&out);
    buf_free(&applied);
    buf_free(&r.fix_log);
    free(r.stats);
    arena_free(&arena);
    project_free(o->project);
    free(src);
    return lint_exit(o, failing);
}

/* The run's output in input order, then statistics and the summary; returns
 * the exit status. */
static int print_run(LintOptions *o, LintRun *run)
{
    uint32_t total = 0, failing = 0, files_with = 0, fixed = 0, diffs = 0;
    bool write_failed = false;
    bool first_json = true;
    bool objects = o->style.format == FMT_JSON || o->style.format == FMT_SARIF;
    bool stats_only = o->statistics && o->style.format == FMT_JSON;
    Buf head = {0};
    if (o->style.format == FMT_JSON && !stats_only)
        buf_puts(&head, "[\n");
    else if (o->style.format == FMT_SARIF)
        report_sarif_begin(&head, &o->style, PFC_VERSION);
    buf_write(&head, stdout);
    buf_free(&head);
    for (size_t i = 0; i < run->files.n; i++) {
        FileResult *r = &run->results[i];
        uint32_t n = r->counts[0] + r->counts[1] + r->counts[2];
        if (n && objects && !first_json && !stats_only)
            fputs(",\n", stdout);
        if (n)
            first_json = false;
        if (!stats_only && r->cached)
            fwrite(r->cached->out, 1, r->cached->out_len, stdout);
        else if (!stats_only)
            buf_write(&r->out, stdout);
        buf_write(&r->diff, stdout);
        print_fix_log(o, r);
        fixed += r->fixed;
        diffs += r->diff.n > 0;
        write_failed |= r->write_failed || r->broken;
        total += n;
        files_with += n > 0;
        for (int sev = o->fail_on; sev <= SEV_ERROR; sev++)
            failing += r->counts[sev];
        buf_free(&r->out);
        buf_free(&r->diff);
        buf_free(&r->fix_log);
    }
    if (o->style.format == FMT_JSON && !stats_only) {
        fputs(first_json ? "]\n" : "\n]\n", stdout);
    } else if (o->style.format == FMT_SARIF) {
        Buf tail = {0};
        report_sarif_end(&tail);
        buf_write(&tail, stdout);
        buf_free(&tail);
    }
    if (o->statistics)
        print_statistics(o, run);
    if (o->diff) {
        if (!o->quiet)
            fprintf(stderr, "Would fix %u %s.\n", fixed, fixed == 1 ? "problem" : "problems");
        return diffs ? EXIT_FINDINGS : EXIT_CLEAN;
    }
    /* stdout stays one JSON document (or workflow commands) in machine formats */
    bool human = o->style.format == FMT_FULL || o->style.format == FMT_CONCISE;
    if (o->fix && fixed && !o->quiet)
        fprintf(human ? stdout : stderr, "Fixed %u %s.\n", fixed,
                fixed == 1 ? "problem" : "problems");
    print_summary(o, run, total, files_with);
    if (write_failed)
        return EXIT_USAGE;
    return lint_exit(o, failing);
}

static int lint_paths(LintOptions *o, ConfigCache *configs, char **paths, int npaths)
{
    LintRun run = {o, {0}, NULL, NULL, 0, NULL, NULL, NULL, NULL};
    int64_t walked_ns = cache_now_ns();   /* before the walk's stats */
    walk_paths(&run.files, paths, npaths, WALK_NOTEBOOKS);
    int status = resolve_configs(&run, configs, paths, npaths, o);
    if (status < 0 && o->show_settings) {
        const char *err = NULL;
        const Config *cfg = run.files.n ? run.configs[0] : config_for_file(configs, paths[0], &err);
        status = cfg ? show_settings(o, cfg, run.files.n ? run.files.v[0] : paths[0]) : EXIT_USAGE;
    }
    if (status >= 0) {
        free(run.configs);
        path_list_free(&run.files);
        return status;
    }
    run.results = calloc(run.files.n ? run.files.n : 1, sizeof *run.results);
    o->project = project_new(paths, npaths);
    run.settings = settings_hash(o);
    if (!o->no_cache && !o->fix && !o->diff && run.files.n)
        run.cache = cache_open(CACHE_DIR);
    if (run.cache) {
        cache_stats_since(run.cache, walked_ns);
        project_known_stats(o->project, run.files.v, run.files.st, run.files.stated, run.files.n,
                            walked_ns);
    }
    if (o->fix && !o->diff)
        safe_remove_stale_temps(run.files.v, run.files.n);
    run.arenas = calloc((size_t)o->jobs, sizeof *run.arenas);   /* zeroed: empty arenas */
    run.deps = calloc((size_t)o->jobs, sizeof *run.deps);
    if (!run.arenas || !run.deps)
        abort();
    run.progress = o->quiet ? NULL : progress_start(run.files.n);
    parallel_for_workers(run.files.n, o->jobs, lint_one_counted, &run);
    progress_stop(run.progress);
    for (int w = 0; w < o->jobs; w++)
        arena_free(&run.arenas[w]);
    for (int w = 0; w < o->jobs; w++)
        buf_free(&run.deps[w]);
    free(run.arenas);
    free(run.deps);
    project_free(o->project);
    o->project = NULL;
    status = print_run(o, &run);
    cache_close(run.cache);   /* after printing: the hits' output lies in the cache */
    for (size_t i = 0; i < run.files.n; i++) {
        cached_free(run.results[i].cached);
        free(run.results[i].stats);
    }
    free(run.results);
    free(run.configs);
    path_list_free(&run.files);
    return status;
}

int cmd_lint(int argc, char **argv)
{
    LintOptions o;
    memset(&o, 0, sizeof o);
    o.style.format = FMT_FULL;
    o.jobs = default_jobs();
    o.target_minor = PY_MINOR_MAX;
    o.fail_on = SEV_WARNING;
    o.style.rules = rule_meta(&o.style.nrules);
    int npaths = 0;
    int status = parse_lint_args(argc, argv, &o, &npaths);
    if (status < 0)
        status = open_output(&o);
    ConfigCache *configs = config_cache_new();
    const char *err = NULL;
    if (status < 0 && !config_cache_setup(configs, o.isolated, o.config_file, o.config_inline.v,
                                          o.config_inline.n, &err)) {
        fprintf(stderr, "pfc: error: %s\n", err);
        status = EXIT_USAGE;
    }
    bool from_stdin = npaths == 1 && strcmp(argv[0], "-") == 0;
    char *dot[] = {"."};
    if (status < 0)
        status = from_stdin ? lint_stdin(&o, configs)
                            : lint_paths(&o, configs, npaths ? argv : dot, npaths ? npaths : 1);
    config_cache_free(configs);
    buf_free(&o.config_inline);
    return status;
}
