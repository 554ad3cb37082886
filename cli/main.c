/* pfc: pre-flight checks for PyTorch training code. */
#include "../base/buf.h"
#include "../emit/emit.h"
#include "../ir/ir.h"
#include "../passes/pass.h"
#include "cli.h"
#include "project.h"
#include "files.h"
#include "notebook.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "pfc " PFC_VERSION ": pre-flight checks for PyTorch training code\n"
    "\n"
    "usage: pfc <command> [options] [args]\n"
    "\n"
    "commands:\n"
    "  lint [PATH ...]          lint files and directories (alias: check)\n"
    "  dump-cst FILE            print the lossless syntax tree\n"
    "  dump-ir FILE [--fn NAME] print the SSA IR with its lattice facts\n"
    "  emit FILE                parse and re-emit FILE to stdout (exit 1 on syntax errors)\n"
    "  explain CODE             what a rule finds, why, what it costs, how to fix it\n"
    "  estimate SCRIPT          the projected peak GPU memory of one step, what would fit\n"
    "  gpus                     the GPUs and cloud instances known by name\n"
    "  archs                    the model architectures built in, with parameter counts\n"
    "  version                  print the version\n"
    "  help                     print this help\n"
    "\n"
    "lint options:\n"
    "  --output-format FMT      full, concise, json, github or sarif (env PFC_OUTPUT_FORMAT)\n"
    "  --target-version 3.X     oldest Python to support, 3.9 to 3.13 (default 3.13)\n"
    "  --select CODES           comma-separated codes or prefixes to report\n"
    "  --ignore CODES           comma-separated codes or prefixes to skip\n"
    "  --fail-on SEVERITY       note, warning or error (default warning)\n"
    "  --statistics             print the number of findings per code\n"
    "  --exit-zero              exit 0 even when there are findings\n"
    "  --fix                    apply the safe fixes in place\n"
    "  --unsafe-fixes           also apply (or show) the unsafe fixes\n"
    "  --diff                   print the fixes as a unified diff, write nothing\n"
    "  --show-fixes             list the fixes applied\n"
    "  --no-cache               do not read or write the result cache\n"
    "  -j, --jobs N             files linted in parallel (default: all cores)\n"
    "\n"
    "estimate options:\n"
    "  --gpu NAME               a GPU or cloud instance (pfc gpus): the verdict and the changes\n"
    "                           that would make it fit, each re-estimated\n"
    "  --batch N, --seq N       override the script's batch size and sequence length\n"
    "  --precision P            fp32, bf16 (16-bit weights) or amp (fp32 weights, bf16 autocast)\n"
    "  --world-size N           ranks of a DDP/FSDP run (numbers are per rank)\n"
    "  --json                   one JSON object; -v every simulated phase; --trace every op\n"
    "\n"
    "exit status: 0 no findings (estimate: fits), 1 findings (estimate: does not fit or cannot\n"
    "be read), 2 usage or internal error\n";

int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("pfc: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\n(run 'pfc help' for usage)\n", stderr);
    va_end(ap);
    return EXIT_USAGE;
}

int parse_target_version(const char *s)
{
    int minor;
    char tail;
    if (sscanf(s, "3.%d%c", &minor, &tail) != 1 && sscanf(s, "py3%d%c", &minor, &tail) != 1)
        return -1;
    return minor >= PY_MINOR_MIN && minor <= PY_MINOR_MAX ? minor : -1;
}

int cli_parse_file(const char *path, char **src, Arena *arena, Syntax *s)
{
    uint32_t len;
    const char *err;
    if (!read_source(path, src, &len, &err)) {
        fprintf(stderr, "pfc: error: cannot read '%s': %s\n", path, err);
        return EXIT_USAGE;
    }
    arena_init(arena);
    parse_file(s, *src, len, arena);
    return -1;
}

/* pfc emit FILE / pfc dump-cst FILE / pfc dump-ir FILE [--fn NAME] [--target-version 3.X] */
int cmd_emit(int argc, char **argv, EmitMode mode)
{
    const char *path = NULL, *only_fn = NULL;
    int target = PY_MINOR_MAX;
    for (int i = 0; i < argc; i++) {
        if (mode == EMIT_DUMP_IR && strcmp(argv[i], "--fn") == 0 && i + 1 < argc) {
            only_fn = argv[++i];
        } else if (strcmp(argv[i], "--target-version") == 0 && i + 1 < argc) {
            if ((target = parse_target_version(argv[++i])) < 0)
                return usage_error("invalid --target-version '%s' (expected 3.9 to 3.13)",
                                   argv[i]);
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return usage_error("unknown option '%s'", argv[i]);
        } else if (path) {
            return usage_error("expected one file");
        } else {
            path = argv[i];
        }
    }
    if (!path)
        return usage_error("expected a file");
    char *src;
    Arena arena;
    Syntax s;
    if (cli_parse_file(path, &src, &arena, &s) >= 0)
        return EXIT_USAGE;
    parse_check_target(&s, target);
    Buf out = {0};
    if (mode == EMIT_DUMP_IR) {
        /* with the facts the file's project imports give, as lint sees them */
        char *inputs[] = {(char *)path};
        Project *project = project_new(inputs, 1);
        ProjectRequest *req = project_request_new(project, path);
        IrProjectHook hook = project_hook(req);
        Ir ir;
        ir_build_in_project(&ir, &s, &hook);
        dump_ir_analysed(&s, &ir, only_fn, &out);
        project_request_free(req);
        project_free(project);
    } else if (mode == EMIT_DUMP_CST) {
        dump_cst(&s, &out);
    } else {
        emit_tree(&s, &out);
    }
    buf_write(&out, stdout);
    if (mode == EMIT_SOURCE) {
        for (uint32_t i = 0; i < s.diags.n; i++) {
            uint32_t line, col;
            syntax_line_col(&s, s.diags.v[i].start, &line, &col);
            fprintf(stderr, "%s:%u:%u: E999 %s\n", path, line, col, s.diags.v[i].msg);
        }
    }
    int status = s.diags.n ? EXIT_FINDINGS : EXIT_CLEAN;
    buf_free(&out);
    arena_free(&arena);
    free(src);
    return status;
}

/* pfc explain CODE: the rule's documentation. */
static int cmd_explain(int argc, char **argv)
{
    if (argc != 1)
        return usage_error("explain expects one rule code, e.g. 'pfc explain TG001'");
    char code[16];
    snprintf(code, sizeof code, "%s", argv[0]);
    for (char *p = code; *p; p++)
        if (*p >= 'a' && *p <= 'z')
            *p = (char)(*p - 'a' + 'A');
    const RuleInfo *r = rule_by_code(code);
    if (!r) {
        size_t n;
        const RuleInfo *all = rules_all(&n);
        fprintf(stderr, "pfc: error: unknown rule '%s'; known rules:", argv[0]);
        for (size_t i = 0; i < n; i++)
            fprintf(stderr, " %s", all[i].code);
        fputc('\n', stderr);
        return EXIT_USAGE;
    }
    static const char *const sev[] = {"note", "warning", "error"};
    printf("%s %s (%s%s)\n%s.\n\n%s", r->code, r->name, sev[r->severity],
           r->default_on ? "" : ", off by default", r->summary, r->explain);
    return EXIT_CLEAN;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_text, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "lint") == 0 || strcmp(cmd, "check") == 0)
        return cmd_lint(argc - 2, argv + 2);
    if (strcmp(cmd, "emit") == 0)
        return cmd_emit(argc - 2, argv + 2, EMIT_SOURCE);
    if (strcmp(cmd, "dump-cst") == 0)
        return cmd_emit(argc - 2, argv + 2, EMIT_DUMP_CST);
    if (strcmp(cmd, "dump-ir") == 0)
        return cmd_emit(argc - 2, argv + 2, EMIT_DUMP_IR);
    if (strcmp(cmd, "debug-json") == 0)
        return cmd_debug_json(argc - 2, argv + 2);
    if (strcmp(cmd, "dump-notebook") == 0)
        return cmd_dump_notebook(argc - 2, argv + 2);
    if (strcmp(cmd, "debug-corpus") == 0)
        return cmd_debug_corpus(argc - 2, argv + 2);
    if (strcmp(cmd, "debug-bench") == 0)
        return cmd_debug_bench(argc - 2, argv + 2);
    if (strcmp(cmd, "debug-context") == 0)
        return cmd_debug_context(argc - 2, argv + 2);
    if (strcmp(cmd, "debug-estimate-mutate") == 0)
        return cmd_debug_estimate_mutate(argc - 2, argv + 2);
    if (strcmp(cmd, "estimate") == 0)
        return cmd_estimate(argc - 2, argv + 2);
    if (strcmp(cmd, "gpus") == 0)
        return cmd_gpus(argc - 2, argv + 2);
    if (strcmp(cmd, "archs") == 0)
        return cmd_archs(argc - 2, argv + 2);
    if (strcmp(cmd, "explain") == 0 || strcmp(cmd, "rule") == 0)
        return cmd_explain(argc - 2, argv + 2);
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
        puts("pfc " PFC_VERSION);
        return EXIT_CLEAN;
    }
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        fputs(usage_text, stdout);
        return EXIT_CLEAN;
    }
    return usage_error("unknown command '%s'", cmd);
}
