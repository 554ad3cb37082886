/* pfc debug-estimate-mutate [--timeout S] [--save DIR] [--seed S] N PATH...
 *
 * Mutation testing of `pfc estimate`: N mutated copies of every training
 * script found under PATH (a .py file that imports torch), each estimated in
 * a child process. Byte flips mostly make syntax errors, which never reach
 * the estimator, so the mutations work on tokens and keep a script
 * parseable: an integer literal becomes 0, -1, 2**62, 10**30, 1.5, ...; a
 * name becomes another name of the file; a line is deleted or duplicated;
 * an argument is dropped. One to three of them per copy, from a fixed seed
 * per file and copy so that a failure reproduces.
 *
 * A copy fails when its child dies (a crash, a sanitizer report: sanitizers
 * exit with status 1 too, so the child reports its own end with a status of
 * its own), runs past the timeout, exits with a usage or internal error
 * status, grows past 2 GiB, or prints a negative number in its JSON. One
 * line per failure ("FAIL ..."; with --save the copy is written there), and
 * a summary line. */
#define _DEFAULT_SOURCE
#include "../base/rand.h"
#include "../base/buf.h"
#include "cli.h"
#include "files.h"
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { CHILD_DONE = 64, MAX_RSS_KB = 2 * 1024 * 1024 };

typedef struct Tally {
    unsigned scripts, estimated, refused, crashes, timeouts, bad_status, bad_output, too_big;
    long max_rss_kb;
    double slowest_s;
} Tally;

/* Whether data[0..len) (not NUL-terminated) contains the word. */
static bool contains(const char *data, uint32_t len, const char *word)
{
    size_t n = strlen(word);
    for (uint32_t i = 0; i + n <= len; i++)
        if (memcmp(data + i, word, n) == 0)
            return true;
    return false;
}

/* ---- mutations (on the token stream of the current text) -------------------------------- */

typedef struct Text {
    Buf b;             /* the current copy */
    Buf log;           /* what was done, for the report */
} Text;

static void splice(Text *t, uint32_t at, uint32_t del, const char *ins, uint32_t n)
{
    Buf out = {0};
    buf_put(&out, t->b.v, at);
    buf_put(&out, ins, n);
    buf_put(&out, t->b.v + at + del, t->b.n - at - del);
    buf_free(&t->b);
    t->b = out;
}

/* A random token of the kind (or -1). */
static int pick_token(const Syntax *s, int kind, uint32_t *rng)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->toks.n; i++)
        n += s->toks.v[i].kind == kind;
    if (!n)
        return -1;
    uint32_t want = xorshift_next(rng) % n;
    for (uint32_t i = 0; i < s->toks.n; i++)
        if (s->toks.v[i].kind == kind && want-- == 0)
            return (int)i;
    return -1;
}

static const char *const numbers[] = {"0", "-1", "2**62", "10**30", "1.5", "2**31", "-(2**40)",
                                      "1e308", "-2**63", "2**64", "3", "7", "100000"};

static void mutate_number(Text *t, const Syntax *s, uint32_t *rng)
{
    int i = pick_token(s, T_NUMBER, rng);
    if (i < 0)
        return;
    const Token *k = &s->toks.v[i];
    const char *by = numbers[xorshift_next(rng) % (sizeof numbers / sizeof numbers[0])];
    buf_printf(&t->log, " number@%u->%s", k->start, by);
    splice(t, k->start, k->len, by, (uint32_t)strlen(by));
}

static void mutate_name(Text *t, const Syntax *s, uint32_t *rng)
{
    int i = pick_token(s, T_NAME, rng), j = pick_token(s, T_NAME, rng);
    if (i < 0 || j < 0)
        return;
    const Token *a = &s->toks.v[i], *b = &s->toks.v[j];
    char by[128];
    uint32_t n = b->len < sizeof by ? b->len : (uint32_t)sizeof by - 1;
    memcpy(by, t->b.v + b->start, n);
    buf_printf(&t->log, " name@%u->%.*s", a->start, (int)n, by);
    splice(t, a->start, a->len, by, n);
}

/* Deletes from a comma to the end of its argument (the next comma or
 * closing bracket at the same depth). */
static void drop_argument(Text *t, const Syntax *s, uint32_t *rng)
{
    int i = pick_token(s, T_COMMA, rng);
    if (i < 0)
        return;
    int depth = 0;
    uint32_t end = s->toks.v[i].start + 1;
    for (uint32_t k = (uint32_t)i + 1; k < s->toks.n; k++) {
        int kind = s->toks.v[k].kind;
        if (kind == T_LPAR || kind == T_LSQB || kind == T_LBRACE)
            depth++;
        if (kind == T_RPAR || kind == T_RSQB || kind == T_RBRACE)
            depth--;
        if (depth < 0 || (depth == 0 && kind == T_COMMA) || kind == T_NEWLINE || kind == T_ENDMARKER) {
            end = s->toks.v[k].start;
            break;
        }
    }
    buf_printf(&t->log, " drop-arg@%u", s->toks.v[i].start);
    splice(t, s->toks.v[i].start, end - s->toks.v[i].start, "", 0);
}

/* Deletes or duplicates one line. */
static void mutate_line(Text *t, uint32_t *rng, bool duplicate)
{
    uint32_t lines = 0;
    for (uint32_t i = 0; i < t->b.n; i++)
        lines += t->b.v[i] == '\n';
    if (!lines)
        return;
    uint32_t want = xorshift_next(rng) % lines, start = 0, line = 0;
    for (uint32_t i = 0; i < t->b.n && line < want; i++)
        if (t->b.v[i] == '\n' && ++line == want)
            start = i + 1;
    uint32_t end = start;
    while (end < t->b.n && t->b.v[end] != '\n')
        end++;
    end += end < t->b.n;
    buf_printf(&t->log, " %s-line%u", duplicate ? "dup" : "del", want + 1);
    if (duplicate) {
        char *copy = malloc(end - start + 1);
        memcpy(copy, t->b.v + start, end - start);
        splice(t, start, 0, copy, end - start);
        free(copy);
    } else {
        splice(t, start, end - start, "", 0);
    }
}

static void mutate_once(Text *t, uint32_t *rng)
{
    Arena arena;
    arena_init(&arena);
    Syntax s;
    parse_file(&s, t->b.v, (uint32_t)t->b.n, &arena);
    switch (xorshift_next(rng) % 8) {
    case 0: case 1: case 2: mutate_number(t, &s, rng); break;
    case 3: case 4: mutate_name(t, &s, rng); break;
    case 5: drop_argument(t, &s, rng); break;
    case 6: mutate_line(t, rng, false); break;
    default: mutate_line(t, rng, true); break;
    }
    arena_free(&arena);
}

/* ---- running one copy --------------------------------------------------------------------- */

static bool write_file(const char *path, const Buf *b)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    bool ok = fwrite(b->v, 1, b->n, f) == b->n;
    return fclose(f) == 0 && ok;
}

/* The child: estimate the copy with its stdout in out_path; the exit status
 * CHILD_DONE + the estimate's own says it returned. */
static void child(const char *script, const char *out_path, bool json, unsigned timeout)
{
    int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
        _exit(3);
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0)
        dup2(null, STDERR_FILENO);   /* refusals; a sanitizer report still kills the child */
    alarm(timeout);
    char *argv[8] = {(char *)script, "--gpu", json ? "h100" : "a100-40gb", json ? "--json" : "-v", NULL};
    int rc = cmd_estimate(4, argv);
    fflush(stdout);
    _exit(CHILD_DONE + rc);
}

/* A negative number in the JSON: a '-' before a digit outside strings. */
static bool negative_in_json(const char *path)
{
    char *data;
    uint32_t len;
    const char *err;
    if (!read_source(path, &data, &len, &err))
        return false;
    bool bad = false, in_string = false;
    for (uint32_t i = 0; i + 1 < len && !bad; i++) {
        if (in_string && data[i] == '\\')
            i++;
        else if (data[i] == '"')
            in_string = !in_string;
        else if (!in_string && data[i] == '-' && data[i + 1] >= '0' && data[i + 1] <= '9')
            bad = true;
    }
    free(data);
    return bad;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Runs one copy; returns the failure, or NULL. */
static const char *run_copy(const char *script, const char *out_path, bool json, unsigned timeout, Tally *t)
{
    double t0 = now();
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return "cannot fork";
    if (pid == 0)
        child(script, out_path, json, timeout);
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0)
        return "wait failed";
    double dt = now() - t0;
    if (dt > t->slowest_s)
        t->slowest_s = dt;
    if (ru.ru_maxrss > t->max_rss_kb)
        t->max_rss_kb = ru.ru_maxrss;
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
        return t->timeouts++, "ran past the timeout";
    if (WIFSIGNALED(status) || !WIFEXITED(status) || WEXITSTATUS(status) < CHILD_DONE)
        return t->crashes++, "crashed (a signal, or a sanitizer report)";
    int rc = WEXITSTATUS(status) - CHILD_DONE;
    if (rc != EXIT_CLEAN && rc != EXIT_FINDINGS)
        return t->bad_status++, "exit status 2 (usage or internal error)";
    if (ru.ru_maxrss > MAX_RSS_KB)
        return t->too_big++, "used more than 2 GiB";
    if (json && negative_in_json(out_path))
        return t->bad_output++, "a negative number in the JSON";
    if (json) {
        char *data;
        uint32_t len;
        const char *err;
        if (read_source(out_path, &data, &len, &err)) {
            bool refused = !contains(data, len, "\"error\": null");
            t->refused += refused;
            t->estimated += !refused;
            free(data);
        }
    }
    return NULL;
}

/* ---- driver --------------------------------------------------------------------------------- */

typedef struct MutateRun {
    int copies;
    unsigned timeout;
    const char *save, *tmp;
    uint32_t seed;     /* mixed into every copy's seed: another set of mutations */
    Tally t;
    unsigned failures;
} MutateRun;

static void report_failure(MutateRun *r, const char *path, int k, const Text *t, const char *why)
{
    printf("FAIL\t%s\tcopy %d:%.*s: %s\n", path, k, (int)t->log.n, t->log.v, why);
    r->failures++;
    if (!r->save)
        return;
    const char *base = strrchr(path, '/');
    char out[4096];
    snprintf(out, sizeof out, "%s/%s.%d.py", r->save, base ? base + 1 : path, k);
    if (write_file(out, &t->b))
        printf("\tsaved as %s\n", out);
}

static void mutate_file(MutateRun *r, const char *path, uint32_t index)
{
    char *src;
    uint32_t len;
    const char *err;
    if (!read_source(path, &src, &len, &err))
        return;
    if (!contains(src, len, "torch")) {
        free(src);
        return;   /* not a training script */
    }
    char script[4200], out[4200];
    snprintf(script, sizeof script, "%s/copy.py", r->tmp);
    snprintf(out, sizeof out, "%s/out", r->tmp);
    for (int k = 0; k < r->copies; k++) {
        uint32_t rng = (index * 2654435761u) ^ ((uint32_t)k * 40503u) ^ len ^ (r->seed * 2246822519u);
        rng |= 1;
        Text t = {{0}, {0}};
        buf_put(&t.b, src, len);
        for (uint32_t m = 0, n = 1 + xorshift_next(&rng) % 3; m < n; m++)
            mutate_once(&t, &rng);
        r->t.scripts++;
        const char *why = write_file(script, &t.b) ? run_copy(script, out, k % 2 == 0, r->timeout, &r->t)
                                                   : "cannot write the copy";
        if (why)
            report_failure(r, path, k, &t, why);
        buf_free(&t.b);
        buf_free(&t.log);
    }
    free(src);
}

int cmd_debug_estimate_mutate(int argc, char **argv)
{
    MutateRun r = {0, 10, NULL, NULL, 0, {0}, 0};
    int i = 0;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc)
            r.timeout = (unsigned)atoi(argv[++i]);
        else if (strcmp(argv[i], "--save") == 0 && i + 1 < argc)
            r.save = argv[++i];
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            r.seed = (uint32_t)strtoul(argv[++i], NULL, 10);
        else
            return usage_error("debug-estimate-mutate: unknown option '%s'", argv[i]);
    }
    if (i + 2 > argc || (r.copies = atoi(argv[i])) <= 0 || !r.timeout)
        return usage_error("usage: pfc debug-estimate-mutate [--timeout S] [--save DIR] [--seed S] N PATH...");
    char tmp[] = "/tmp/pfc-mutate-XXXXXX";
    if (!mkdtemp(tmp))
        return usage_error("debug-estimate-mutate: cannot make a temporary directory");
    r.tmp = tmp;
    PathList files = {0};
    walk_paths(&files, argv + i + 1, argc - i - 1, WALK_ALL | WALK_PY_ONLY);
    for (size_t f = 0; f < files.n; f++)
        mutate_file(&r, files.v[f], (uint32_t)f + 1);
    char path[4200];
    snprintf(path, sizeof path, "%s/copy.py", tmp);
    unlink(path);
    snprintf(path, sizeof path, "%s/out", tmp);
    unlink(path);
    rmdir(tmp);
    const Tally *t = &r.t;
    printf("summary\tscripts=%u\testimated=%u\trefused=%u\tcrashes=%u\ttimeouts=%u\tbad_status=%u\t"
           "bad_output=%u\tover_2gib=%u\tmax_rss_mib=%ld\tslowest_s=%.2f\n",
           t->scripts, t->estimated, t->refused, t->crashes, t->timeouts, t->bad_status, t->bad_output,
           t->too_big, t->max_rss_kb / 1024, t->slowest_s);
    path_list_free(&files);
    return r.failures ? EXIT_FINDINGS : EXIT_CLEAN;
}
