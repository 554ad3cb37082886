/* Developer commands behind the corpus tests and benchmarks:
 *   pfc debug-corpus [--target-version 3.X] [-j N] [--mutate K] PATH...
 *     per file: round trip + tree invariants + syntax errors, one line each;
 *     with --mutate, also K mutated copies of each file (cut, a byte replaced,
 *     a line deleted or repeated); the valid ones also go through the IR,
 *     every rule and the IR dump (the first valid one of each file)
 *   pfc debug-bench [--lint] [-j N] [--repeat N] PATH...
 *     parse (or parse + IR + rules) speed over files preloaded in memory,
 *     and peak RSS */
#define _POSIX_C_SOURCE 200809L
#include "../base/rand.h"
#include "../emit/emit.h"
#include "../passes/analysis.h"
#include "../passes/pass.h"
#include "cli.h"
#include "files.h"
#include "pool.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

typedef struct CorpusRun {
    PathList files;
    Buf *lines;
    int target;
    int mutations;    /* mutated variants per file */
    int *failed;      /* per file: round trip or invariant failure */
    int *syntax;      /* per file: has syntax errors */
    uint64_t *bytes;
    uint32_t *analysed;   /* per file: valid mutated copies run through IR and rules */
} CorpusRun;

/* Parses src[0..len) and returns NULL if it round-trips with intact invariants. */
static const char *round_trip_problem(const char *src, uint32_t len, int target, Syntax *s,
                                      Arena *arena)
{
    parse_file(s, src, len, arena);
    parse_check_target(s, target);
    const char *why = check_tree(s);
    Buf out = {0};
    emit_tree(s, &out);
    if (!why && (out.n != len || (len && memcmp(out.v, src, len) != 0)))
        why = "re-emitted bytes differ from the file";
    buf_free(&out);
    return why;
}

/* dump-ir's note on a function: the code context the rules give it and what
 * running it may do, transitively over the file. */
static void note_analysis(const void *ctx, int fi, Buf *out)
{
    const Analysis *an = ctx;
    CodeContext c = an_context(an, &an->ir->funcs.v[fi]);
    buf_printf(out, " context=%s effects=", an_context_name(c));
    uint32_t eff = an->effects[fi];
    const char *sep = "";
    for (uint32_t bit = 1; bit && bit <= eff; bit <<= 1) {
        if (!(eff & bit))
            continue;
        const char *name = an_effect_name(bit);
        if (name)
            buf_printf(out, "%s%s", sep, name);
        else
            buf_printf(out, "%s0x%x", sep, bit);
        sep = ",";
    }
    if (!eff)
        buf_puts(out, "none");
    an_note_object_effects(an, (uint32_t)fi, out);
}

void dump_ir_analysed(Syntax *s, const Ir *ir, const char *only, Buf *out)
{
    Analysis an;
    analysis_init(&an, s, ir);
    ir_dump_noted(ir, only, note_analysis, &an, out);
}

/* A copy that still parses goes through everything lint and dump-ir run on
 * it: the IR, its facts, every rule and the IR dump. */
static void analyse_valid_copy(Syntax *s)
{
    Ir ir;
    ir_build(&ir, s);
    FindingVec findings = {0};
    passes_run(s, &ir, &findings);
    Buf dump = {0};
    dump_ir_analysed(s, &ir, NULL, &dump);
    buf_free(&dump);
}

/* One mutated copy of src in copy: cut at a byte, one byte replaced, one
 * line deleted, one line repeated. The last two usually keep the file valid,
 * so that the IR and the rules see it too. Returns its length. */
static uint32_t mutate(const char *src, uint32_t len, char *copy, int kind, uint32_t *state,
                       uint32_t *at)
{
    uint32_t cut = xorshift_next(state) % len;
    uint32_t start = cut, end = cut;
    while (start > 0 && src[start - 1] != '\n')
        start--;
    while (end < len && src[end++] != '\n') {}
    *at = cut;
    switch (kind % 4) {
    case 0: memcpy(copy, src, cut); return cut;
    case 1:
        memcpy(copy, src, len);
        copy[cut] = (char)(xorshift_next(state) & 0xff);
        return len;
    case 2:
        memcpy(copy, src, start);
        memcpy(copy + start, src + end, len - end);
        return len - (end - start);
    default:
        memcpy(copy, src, end);
        memcpy(copy + end, src + start, end - start);
        memcpy(copy + end + (end - start), src + end, len - end);
        return len + (end - start);
    }
}

/* Mutated copies must parse, keep the invariants and round-trip like any
 * other input, and the valid ones must go through the IR and the rules. */
static const char *mutation_problem(const char *src, uint32_t len, int count, int target,
                                    uint32_t seed, uint32_t *at, uint32_t *analysed)
{
    if (!len)
        return NULL;
    char *copy = malloc(2 * (size_t)len);
    uint32_t state = seed | 1;
    const char *why = NULL;
    for (int k = 0; k < count && !why; k++) {
        uint32_t n = mutate(src, len, copy, k, &state, at);
        Arena arena;
        arena_init(&arena);
        Syntax s;
        why = round_trip_problem(copy, n, target, &s, &arena);
        if (!why && !s.diags.n && !*analysed) {   /* one per file keeps the suite short */
            analyse_valid_copy(&s);
            (*analysed)++;
        }
        arena_free(&arena);
    }
    free(copy);
    return why;
}

static void corpus_one(size_t i, void *ctx)
{
    CorpusRun *run = ctx;
    const char *path = run->files.v[i];
    Buf *line = &run->lines[i];
    char *src;
    uint32_t len;
    const char *err;
    if (run->files.why[i] || !read_source(path, &src, &len, &err)) {
        buf_printf(line, "FAIL\t%s\tcannot read: %s\n", path,
                   run->files.why[i] ? run->files.why[i] : err);
        run->failed[i] = 1;
        return;
    }
    run->bytes[i] = len;
    Arena arena;
    arena_init(&arena);
    Syntax s;
    const char *why = round_trip_problem(src, len, run->target, &s, &arena);
    uint32_t at = 0;
    const char *mwhy = run->mutations
                           ? mutation_problem(src, len, run->mutations, run->target,
                                              (uint32_t)i * 2654435761u + len, &at,
                                              &run->analysed[i])
                           : NULL;
    if (mwhy) {
        buf_printf(line, "FAIL\t%s\tmutated copy (offset %u): %s\n", path, at, mwhy);
        run->failed[i] = 1;
    } else if (why) {
        buf_printf(line, "FAIL\t%s\t%s\n", path, why);
        run->failed[i] = 1;
    } else if (s.diags.n) {
        uint32_t l, c;
        syntax_line_col(&s, s.diags.v[0].start, &l, &c);
        buf_printf(line, "syntax\t%s\t%u:%u: %s\n", path, l, c, s.diags.v[0].msg);
        run->syntax[i] = 1;
    } else {
        buf_printf(line, "ok\t%s\n", path);
    }
    arena_free(&arena);
    free(src);
}

static int parse_jobs_target(int argc, char **argv, int *jobs, int *target, int *repeat,
                             int *npaths)
{
    *npaths = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--mutate") == 0 && i + 1 < argc) {
            *repeat = atoi(argv[++i]);
            continue;
        }
        if (strcmp(argv[i], "--target-version") == 0 && i + 1 < argc) {
            if ((*target = parse_target_version(argv[++i])) < 0)
                return usage_error("invalid --target-version '%s'", argv[i]);
        } else if (strcmp(argv[i], "-j") == 0 && i + 1 < argc) {
            *jobs = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
            *repeat = atoi(argv[++i]);
        } else if (argv[i][0] == '-') {
            return usage_error("unknown option '%s'", argv[i]);
        } else {
            argv[(*npaths)++] = argv[i];
        }
    }
    if (!*npaths)
        return usage_error("expected paths");
    return -1;
}

int cmd_debug_corpus(int argc, char **argv)
{
    int jobs = default_jobs(), target = PY_MINOR_MAX, mutations = 0, npaths;
    int st = parse_jobs_target(argc, argv, &jobs, &target, &mutations, &npaths);
    if (st >= 0)
        return st;
    CorpusRun run = {{0}, NULL, target, mutations, NULL, NULL, NULL, NULL};
    walk_paths(&run.files, argv, npaths, WALK_ALL);
    size_t n = run.files.n;
    run.lines = calloc(n + 1, sizeof *run.lines);
    run.failed = calloc(n + 1, sizeof *run.failed);
    run.syntax = calloc(n + 1, sizeof *run.syntax);
    run.bytes = calloc(n + 1, sizeof *run.bytes);
    run.analysed = calloc(n + 1, sizeof *run.analysed);
    parallel_for(n, jobs, corpus_one, &run);
    size_t failed = 0, syntax = 0, analysed = 0;
    uint64_t bytes = 0;
    for (size_t i = 0; i < n; i++) {
        buf_write(&run.lines[i], stdout);
        buf_free(&run.lines[i]);
        failed += run.failed[i];
        syntax += run.syntax[i];
        bytes += run.bytes[i];
        analysed += run.analysed[i];
    }
    printf("summary\tfiles=%zu\tbytes=%llu\tsyntax_errors=%zu\tround_trip_failures=%zu", n,
           (unsigned long long)bytes, syntax, failed);
    if (mutations)
        printf("\tmutated=%zu\tmutated_valid_through_rules=%zu", n * (size_t)mutations, analysed);
    printf("\n");
    free(run.lines);
    free(run.failed);
    free(run.syntax);
    free(run.bytes);
    free(run.analysed);
    path_list_free(&run.files);
    return failed ? EXIT_FINDINGS : EXIT_CLEAN;
}

typedef struct BenchRun {
    char **src;
    uint32_t *len;
    bool lint;
    uint64_t *findings;
} BenchRun;

/* Parse (and with --lint: IR + every rule) one preloaded file. */
static void bench_one(size_t i, void *ctx)
{
    BenchRun *b = ctx;
    Arena arena;
    arena_init(&arena);
    Syntax s;
    parse_file(&s, b->src[i], b->len[i], &arena);
    if (b->lint && !s.diags.n) {
        Ir ir;
        ir_build(&ir, &s);
        FindingVec out = {0};
        passes_run(&s, &ir, &out);
        b->findings[i] = out.n;
    }
    arena_free(&arena);
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int cmd_debug_bench(int argc, char **argv)
{
    int jobs = 1, target = PY_MINOR_MAX, repeat = 3, npaths;
    bool lint = false;
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "--lint") == 0) {
            lint = true;
            memmove(argv + i, argv + i + 1, (size_t)(argc - i - 1) * sizeof *argv);
            argc--;
            break;
        }
    int st = parse_jobs_target(argc, argv, &jobs, &target, &repeat, &npaths);
    if (st >= 0)
        return st;
    PathList files = {0};
    walk_paths(&files, argv, npaths, WALK_ALL | WALK_PY_ONLY);
    char **src = calloc(files.n + 1, sizeof *src);
    uint32_t *len = calloc(files.n + 1, sizeof *len);
    uint64_t bytes = 0;
    size_t nread = 0;
    for (size_t i = 0; i < files.n; i++) {
        const char *err;
        if (read_source(files.v[i], &src[nread], &len[nread], &err))
            bytes += len[nread++];
    }
    double best = 1e30;
    uint64_t tokens = 0, nodes = 0;
    for (size_t i = 0; i < nread; i++) {   /* sizes, once, outside the timing */
        Arena arena;
        arena_init(&arena);
        Syntax s;
        parse_file(&s, src[i], len[i], &arena);
        tokens += s.toks.n;
        nodes += s.nnodes;
        arena_free(&arena);
    }
    BenchRun b = {src, len, lint, calloc(nread + 1, sizeof(uint64_t))};
    for (int r = 0; r < (repeat > 0 ? repeat : 1); r++) {
        double t0 = now_seconds();
        parallel_for(nread, jobs, bench_one, &b);
        double dt = now_seconds() - t0;
        if (dt < best)
            best = dt;
    }
    uint64_t findings = 0;
    for (size_t i = 0; i < nread; i++)
        findings += b.findings[i];
    free(b.findings);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("mode=%s jobs=%d files=%zu bytes=%llu tokens=%llu nodes=%llu findings=%llu "
           "seconds=%.4f mb_per_s=%.1f peak_rss_kb=%ld\n",
           lint ? "lint" : "parse", jobs, nread, (unsigned long long)bytes,
           (unsigned long long)tokens, (unsigned long long)nodes, (unsigned long long)findings,
           best, (double)bytes / 1e6 / best, ru.ru_maxrss);
    for (size_t i = 0; i < nread; i++)
        free(src[i]);
    free(src);
    free(len);
    path_list_free(&files);
    return EXIT_CLEAN;
}
