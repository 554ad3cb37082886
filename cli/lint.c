/* pfc lint: find files, analyse them in parallel, print in input order. */
#include "../emit/report.h"
#include "../passes/pass.h"
#include "cli.h"
#include "files.h"
#include "pool.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct CodeList { const char *v[64]; int n; } CodeList;

typedef struct LintOptions {
    ReportStyle style;
    int jobs;
    int target_minor;
    Severity fail_on;
    bool exit_zero, no_cache;
    CodeList select, ignore;
} LintOptions;

typedef struct FileResult {
    Buf out;
    uint32_t counts[3];     /* findings by Severity */
} FileResult;

typedef struct LintRun {
    const LintOptions *opt;
    PathList files;
    FileResult *results;
} LintRun;

/* The SARIF rule table: the registry's rules, then the syntax and I/O codes. */
static const RuleMeta *rule_meta(size_t *n)
{
    static RuleMeta meta[64];
    static size_t count;
    if (!count) {
        size_t nr;
        const RuleInfo *r = rules_all(&nr);
        for (size_t i = 0; i < nr && count < 62; i++) {
            RuleMeta m = {r[i].code, r[i].name, r[i].summary, r[i].explain, r[i].severity};
            meta[count++] = m;
        }
        RuleMeta e999 = {"E999", "syntax-error", "the file is not valid Python for the target "
                         "version", NULL, SEV_ERROR};
        RuleMeta e902 = {"E902", "io-error", "the file could not be read", NULL, SEV_ERROR};
        meta[count++] = e999;
        meta[count++] = e902;
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
static bool code_enabled(const LintOptions *o, const char *code)
{
    if (code[0] == 'E' && code[1] == '9')
        return true;
    if (o->select.n ? !code_matches(&o->select, code) : !rule_default_on(code))
        return false;
    return !code_matches(&o->ignore, code);
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
        } else if (is_option(a, "--fail-on")) {
            if (!(v = option_value(argc, argv, &i, "--fail-on")) ||
                !severity_parse(v, &o->fail_on))
                return usage_error("--fail-on expects note, warning or error");
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
        Finding f = {"E999", "syntax-error", SEV_ERROR, d->start, d->end, d->msg, NULL};
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

static void lint_one(size_t i, void *ctx)
{
    LintRun *run = ctx;
    const LintOptions *o = run->opt;
    FileResult *r = &run->results[i];
    const char *path = run->files.v[i];
    char *src;
    uint32_t len;
    const char *err;
    if (!read_source(path, &src, &len, &err)) {
        report_file_error(&r->out, &o->style, path, err);
        r->counts[SEV_ERROR]++;
        return;
    }
    Arena arena;
    arena_init(&arena);
    Syntax s;
    parse_file(&s, src, len, &arena);
    parse_check_target(&s, o->target_minor);
    FindingVec all = {0};
    syntax_findings(&s, &all);
    /* rules need a whole tree: a file with syntax errors reports only those */
    if (!s.diags.n) {
        Ir ir;
        ir_build(&ir, &s);
        passes_run(&s, &ir, &all);
        sort_findings(&all);
    }
    FindingVec shown = {0};
    for (uint32_t k = 0; k < all.n; k++) {
        if (!code_enabled(o, all.v[k].code))
            continue;
        VEC_PUSH(&arena, shown, all.v[k]);
        r->counts[all.v[k].severity]++;
    }
    report_file(&r->out, &o->style, path, &s, shown.v, shown.n);
    arena_free(&arena);
    free(src);
}

/* ---- the run -------------------------------------------------------------------------- */

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
    LintOptions o = {{FMT_FULL, false, NULL, 0}, default_jobs(), PY_MINOR_MAX, SEV_WARNING,
                     false, false, {{0}, 0}, {{0}, 0}};
    o.style.color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
    o.style.rules = rule_meta(&o.style.nrules);
    int npaths = 0;
    int status = parse_lint_args(argc, argv, &o, &npaths);
    if (status >= 0)
        return status;
    char *dot[] = {"."};
    LintRun run = {&o, {0}, NULL};
    walk_paths(&run.files, npaths ? argv : dot, npaths ? npaths : 1, 0);
    run.results = calloc(run.files.n ? run.files.n : 1, sizeof *run.results);
    parallel_for(run.files.n, o.jobs, lint_one, &run);

    uint32_t total = 0, failing = 0, files_with = 0;
    bool first_json = true;
    bool objects = o.style.format == FMT_JSON || o.style.format == FMT_SARIF;
    Buf head = {0};
    if (o.style.format == FMT_JSON)
        buf_puts(&head, "[\n");
    else if (o.style.format == FMT_SARIF)
        report_sarif_begin(&head, &o.style, PFC_VERSION);
    fwrite(head.v, 1, head.n, stdout);
    buf_free(&head);
    for (size_t i = 0; i < run.files.n; i++) {
        FileResult *r = &run.results[i];
        uint32_t n = r->counts[0] + r->counts[1] + r->counts[2];
        if (n && objects && !first_json)
            fputs(",\n", stdout);
        if (n)
            first_json = false;
        if (r->out.n)
            fwrite(r->out.v, 1, r->out.n, stdout);
        total += n;
        files_with += n > 0;
        for (int sev = o.fail_on; sev <= SEV_ERROR; sev++)
            failing += r->counts[sev];
        buf_free(&r->out);
    }
    if (o.style.format == FMT_JSON) {
        fputs(first_json ? "]\n" : "\n]\n", stdout);
    } else if (o.style.format == FMT_SARIF) {
        Buf tail = {0};
        report_sarif_end(&tail);
        fwrite(tail.v, 1, tail.n, stdout);
        buf_free(&tail);
    }
    print_summary(&o, total, files_with);
    free(run.results);
    path_list_free(&run.files);
    return failing && !o.exit_zero ? EXIT_FINDINGS : EXIT_CLEAN;
}
