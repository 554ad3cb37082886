/* pfc audit SCRIPT [-- ARGS]: runs the script under the Python package
 * pfc_audit (audit/), which lets one optimizer step happen and writes its
 * findings in a line protocol (pfc_audit/run.py); this side renders them with
 * the lint emitters, so every output format has one implementation. */
#include "../base/buf.h"
#include "../emit/report.h"
#include "../passes/pass.h"
#include "../passes/runtime.h"
#include "cli.h"
#include "files.h"
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct AuditOptions {
    ReportStyle style;
    Severity fail_on;
    bool exit_zero;
    const char *script;
    char **script_args;
    int nscript_args;
} AuditOptions;

typedef struct AuditFinding {
    Finding f;
    const char *path;
    uint32_t line;
} AuditFinding;

typedef struct AuditResult {
    Arena arena;
    ARENA_VEC(AuditFinding) findings;
    const char *crash;           /* what the script raised; NULL when it stepped or ended */
} AuditResult;

/* The option list of `pfc audit`: options, then SCRIPT, then `--` and its arguments. */
static int parse_audit_options(int argc, char **argv, AuditOptions *o)
{
    const char *env = getenv("PFC_OUTPUT_FORMAT");
    if (env && *env && !output_format_parse(env, &o->style.format))
        return usage_error("invalid PFC_OUTPUT_FORMAT '%s'", env);
    int i = 0;
    for (; i < argc && !o->script; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--output-format") == 0 && i + 1 < argc) {
            if (!output_format_parse(argv[++i], &o->style.format))
                return usage_error("--output-format expects full, concise, json, github or sarif");
        } else if (strcmp(a, "--fail-on") == 0 && i + 1 < argc) {
            if (!severity_parse(argv[++i], &o->fail_on))
                return usage_error("--fail-on expects note, warning or error");
        } else if (strcmp(a, "--exit-zero") == 0) {
            o->exit_zero = true;
        } else if (a[0] == '-' && a[1]) {
            return usage_error("unknown audit option '%s'", a);
        } else {
            o->script = a;
        }
    }
    if (!o->script)
        return usage_error("audit expects a script: pfc audit SCRIPT [-- ARGS]");
    if (i < argc && strcmp(argv[i], "--") == 0)
        i++;
    o->script_args = argv + i;
    o->nscript_args = argc - i;
    return -1;
}

/* ---- where the package and Python are ------------------------------------------------ */

static bool has_package(const char *dir)
{
    char path[PATH_MAX];
    struct stat st;
    return snprintf(path, sizeof path, "%s/pfc_audit/run.py", dir) < (int)sizeof path &&
           stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* $PFC_AUDIT_PATH, the installed copy beside the binary, then the source tree
 * (build/pfc and ./pfc both sit one step from audit/). */
static bool find_package(const char *bindir, char *out, size_t cap)
{
    const char *env = getenv("PFC_AUDIT_PATH");
    if (env && *env) {
        snprintf(out, cap, "%s", env);
        return has_package(out);
    }
    static const char *const rel[] = {"/../lib/pfc/python", "/../audit", "/audit"};
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++)
        if (snprintf(out, cap, "%s%s", bindir, rel[i]) < (int)cap && has_package(out))
            return true;
    return false;
}

/* Runs argv with stdout sent to stderr (the report owns stdout) and the given
 * environment additions; returns its exit status, 128+N for signal N, 127
 * when it cannot be started. */
static int run_child(char *const argv[], const char *pythonpath, const char *self)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return 127;
    if (pid == 0) {
        if (pythonpath)
            setenv("PYTHONPATH", pythonpath, 1);
        if (self)
            setenv("PFC_BIN", self, 1);
        dup2(STDERR_FILENO, STDOUT_FILENO);
        execvp(argv[0], argv);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return 127;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* 0: python runs and has torch; 3: no torch; 127: no such python. */
static int probe_python(const char *py)
{
    char *argv[] = {(char *)py, "-c",
                    "import importlib.util, sys; "
                    "sys.exit(0 if importlib.util.find_spec('torch') else 3)", NULL};
    return run_child(argv, NULL, NULL);
}

/* $PFC_PYTHON alone when set; else python3 on PATH, then the system's (a
 * pyenv or venv python3 often lacks the distribution's torch). */
static const char *find_python(bool *no_torch)
{
    const char *env = getenv("PFC_PYTHON");
    static const char *const candidates[] = {"python3", "/usr/bin/python3"};
    *no_torch = false;
    if (env && *env) {
        int st = probe_python(env);
        *no_torch = st == 3;
        return st == 0 ? env : NULL;
    }
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        int st = probe_python(candidates[i]);
        if (st == 0)
            return candidates[i];
        *no_torch |= st == 3;
    }
    return NULL;
}

/* ---- the report the runner wrote ------------------------------------------------------ */

/* Undoes run.py's escapes in place; returns the field's end. */
static char *unescape_field(char *s)
{
    char *w = s;
    for (char *r = s; *r && *r != '\t'; r++) {
        if (*r == '\\' && r[1]) {
            r++;
            *w++ = *r == 't' ? '\t' : *r == 'n' ? '\n' : *r == 'r' ? '\r' : *r;
        } else {
            *w++ = *r;
        }
    }
    char *end = s + strcspn(s, "\t");
    bool more = *end == '\t';
    *w = '\0';
    return more ? end + 1 : NULL;
}

/* Splits a line into at most n tab-separated, unescaped fields; returns how many. */
static int split_fields(char *line, char **fields, int n)
{
    int k = 0;
    while (line && k < n) {
        fields[k++] = line;
        line = unescape_field(line);
    }
    return k;
}

/* "code name severity path line message [help]" */
static bool parse_finding_line(AuditResult *r, char *line)
{
    char *fd[7] = {0};
    Severity sev;
    if (split_fields(line, fd, 7) < 6 || !severity_parse(fd[2], &sev))
        return false;
    Arena *A = &r->arena;
    AuditFinding af = {{arena_strndup(A, fd[0], strlen(fd[0])),
                        arena_strndup(A, fd[1], strlen(fd[1])), sev, 0, 0,
                        arena_strndup(A, fd[5], strlen(fd[5])),
                        fd[6] && *fd[6] ? arena_strndup(A, fd[6], strlen(fd[6])) : NULL, NULL},
                       arena_strndup(A, fd[3], strlen(fd[3])), (uint32_t)strtoul(fd[4], NULL, 10)};
    VEC_PUSH(A, r->findings, af);
    return true;
}

/* false when the file is not a report of this protocol version */
static bool read_report(const char *path, AuditResult *r)
{
    char *data;
    uint32_t len;
    const char *err;
    if (!read_source(path, &data, &len, &err))
        return false;
    bool ok = strncmp(data, "pfc-audit 1\n", 12) == 0;
    for (char *line = ok ? data + 12 : NULL; ok && line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (line[0] == 'F' && line[1] == '\t')
            ok = parse_finding_line(r, line + 2);
        else if (line[0] == 'C' && line[1] == '\t')
            r->crash = arena_strndup(&r->arena, line + 2, strlen(line + 2));
        line = nl ? nl + 1 : NULL;
    }
    free(data);
    return ok;
}

/* ---- rendering through the lint emitters ----------------------------------------------- */

/* The span of a 1-based line: its first non-blank byte to its end. */
static void line_span(const Syntax *s, uint32_t line, uint32_t *start, uint32_t *end)
{
    uint32_t at = 0;
    for (uint32_t l = 1; l < line && at < s->len; at++)
        if (s->src[at] == '\n')
            l++;
    while (at < s->len && (s->src[at] == ' ' || s->src[at] == '\t'))
        at++;
    uint32_t e = at;
    while (e < s->len && s->src[e] != '\n' && s->src[e] != '\r')
        e++;
    *start = at;
    *end = e;
}

/* The findings that point into `path` (in report order) with a line (`lined`)
 * or without one, with their spans. */
static uint32_t findings_of(AuditResult *r, const char *path, const Syntax *s, bool lined,
                            Finding *out)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->findings.n; i++) {
        AuditFinding *af = &r->findings.v[i];
        if (strcmp(af->path, path) != 0 || (af->line > 0) != lined)
            continue;
        out[n] = af->f;
        if (s)
            line_span(s, af->line, &out[n].start, &out[n].end);
        n++;
    }
    return n;
}

static void render_group(Buf *out, const ReportStyle *st, const char *path, Syntax *s,
                         const Finding *fs, uint32_t n, bool *first)
{
    bool objects = st->format == FMT_JSON || st->format == FMT_SARIF;
    if (n && objects && !*first)
        buf_puts(out, ",\n");
    *first &= n == 0;
    report_file(out, st, path, s, fs, n);
}

/* One file's findings: those with a line beside its source line when the
 * file parses; those without (a measurement, the run as a whole) at 1:1. */
static void render_file(Buf *out, const ReportStyle *st, AuditResult *r, const char *path,
                        bool *first)
{
    Finding *fs = calloc(r->findings.n, sizeof *fs);
    char *src = NULL;
    uint32_t len;
    const char *err;
    Arena arena;
    Syntax s;
    bool parsed = access(path, R_OK) == 0 && read_source(path, &src, &len, &err);
    if (parsed) {
        arena_init(&arena);
        parse_file(&s, src, len, &arena);
    }
    uint32_t n = findings_of(r, path, parsed ? &s : NULL, true, fs);
    render_group(out, st, path, parsed ? &s : NULL, fs, n, first);
    n = findings_of(r, path, NULL, false, fs);
    render_group(out, st, path, NULL, fs, n, first);
    if (parsed)
        arena_free(&arena);
    free(src);
    free(fs);
}

/* SARIF's rule table: the codes reported, from the runtime table or the rules. */
static RuleMeta *audit_rule_meta(AuditResult *r, size_t *n)
{
    RuleMeta *meta = arena_zalloc(&r->arena, (r->findings.n + 1) * sizeof *meta);
    *n = 0;
    for (uint32_t i = 0; i < r->findings.n; i++) {
        const Finding *f = &r->findings.v[i].f;
        bool seen = false;
        for (size_t k = 0; k < *n; k++)
            seen |= strcmp(meta[k].code, f->code) == 0;
        if (seen)
            continue;
        const RuntimeCode *rc = runtime_code_by_code(f->code);
        const RuleInfo *ri = rc ? NULL : rule_by_code(f->code);
        meta[(*n)++] = rc   ? (RuleMeta){rc->code, rc->name, rc->summary, rc->explain, rc->severity}
                       : ri ? (RuleMeta){ri->code, ri->name, ri->summary, ri->explain, ri->severity}
                            : (RuleMeta){f->code, f->name, f->name, NULL, f->severity};
    }
    return meta;
}

static void render(const AuditOptions *o, AuditResult *r)
{
    ReportStyle st = o->style;
    Buf out = {0};
    if (st.format == FMT_JSON)
        buf_puts(&out, "[\n");
    if (st.format == FMT_SARIF) {
        st.rules = audit_rule_meta(r, &st.nrules);
        report_sarif_begin(&out, &st, PFC_VERSION);
    }
    bool first = true;
    for (uint32_t i = 0; i < r->findings.n; i++) {
        bool done = false;   /* each path once, in the order first reported */
        for (uint32_t k = 0; k < i && !done; k++)
            done = strcmp(r->findings.v[k].path, r->findings.v[i].path) == 0;
        if (!done)
            render_file(&out, &st, r, r->findings.v[i].path, &first);
    }
    if (st.format == FMT_JSON)
        buf_puts(&out, first ? "]\n" : "\n]\n");
    if (st.format == FMT_SARIF)
        report_sarif_end(&out);
    bool problems = false;
    for (uint32_t i = 0; i < r->findings.n; i++)
        problems |= r->findings.v[i].f.severity > SEV_NOTE;
    if ((st.format == FMT_FULL || st.format == FMT_CONCISE) && !problems && !r->crash)
        buf_puts(&out, "All checks passed!\n");
    buf_write(&out, stdout);
    buf_free(&out);
}

/* ---- the command -------------------------------------------------------------------- */

/* Runs the script under pfc_audit.run, its report written to a temporary
 * file; false (after saying why) when the runner could not report. */
static bool run_audit(const AuditOptions *o, const char *python, const char *pkg,
                      const char *self, AuditResult *r)
{
    const char *tmp = getenv("TMPDIR");
    char report[PATH_MAX];
    snprintf(report, sizeof report, "%s/pfc-audit-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(report);
    if (fd < 0) {
        fprintf(stderr, "pfc: error: cannot create a temporary file: %s\n", strerror(errno));
        return false;
    }
    close(fd);
    const char *old = getenv("PYTHONPATH");
    char *pythonpath = arena_printf(&r->arena, "%s%s%s", pkg, old && *old ? ":" : "",
                                    old ? old : "");
    char **argv = arena_zalloc(&r->arena, (size_t)(o->nscript_args + 10) * sizeof *argv);
    int k = 0;
    const char *fixed[] = {python, "-m", "pfc_audit.run", "--report", report, "--pfc", self,
                           "--", o->script};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        argv[k++] = (char *)fixed[i];
    for (int i = 0; i < o->nscript_args; i++)
        argv[k++] = o->script_args[i];
    int status = run_child(argv, pythonpath, self);
    bool ok = status == 0 && read_report(report, r);
    unlink(report);
    if (!ok)
        fprintf(stderr, "pfc: error: the audit of '%s' did not complete (python exited with "
                "status %d)\n", o->script, status);
    return ok;
}

static int audit_status(const AuditOptions *o, const AuditResult *r)
{
    if (r->crash) {
        fprintf(stderr, "pfc: error: '%s' raised before its first optimizer step: %s\n",
                o->script, r->crash);
        return EXIT_USAGE;
    }
    for (uint32_t i = 0; i < r->findings.n; i++)
        if (r->findings.v[i].f.severity >= o->fail_on && !o->exit_zero)
            return EXIT_FINDINGS;
    return EXIT_CLEAN;
}

/* The binary's own path and folder (the package is found from there). */
static void locate_self(char *self, char *dir, size_t cap)
{
    if (!realpath("/proc/self/exe", self))
        snprintf(self, cap, "pfc");
    snprintf(dir, cap, "%s", self);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(dir, cap, ".");
}

/* The package and a Python with PyTorch; -1, or EXIT_USAGE after one line. */
static int locate_runtime(const char *bindir, char *pkg, size_t cap, const char **python)
{
    if (!find_package(bindir, pkg, cap)) {
        const char *env = getenv("PFC_AUDIT_PATH");
        if (env && *env)
            fprintf(stderr, "pfc: error: the pfc_audit package is not installed in "
                    "PFC_AUDIT_PATH=%s\n", env);
        else
            fprintf(stderr, "pfc: error: the pfc_audit package is not installed (looked in "
                    "%s/../lib/pfc/python and the source tree)\n", bindir);
        return EXIT_USAGE;
    }
    bool no_torch;
    if (!(*python = find_python(&no_torch))) {
        fprintf(stderr, "pfc: error: %s\n", no_torch
                ? "PyTorch is not installed for python3 (pip install torch, or set PFC_PYTHON)"
                : "python3 not found (set PFC_PYTHON to a Python with PyTorch)");
        return EXIT_USAGE;
    }
    return -1;
}

int cmd_audit(int argc, char **argv)
{
    AuditOptions o = {.style = {.format = FMT_FULL, .color = isatty(STDOUT_FILENO) &&
                                !getenv("NO_COLOR")}, .fail_on = SEV_WARNING};
    int bad = parse_audit_options(argc, argv, &o);
    if (bad >= 0)
        return bad;
    if (access(o.script, R_OK) != 0) {
        fprintf(stderr, "pfc: error: cannot read '%s': %s\n", o.script, strerror(errno));
        return EXIT_USAGE;
    }
    char self[PATH_MAX], bindir[PATH_MAX], pkg[PATH_MAX];
    const char *python;
    locate_self(self, bindir, sizeof self);
    if ((bad = locate_runtime(bindir, pkg, sizeof pkg, &python)) >= 0)
        return bad;
    AuditResult r = {0};
    arena_init(&r.arena);
    int status = EXIT_USAGE;
    if (run_audit(&o, python, pkg, self, &r)) {
        for (uint32_t i = 0; i < r.findings.n; i++)
            if (!*r.findings.v[i].path)
                r.findings.v[i].path = o.script;   /* a measurement: the script's */
        render(&o, &r);
        status = audit_status(&o, &r);
    }
    arena_free(&r.arena);
    return status;
}

bool audit_is_runtime_code(const char *code) { return runtime_code_by_code(code) != NULL; }

/* pfc explain TG4xx: the runtime codes, shown like the rules. */
int cmd_explain_runtime(const char *code)
{
    const RuntimeCode *rc = runtime_code_by_code(code);
    if (!rc)
        return usage_error("unknown runtime code '%s'", code);
    printf("%s %s (%s; reported by pfc audit, not by lint)\n%s.\n\n%s", rc->code, rc->name,
           severity_name(rc->severity), rc->summary, rc->explain);
    return EXIT_CLEAN;
}
