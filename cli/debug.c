/* Developer commands behind the corpus tests and benchmarks:
 *   pfc debug-corpus [--target-version 3.X] [-j N] [--mutate K] PATH...
 *     per file: round trip + tree invariants + syntax errors, one line each;
 *     with --mutate, also K truncated / byte-replaced copies of each file
 *   pfc debug-bench [--lint] [-j N] [--repeat N] PATH...
 *     parse (or parse + IR + rules) speed over files preloaded in memory,
 *     and peak RSS */
#define _POSIX_C_SOURCE 200809L
#include "../emit/emit.h"
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
    int mutations;    /* truncated and byte-flipped variants per file */
    int *failed;      /* per file: round trip or invariant failure */
    int *syntax;      /* per file: has syntax errors */
    uint64_t *bytes;
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

/* xorshift: a fixed sequence per file, so failures reproduce */
static uint32_t next_random(uint32_t *state)
{
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

/* Truncated copies and copies with one byte replaced must parse, keep the
 * invariants and round-trip like any other input. */
static const char *mutation_problem(const char *src, uint32_t len, int count, int target,
                                    uint32_t seed, uint32_t *at)
{
    if (!len)
        return NULL;
    char *copy = malloc(len);
    uint32_t state = seed | 1;
    const char *why = NULL;
    for (int k = 0; k < count && !why; k++) {
        memcpy(copy, src, len);
        uint32_t cut = next_random(&state) % len;
        uint32_t n = len;
        if (k % 2 == 0)
            n = cut;
        else
            copy[cut] = (char)(next_random(&state) & 0xff);
        Arena arena;
        arena_init(&arena);
        Syntax s;
        why = round_trip_problem(copy, n, target, &s, &arena);
        arena_free(&arena);
        *at = cut;
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
                                              (uint32_t)i * 2654435761u + len, &at)
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
    CorpusRun run = {{0}, NULL, target, mutations, NULL, NULL, NULL};
    walk_paths(&run.files, argv, npaths, WALK_ALL);
    size_t n = run.files.n;
    run.lines = calloc(n + 1, sizeof *run.lines);
    run.failed = calloc(n + 1, sizeof *run.failed);
    run.syntax = calloc(n + 1, sizeof *run.syntax);
    run.bytes = calloc(n + 1, sizeof *run.bytes);
    parallel_for(n, jobs, corpus_one, &run);
    size_t failed = 0, syntax = 0;
    uint64_t bytes = 0;
    for (size_t i = 0; i < n; i++) {
        buf_write(&run.lines[i], stdout);
        buf_free(&run.lines[i]);
        failed += run.failed[i];
        syntax += run.syntax[i];
        bytes += run.bytes[i];
    }
    printf("summary\tfiles=%zu\tbytes=%llu\tsyntax_errors=%zu\tround_trip_failures=%zu\n", n,
           (unsigned long long)bytes, syntax, failed);
    free(run.lines);
    free(run.failed);
    free(run.syntax);
    free(run.bytes);
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
