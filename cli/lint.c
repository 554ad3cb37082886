/* pfc lint: find files, analyse them in parallel, print in input order. */
#define _GNU_SOURCE
#include "../emit/fix.h"
#include "../emit/report.h"
#include "../passes/pass.h"
#include "cli.h"
#include "cache.h"
#include "config.h"
#include "files.h"
#include "pool.h"
#include "project.h"
#include "safe_write.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
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
    CodeList select, ignore;
    Project *project;   /* the run's table of project modules (thread-safe) */
} LintOptions;

enum { MAX_STAT_CODES = 32 };
typedef struct CodeCount { const char *code, *name; uint32_t n; } CodeCount;

typedef struct FileResult {
    Buf out;
    uint32_t counts[3];     /* findings by Severity */
    CodeCount stats[MAX_STAT_CODES];   /* for --statistics */
    uint32_t nstats;
    CachedResult *cached;   /* a cache hit: stats point into it */
    uint32_t fixed;         /* fixes written (or, with --diff, that would be) */
    Buf fix_log;            /* per fix: "path: fixed CODE", and failures */
    Buf diff;               /* --diff output */
    Buf deps;               /* the project modules its facts read, for the cache */
    bool write_failed;      /* --fix could not write: an E902 in the output */
} FileResult;

static void count_code(FileResult *r, const Finding *f)
{
    for (uint32_t i = 0; i < r->nstats; i++)
        if (strcmp(r->stats[i].code, f->code) == 0) {
            r->stats[i].n++;
            return;
        }
    if (r->nstats < MAX_STAT_CODES) {
        CodeCount c = {f->code, f->name, 1};
        r->stats[r->nstats++] = c;
    }
}

typedef struct LintRun {
    const LintOptions *opt;
    PathList files;
    FileResult *results;
    const Config **configs;   /* per file */
    uint64_t settings;        /* everything besides the file and its config that shapes output */
    Cache *cache;             /* NULL: --no-cache, --fix, --diff, or not writable */
    Arena *arenas;            /* per worker, reset between its files */
} LintRun;

/* The SARIF rule table: the registry's rules, then the syntax and I/O codes. */
static const RuleMeta *rule_meta(size_t *n)
{
    static RuleMeta meta[64];
    static size_t count;
    if (!count) {
        size_t nr;
        const RuleInfo *r = rules_all(&nr);
        for (size_t i = 0; i < nr && count < 61; i++) {
            RuleMeta m = {r[i].code, r[i].name, r[i].summary, r[i].explain, r[i].severity};
            meta[count++] = m;
        }
        RuleMeta e999 = {"E999", "syntax-error", "the file is not valid Python for the target "
                         "version", NULL, SEV_ERROR};
        RuleMeta e902 = {"E902", "io-error", "the file could not be read, or its fixes "
                         "could not be written", NULL, SEV_ERROR};
        RuleMeta tg000 = {"TG000", "unused-noqa", "a noqa comment that suppresses nothing",
                          NULL, SEV_NOTE};
        meta[count++] = e999;
        meta[count++] = e902;
        meta[count++] = tg000;
    }
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
    if (!o->select.n && str_list_has_prefix_of(&cfg->extend_select, code))
        on = true;
    return on && !code_matches(&o->ignore, code) &&
           !str_list_has_prefix_of(&cfg->ignore, code) && !config_file_ignores(cfg, file, code);
}

static const char *option_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) == 0 && argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (strcmp(argv[*i], name) == 0) {
        if (*i + 1 >= argc)
            return NULL;
        return argv[++*i];
    }
    return NULL;
}

static bool is_option(const char *arg, const char *name)
{
    size_t n = strlen(name);
    return strncmp(arg, name, n) == 0 && (arg[n] == 0 || arg[n] == '=');
}

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
        const char *v;
        if (only_paths || a[0] != '-' || a[1] == 0) {
            argv[(*npaths)++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_paths = true;
        } else if (strcmp(a, "--exit-zero") == 0) {
            o->exit_zero = true;
        } else if (strcmp(a, "--no-cache") == 0) {
            o->no_cache = true;
        } else if (is_option(a, "--output-format")) {
            if (!(v = option_value(argc, argv, &i, "--output-format")) ||
                !output_format_parse(v, &o->style.format))
                return usage_error("--output-format expects full, concise, json, github or sarif");
        } else if (is_option(a, "--target-version")) {
            if (!(v = option_value(argc, argv, &i, "--target-version")) ||
                (o->target_minor = parse_target_version(v)) < 0)
                return usage_error("--target-version expects 3.9 to 3.13");
            o->target_set = true;
        } else if (strcmp(a, "--statistics") == 0) {
            o->statistics = true;
        } else if (strcmp(a, "--fix") == 0) {
            o->fix = true;
        } else if (strcmp(a, "--unsafe-fixes") == 0) {
            o->unsafe_fixes = true;
        } else if (strcmp(a, "--diff") == 0) {
            o->diff = true;
        } else if (strcmp(a, "--show-fixes") == 0) {
            o->show_fixes = true;
        } else if (is_option(a, "--fail-on")) {
            if (!(v = option_value(argc, argv, &i, "--fail-on")) ||
                !severity_parse(v, &o->fail_on))
                return usage_error("--fail-on expects note, warning or error");
            o->fail_on_set = true;
        } else if (is_option(a, "--select") || is_option(a, "--ignore")) {
            bool sel = is_option(a, "--select");
            if (!(v = option_value(argc, argv, &i, sel ? "--select" : "--ignore")) ||
                !parse_codes((char *)v, sel ? &o->select : &o->ignore))
                return usage_error("%s expects a comma-separated list of codes",
                                   sel ? "--select" : "--ignore");
        } else if (strcmp(a, "-j") == 0 || is_option(a, "--jobs") || strncmp(a, "-j", 2) == 0) {
            if (strncmp(a, "-j", 2) == 0 && a[2])
                v = a + 2;
            else if (!(v = option_value(argc, argv, &i, a[1] == 'j' ? "-j" : "--jobs")))
                return usage_error("%s expects a number", a);
            char *end;
            long n = strtol(v, &end, 10);
            if (*end || n < 1 || n > 1024)
                return usage_error("-j expects a number from 1 to 1024, not '%s'", v);
            o->jobs = (int)n;
        } else {
            return usage_error("unknown option '%s'", a);
        }
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
    bool used;
} Noqa;
typedef ARENA_VEC(Noqa) NoqaVec;

static bool ieq(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((a[i] | 0x20) != (b[i] | 0x20))
            return false;
    return true;
}

/* "# noqa", "# noqa: TG001, TG002" anywhere in a comment; "# pfc: noqa" for
 * the whole file (the "noqa" part in any case). */
static void scan_comment(Syntax *s, uint32_t a, uint32_t b, NoqaVec *out, bool *whole_file)
{
    const char *c = s->src;
    for (uint32_t p = a; p + 4 <= b; p++) {
        if (!ieq(c + p, "noqa", 4))
            continue;
        uint32_t q = p + 4;
        /* "# pfc: noqa" — the marker right before "noqa" */
        uint32_t k = p;
        while (k > a && (c[k - 1] == ' ' || c[k - 1] == '\t'))
            k--;
        if (k >= a + 4 && c[k - 1] == ':' && ieq(c + k - 4, "pfc", 3)) {
            *whole_file = true;
            return;
        }
        Noqa n = {0, a, b, NULL, 0, false};
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

static bool noqa_covers(const Noqa *n, const char *code)
{
    if (!n->codes)
        return true;
    size_t len = strlen(code);
    for (uint32_t i = 0; i + len <= n->codes_len; i++)
        if (memcmp(n->codes + i, code, len) == 0 &&
            (i == 0 || n->codes[i - 1] == ',' || n->codes[i - 1] == ' '))
            return true;
    return false;
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
                if (noqa.v[k].line == line && noqa_covers(&noqa.v[k], f->code)) {
                    noqa.v[k].used = true;
                    suppressed = true;
                }
        }
        if (!suppressed)
            VEC_PUSH(s->arena, *out, *f);
    }
    if (!report_unused || whole_file)
        return;
    for (uint32_t k = 0; k < noqa.n; k++)
        if (!noqa.v[k].used) {
            Finding f = {"TG000", "unused-noqa", SEV_NOTE, noqa.v[k].start, noqa.v[k].end,
                         "this noqa comment suppresses nothing", "remove it", NULL};
            VEC_PUSH(s->arena, *out, f);
        }
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

static void cached_free(CachedResult *c)
{
    if (!c)
        return;
    buf_free(&c->out);
    buf_free(&c->deps);
    free(c);
}

/* A hit also needs every project module the entry's facts read unchanged:
 * editing model.py re-lints train.py. */
static bool replay_cached(Cache *cache, Project *project, FileResult *r, const char *key)
{
    CachedResult *c = malloc(sizeof *c);
    if (!c || !cache_load(cache, key, c)) {
        free(c);
        return false;
    }
    if (c->deps.n && !project_deps_current(project, c->deps.v, c->deps.n)) {
        cached_free(c);
        return false;
    }
    memcpy(r->counts, c->counts, sizeof r->counts);
    r->nstats = c->nstats < MAX_STAT_CODES ? c->nstats : MAX_STAT_CODES;
    for (uint32_t i = 0; i < r->nstats; i++)
        r->stats[i] = (CodeCount){c->stats[i].code, c->stats[i].name, c->stats[i].n};
    r->out = c->out;
    c->out = (Buf){0};
    r->cached = c;
    return true;
}

static void store_cached(Cache *cache, const FileResult *r, const char *key)
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
    }
    c->out = r->out;   /* borrowed for writing */
    c->deps = r->deps;
    cache_store(cache, key, c);
    free(c);
}

/* The options that shape a file's output, hashed for the cache key. */
static uint64_t settings_hash(const LintOptions *o)
{
    Buf b = {0};
    buf_printf(&b, "pfc %s|fmt %d|color %d|target %d %d|", PFC_VERSION, o->style.format,
               o->style.color, o->target_minor, o->target_set);
    for (int i = 0; i < o->select.n; i++)
        buf_printf(&b, "s %s|", o->select.v[i]);
    for (int i = 0; i < o->ignore.n; i++)
        buf_printf(&b, "i %s|", o->ignore.v[i]);
    uint64_t h = XXH3_64bits(b.v, b.n);
    buf_free(&b);
    return h;
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
        Ir ir;
        ProjectRequest *req = project_request_new(o->project, path);
        IrProjectHook hook = project_hook(req);
        ir_build_in_project(&ir, s, &hook);   /* imports of the project's own modules */
        if (deps)
            project_request_deps(req, deps);
        project_request_free(req);
        passes_run(s, &ir, &all);
        sort_findings(&all);
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

/* --fix and --diff: fixes *src; writes it (--fix) or diffs it against
 * original (--diff). Returns whether the file on disk now holds the fixes. */
static bool fix_and_write(const LintOptions *o, const Config *cfg, const char *path,
                          const SourceStamp *stamp, char **src, uint32_t *len,
                          const char *original, uint32_t original_len, FileResult *r,
                          char *failure, size_t failure_size)
{
    Buf applied = {0};
    uint32_t napplied = 0;
    *src = fix_file(o, cfg, path, *src, len, r, &applied, &napplied);
    bool changed = *len != original_len || memcmp(*src, original, *len) != 0;
    bool kept = false;
    if (changed && o->diff) {
        emit_unified_diff(path, original, original_len, *src, *len, &r->diff);
        kept = true;
    } else if (changed) {
        kept = write_fixes(path, stamp, *src, *len, r, failure, failure_size);
    }
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
    if (run->files.why[i] || !read_source(path, &src, &len, &err)) {
        report_file_error(&r->out, &o->style, path, run->files.why[i] ? run->files.why[i] : err);
        r->counts[SEV_ERROR]++;
        return;
    }
    bool fixing = o->fix || o->diff;
    char key[CACHE_KEY_LEN + 1];
    if (run->cache) {
        cache_key(key, run->settings ^ cfg->hash, path, src, len);
        if (replay_cached(run->cache, o->project, r, key)) {
            free(src);
            return;
        }
    }
    char *original = NULL;
    uint32_t original_len = len;
    bool written = false;
    char failure[600] = "";
    if (fixing) {
        original = malloc(len + 1);
        memcpy(original, src, len);
        safe_stamp_content(&stamp, original, original_len);
        written = fix_and_write(o, cfg, path, &stamp, &src, &len, original, original_len, r,
                                failure, sizeof failure);
    }
    Arena *arena = &run->arenas[worker];
    Syntax s;
    FindingVec shown;
    /* the file as it is on disk: fixed only if the fixes were written */
    if (fixing && !written)
        analyse(o, cfg, path, original, original_len, arena, &s, &shown,
                run->cache ? &r->deps : NULL);
    else
        analyse(o, cfg, path, src, len, arena, &s, &shown, run->cache ? &r->deps : NULL);
    for (uint32_t k = 0; k < shown.n; k++) {
        r->counts[shown.v[k].severity]++;
        count_code(r, &shown.v[k]);
    }
    if (!o->diff)
        report_file(&r->out, &o->style, path, &s, shown.v, shown.n);
    if (failure[0])
        report_write_failure(r, &o->style, path, failure);
    if (run->cache)
        store_cached(run->cache, r, key);
    arena_reset(arena);
    free(original);
    free(src);
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

/* --statistics: findings per code, most frequent first. */
static void print_statistics(const LintRun *run)
{
    CodeCount all[MAX_STAT_CODES * 2];
    uint32_t n = 0;
    for (size_t i = 0; i < run->files.n; i++)
        for (uint32_t k = 0; k < run->results[i].nstats; k++) {
            const CodeCount *c = &run->results[i].stats[k];
            uint32_t j = 0;
            while (j < n && strcmp(all[j].code, c->code) != 0)
                j++;
            if (j == n && n < MAX_STAT_CODES * 2)
                all[n++] = (CodeCount){c->code, c->name, 0};
            if (j < n)
                all[j].n += c->n;
        }
    for (uint32_t i = 1; i < n; i++)   /* by count, then code */
        for (uint32_t j = i; j > 0 && (all[j - 1].n < all[j].n ||
                                       (all[j - 1].n == all[j].n &&
                                        strcmp(all[j - 1].code, all[j].code) > 0)); j--) {
            CodeCount t = all[j];
            all[j] = all[j - 1];
            all[j - 1] = t;
        }
    for (uint32_t i = 0; i < n; i++)
        printf("%6u  %-6s %s\n", all[i].n, all[i].code, all[i].name);
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

static void print_summary(const LintOptions *o, uint32_t total, uint32_t files_with)
{
    if (o->style.format != FMT_FULL && o->style.format != FMT_CONCISE)
        return;
    if (total == 0) {
        puts("All checks passed!");
        return;
    }
    printf("Found %u %s in %u %s.\n", total, total == 1 ? "problem" : "problems", files_with,
           files_with == 1 ? "file" : "files");
}

int cmd_lint(int argc, char **argv)
{
    LintOptions o;
    memset(&o, 0, sizeof o);
    o.style.format = FMT_FULL;
    o.jobs = default_jobs();
    o.target_minor = PY_MINOR_MAX;
    o.fail_on = SEV_WARNING;
    o.style.color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
    o.style.rules = rule_meta(&o.style.nrules);
    int npaths = 0;
    int status = parse_lint_args(argc, argv, &o, &npaths);
    if (status >= 0)
        return status;
    char *dot[] = {"."};
    LintRun run = {&o, {0}, NULL, NULL, 0, NULL, NULL};
    walk_paths(&run.files, npaths ? argv : dot, npaths ? npaths : 1, 0);
    ConfigCache *configs = config_cache_new();
    status = resolve_configs(&run, configs, npaths ? argv : dot, npaths ? npaths : 1, &o);
    if (status >= 0) {
        free(run.configs);
        config_cache_free(configs);
        path_list_free(&run.files);
        return status;
    }
    run.results = calloc(run.files.n ? run.files.n : 1, sizeof *run.results);
    o.project = project_new(npaths ? argv : dot, npaths ? npaths : 1);
    run.settings = settings_hash(&o);
    if (!o.no_cache && !o.fix && !o.diff && run.files.n)
        run.cache = cache_open(CACHE_DIR);
    if (o.fix && !o.diff)
        safe_remove_stale_temps(run.files.v, run.files.n);
    run.arenas = calloc((size_t)o.jobs, sizeof *run.arenas);   /* zeroed: empty arenas */
    if (!run.arenas)
        abort();
    parallel_for_workers(run.files.n, o.jobs, lint_one, &run);
    for (int w = 0; w < o.jobs; w++)
        arena_free(&run.arenas[w]);
    free(run.arenas);
    cache_close(run.cache);
    project_free(o.project);
    o.project = NULL;

    uint32_t total = 0, failing = 0, files_with = 0, fixed = 0, diffs = 0;
    bool write_failed = false;
    bool first_json = true;
    bool objects = o.style.format == FMT_JSON || o.style.format == FMT_SARIF;
    Buf head = {0};
    if (o.style.format == FMT_JSON)
        buf_puts(&head, "[\n");
    else if (o.style.format == FMT_SARIF)
        report_sarif_begin(&head, &o.style, PFC_VERSION);
    buf_write(&head, stdout);
    buf_free(&head);
    for (size_t i = 0; i < run.files.n; i++) {
        FileResult *r = &run.results[i];
        uint32_t n = r->counts[0] + r->counts[1] + r->counts[2];
        if (n && objects && !first_json)
            fputs(",\n", stdout);
        if (n)
            first_json = false;
        buf_write(&r->out, stdout);
        buf_write(&r->diff, stdout);
        print_fix_log(&o, r);
        fixed += r->fixed;
        diffs += r->diff.n > 0;
        write_failed |= r->write_failed;
        total += n;
        files_with += n > 0;
        for (int sev = o.fail_on; sev <= SEV_ERROR; sev++)
            failing += r->counts[sev];
        buf_free(&r->out);
        buf_free(&r->diff);
        buf_free(&r->fix_log);
    }
    if (o.style.format == FMT_JSON) {
        fputs(first_json ? "]\n" : "\n]\n", stdout);
    } else if (o.style.format == FMT_SARIF) {
        Buf tail = {0};
        report_sarif_end(&tail);
        buf_write(&tail, stdout);
        buf_free(&tail);
    }
    if (o.statistics)
        print_statistics(&run);
    for (size_t i = 0; i < run.files.n; i++) {
        cached_free(run.results[i].cached);
        buf_free(&run.results[i].deps);
    }
    if (o.diff) {
        fprintf(stderr, "Would fix %u %s.\n", fixed, fixed == 1 ? "problem" : "problems");
        free(run.results);
        free(run.configs);
        config_cache_free(configs);
        path_list_free(&run.files);
        return diffs ? EXIT_FINDINGS : EXIT_CLEAN;
    }
    /* stdout stays one JSON document (or workflow commands) in machine formats */
    bool human = o.style.format == FMT_FULL || o.style.format == FMT_CONCISE;
    if (o.fix && fixed)
        fprintf(human ? stdout : stderr, "Fixed %u %s.\n", fixed,
                fixed == 1 ? "problem" : "problems");
    print_summary(&o, total, files_with);
    free(run.results);
    free(run.configs);
    config_cache_free(configs);
    path_list_free(&run.files);
    if (write_failed)
        return EXIT_USAGE;
    return failing && !o.exit_zero ? EXIT_FINDINGS : EXIT_CLEAN;
}
