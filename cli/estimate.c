/* pfc estimate SCRIPT [--gpu NAME] [--batch N] [--seq N] [--precision P]
 *                     [--world-size N] [--json]
 * The projected peak GPU memory of one step of the script, its breakdown,
 * the verdict against a GPU or instance, and what would make it fit. */
#include "../estimator/trace.h"
#include "cli.h"
#include "codes.h"
#include "estimate_report.h"
#include "files.h"
#include <stdarg.h>
#include "modules.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct EstimateArgs {
    const char *path, *gpu;
    const char *model;              /* --model NAME */
    const char *const *script_args; /* after `--`: the script's own command line */
    uint32_t nscript_args;
    int64_t batch, seq, world_size;
    int precision;
    bool json, verbose, trace;
} EstimateArgs;

static void print_line(void *ctx, const char *line)
{
    (void)ctx;
    printf("%s\n", line);
}

/* Records why there is no estimate; returns the exit status. */
static int fail(EstimateFailure *f, const char *code, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(EstimateFailure *f, const char *code, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->message, sizeof f->message, fmt, ap);
    va_end(ap);
    f->code = code;
    f->status = status;
    return status;
}

static bool parse_count(const char *s, int64_t *out)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || v <= 0 || v > (1ll << 30))
        return false;
    *out = v;
    return true;
}

static const char *const value_options[] = {"--gpu", "--batch", "--seq", "--world-size",
                                            "--precision", "--model"};

/* --gpu etc. with their value (NAME VALUE or NAME=VALUE); 0 when parsed. */
static int parse_value(EstimateArgs *a, const char *o, const char *v, EstimateFailure *f)
{
    if (strcmp(o, "--gpu") == 0) {
        a->gpu = v;
    } else if (strcmp(o, "--model") == 0) {
        a->model = v;
    } else if (strcmp(o, "--precision") == 0) {
        a->precision = strcmp(v, "fp32") == 0 ? 1 : strcmp(v, "bf16") == 0 ? 2
                     : strcmp(v, "amp") == 0 || strcmp(v, "amp-bf16") == 0 ? 3 : -1;
        if (a->precision < 0)
            return fail(f, "usage", EXIT_USAGE, "estimate: --precision is fp32, bf16 (16-bit weights) or amp "
                        "(fp32 weights, bf16 autocast), not '%s'", v);
    } else {
        int64_t *slot = o[2] == 'b' ? &a->batch : o[2] == 's' ? &a->seq : &a->world_size;
        if (!parse_count(v, slot))
            return fail(f, "usage", EXIT_USAGE, "estimate: %s expects a positive integer, not '%s'", o, v);
    }
    return 0;
}

static const char *value_option(const char *arg)
{
    for (size_t k = 0; k < sizeof value_options / sizeof value_options[0]; k++) {
        size_t n = strlen(value_options[k]);
        if (strncmp(arg, value_options[k], n) == 0 && (arg[n] == 0 || arg[n] == '='))
            return value_options[k];
    }
    return NULL;
}

static int parse_args(int argc, char **argv, EstimateArgs *a, EstimateFailure *f)
{
    for (int i = 0; i < argc; i++) {
        const char *o = argv[i], *name = value_option(o);
        if (strcmp(o, "--") == 0) {
            a->script_args = (const char *const *)argv + i + 1;
            a->nscript_args = (uint32_t)(argc - i - 1);
            break;
        } else if (strcmp(o, "--json") == 0) {
            a->json = true;
        } else if (strcmp(o, "--trace") == 0) {
            a->trace = true;
        } else if (strcmp(o, "--verbose") == 0 || strcmp(o, "-v") == 0) {
            a->verbose = true;
        } else if (name) {
            const char *v = o[strlen(name)] == '=' ? o + strlen(name) + 1 : NULL;
            if (!v && (i + 1 >= argc || strncmp(argv[i + 1], "--", 2) == 0))   /* not --gpu --json */
                return fail(f, "usage", EXIT_USAGE, "estimate: %s needs a value", name);
            int rc = parse_value(a, name, v ? v : argv[++i], f);
            if (rc)
                return rc;
        } else if (o[0] == '-' && o[1]) {
            return fail(f, "usage", EXIT_USAGE, "estimate: unknown option '%s' (pfc estimate --help lists them)", o);
        } else if (a->path) {
            return fail(f, "usage", EXIT_USAGE, "estimate expects one script");
        } else {
            a->path = o;
        }
    }
    if (!a->path)
        return fail(f, "usage", EXIT_USAGE, "estimate expects a script: pfc estimate SCRIPT [--gpu NAME] [--batch N] "
                    "[--seq N] [--precision fp32|bf16|amp] [--world-size N] [--json]");
    return 0;
}

/* " (did you mean 'a100-80gb'?)" for the GPU id or instance name near an
 * unknown --gpu, or "" when none is near enough to be a typo. */
static const char *nearest_gpu(const char *name, char *buf, size_t size)
{
    size_t n, best = (size_t)-1;
    const char *near = NULL;
    const Gpu *g = gpu_all(&n);
    for (size_t i = 0; i < n; i++)
        if (edit_distance(name, g[i].id) < best)
            best = edit_distance(name, g[i].id), near = g[i].id;
    const Instance *in = instance_all(&n);
    for (size_t i = 0; i < n; i++)
        if (edit_distance(name, in[i].name) < best)
            best = edit_distance(name, in[i].name), near = in[i].name;
    size_t limit = strlen(name) / 3 > 2 ? strlen(name) / 3 : 2;
    if (near && best <= limit)
        snprintf(buf, size, " (did you mean '%s'?)", near);
    else
        buf[0] = 0;
    return buf;
}

/* One run of the command: what it was asked, what it read, what it found. */
typedef struct Run {
    EstimateArgs args;
    const Gpu *gpu;
    uint32_t count;
    char *src;
    Arena arena;
    Syntax s;
    bool parsed;
    ProjectModules *modules;   /* the project's modules its imports name */
    EstimateConfig cfg;
    Estimate e;
    Remedies rem;
    EstimateFailure failure;
} Run;

static void configure(Run *r, const Ir *ir)
{
    EstimateConfig *cfg = &r->cfg;
    cfg->script_args = r->args.script_args;
    cfg->nscript_args = r->args.nscript_args;
    cfg->model_override = r->args.model;
    cfg->script_path = r->args.path;
    estimate_read(&r->s, ir, cfg);
    r->modules = project_modules_new(r->args.path);
    cfg->modules = project_modules_source(r->modules);
    cfg->batch = r->args.batch;
    cfg->seq = r->args.seq;
    cfg->precision = r->args.precision;
    if (r->args.trace)
        cfg->trace_out = print_line;
    estimate_world(cfg, r->s.arena, r->args.world_size, getenv("WORLD_SIZE"), getenv("LOCAL_WORLD_SIZE"),
                   r->count);
}

/* Reads, parses and estimates the script; the exit status on failure, else 0. */
static int estimate(Run *r)
{
    EstimateFailure *f = &r->failure;
    uint32_t len;
    const char *err;
    if (!read_source(r->args.path, &r->src, &len, &err))
        return fail(f, "unreadable", EXIT_FINDINGS, "cannot read '%s': %s", r->args.path, err);
    arena_init(&r->arena);
    parse_file(&r->s, r->src, len, &r->arena);
    r->parsed = true;
    if (r->s.diags.n) {
        uint32_t line, col;
        syntax_line_col(&r->s, r->s.diags.v[0].start, &line, &col);
        f->line = line;
        return fail(f, "syntax_error", EXIT_FINDINGS, "syntax error at %u:%u: %s (pfc lint shows them all)", line,
                    col, r->s.diags.v[0].msg);
    }
    Ir ir;
    ir_build(&ir, &r->s);
    configure(r, &ir);
    const char *why = NULL;
    if (!estimate_run(&r->s, &ir, &r->cfg, &r->e, &why)) {
        f->line = r->e.error_line;
        return fail(f, "not_estimable", EXIT_FINDINGS, "%s", why ? why : "the script could not be estimated");
    }
    /* changes are searched when the projection or its range exceed the target */
    if (r->gpu && remedy_verdict(&r->e, r->gpu) != VERDICT_FITS)
        remedy_search(&r->s, &ir, &r->cfg, &r->e, r->gpu, r->count, &r->rem);
    return 0;
}

/* A failure in text mode, on stderr, as each kind always read. */
static void complain(const Run *r)
{
    const EstimateFailure *f = &r->failure;
    if (f->status == EXIT_USAGE)
        fprintf(stderr, "pfc: error: %s\n(run 'pfc help' for usage)\n", f->message);
    else if (strcmp(f->code, "unreadable") == 0)
        fprintf(stderr, "pfc: error: %s\n", f->message);
    else if (f->line && strcmp(f->code, "not_estimable") == 0)
        fprintf(stderr, "pfc: estimate: %s:%u: %s\n", r->args.path, f->line, f->message);
    else
        fprintf(stderr, "pfc: estimate: %s: %s\n", r->args.path, f->message);
}

static void report(const Run *r, int rc)
{
    if (rc && !r->args.json) {
        complain(r);
        return;
    }
    EstimateReport rep = {r->args.path, r->parsed ? &r->cfg : NULL, &r->e, r->gpu, r->count, &r->rem,
                          rc ? &r->failure : NULL, r->args.verbose};
    Buf out = {0};
    if (r->args.json)
        estimate_report_json(&out, &rep);
    else
        estimate_report_text(&out, &rep);
    buf_write(&out, stdout);
    buf_free(&out);
}

/* --json asked anywhere on the line: even a bad option is answered in JSON */
static bool wants_json(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "--json") == 0)
            return true;
    return false;
}

int cmd_estimate(int argc, char **argv)
{
    Run *r = calloc(1, sizeof *r);
    if (!r)
        return EXIT_USAGE;
    r->args.json = wants_json(argc, argv);
    char near[96];
    int rc = parse_args(argc, argv, &r->args, &r->failure);
    if (!rc && r->args.gpu && !gpu_target(r->args.gpu, &r->gpu, &r->count))
        rc = fail(&r->failure, "unknown_gpu", EXIT_USAGE, "estimate: unknown GPU or instance '%s'%s; pfc gpus lists them",
                  r->args.gpu, nearest_gpu(r->args.gpu, near, sizeof near));
    if (!rc)
        rc = estimate(r);
    report(r, rc);
    if (!rc && r->gpu && !remedy_fits(&r->e, r->gpu))
        rc = EXIT_FINDINGS;
    project_modules_free(r->modules);
    if (r->parsed)
        arena_free(&r->arena);
    free(r->src);
    free(r);
    return rc;
}
