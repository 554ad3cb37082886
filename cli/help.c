/* One table for every help text and the man page (see help.h). Texts are
 * plain lines; the man page reflows them, so each option's text reads as one
 * paragraph in both. */
#include "help.h"
#include "cli.h"
#include <string.h>

typedef struct HelpOpt { const char *flags, *arg, *text; } HelpOpt;

typedef struct HelpCmd {
    const char *name, *aliases;   /* aliases: space-separated, or "" */
    const char *args;             /* "[PATH ...]" */
    const char *summary;          /* one line, for the global help */
    const char *text;             /* what it does, plain lines */
    const HelpOpt *opts;          /* ends with {NULL} */
} HelpCmd;

static const HelpOpt lint_opts[] = {
    {"--output-format", "FMT", "full (default), concise (path:line:col: CODE message), json,\n"
     "github (workflow commands) or sarif (SARIF 2.1.0); also PFC_OUTPUT_FORMAT"},
    {"-o, --output-file", "PATH", "write the output to PATH instead of stdout"},
    {"--select", "CODES", "comma-separated codes or prefixes to report (ALL for every code);\n"
     "replaces the configuration's select; codes are case-insensitive"},
    {"--extend-select", "CODES", "codes or prefixes to report on top of the selection"},
    {"--ignore", "CODES", "codes or prefixes to skip, added to the configuration's ignore"},
    {"--target-version", "3.X", "oldest Python to support, 3.9 to 3.13 (default 3.13): newer\n"
     "syntax is an E999"},
    {"--fail-on", "SEVERITY", "lowest severity that makes the exit status 1: note, warning\n"
     "(default) or error"},
    {"--config", "PATH", "use this pfc.toml or pyproject.toml for every file (no discovery);\n"
     "--config \"KEY = VALUE\" (a TOML line, repeatable) overrides one setting"},
    {"--target-gpu", "NAME", "a GPU or instance (pfc gpus) for TG901 projected-oom, overriding\n"
     "[tool.pfc] target_gpu: training loops that would not fit it are reported"},
    {"--isolated", NULL, "ignore every configuration file"},
    {"--show-settings", NULL, "print the settings that apply to the first file, with the\n"
     "rules enabled, and exit"},
    {"--statistics", NULL, "print the number of findings per code ([*]: fixable); with\n"
     "--output-format json a JSON array instead of the findings"},
    {"--exit-zero", NULL, "exit 0 even when there are findings"},
    {"--fix", NULL, "apply the safe fixes in place (with PATH -, print the fixed source)"},
    {"--unsafe-fixes", NULL, "also apply (or count as fixable) the unsafe fixes"},
    {"--diff", NULL, "print the fixes as a unified diff, write nothing (exit 1 when there\n"
     "is something to fix)"},
    {"--show-fixes", NULL, "list the fixes applied"},
    {"--stdin-filename", "NAME", "with PATH -, the name stdin is reported as (and whose\n"
     "configuration applies)"},
    {"-q, --quiet", NULL, "print the findings only: no summary, no \"Fixed\" line"},
    {"--no-cache", NULL, "neither read nor write the result cache (.pfc_cache/)"},
    {"--analyse-all", NULL, "run the rules on every file, also those that name no training\n"
     "library, module or method (skipped by default: no rule can fire there)"},
    {"-j, --jobs", "N", "files linted in parallel (default: all cores)"},
    {"-h, --help", NULL, "print this help"},
    {NULL, NULL, NULL},
};

static const HelpOpt explain_opts[] = {
    {"--markdown", NULL, "print the documentation as Markdown (docs/rules/CODE.md)"},
    {"-h, --help", NULL, "print this help"},
    {NULL, NULL, NULL},
};

static const HelpOpt estimate_opts[] = {
    {"--gpu", "NAME", "a GPU (a100-80gb, h100, rtx-4090, ...) or cloud instance\n"
     "(p4de.24xlarge, ND96amsr_A100_v4, ...; pfc gpus), in any case: the verdict, and when\n"
     "it does not fit the changes that would, each re-estimated"},
    {"--batch", "N", "override the script's batch size"},
    {"--seq", "N", "override the script's sequence length"},
    {"--precision", "P", "fp32, bf16 (16-bit weights) or amp (fp32 weights, bf16 autocast)"},
    {"--world-size", "N", "ranks of a DDP/FSDP/ZeRO run (numbers are per rank); else WORLD_SIZE as torchrun sets it"},
    {"--model", "NAME", "the model to load where from_pretrained's name cannot be read"},
    {"-- ARGS", NULL, "the script's own arguments (argparse, HfArgumentParser, fire),\n"
     "which override its defaults: -- --model_name_or_path gpt2 --config cfg.yaml"},
    {"--json", NULL, "one JSON object (version, script, peak, range, breakdown, components,\n"
     "inputs read, target, fits, verdict, assumptions, remediation, error); every failure\n"
     "too, with error {code, message, path, line}"},
    {"-v, --verbose", NULL, "every simulated phase"},
    {"--trace", NULL, "every recorded tensor op (for debugging the estimator)"},
    {"-h, --help", NULL, "print this help"},
    {NULL, NULL, NULL},
};

static const HelpOpt audit_opts[] = {
    {"--output-format", "FMT", "full (default), concise, json, github or sarif, as pfc lint"},
    {"--fail-on", "SEVERITY", "lowest severity that makes the exit status 1 (default warning)"},
    {"--exit-zero", NULL, "exit 0 even when there are findings"},
    {"-h, --help", NULL, "print this help"},
    {NULL, NULL, NULL},
};

static const HelpOpt file_opts[] = {
    {"--target-version", "3.X", "check the syntax against this Python (default 3.13)"},
    {"-h, --help", NULL, "print this help"},
    {NULL, NULL, NULL},
};

static const HelpOpt ir_opts[] = {
    {"--fn", "NAME", "only the function NAME"},
    {"--target-version", "3.X", "check the syntax against this Python (default 3.13)"},
    {"-h, --help", NULL, "print this help"},
    {NULL, NULL, NULL},
};

static const HelpOpt help_only[] = {
    {"-h, --help", NULL, "print this help"},
    {NULL, NULL, NULL},
};

static const HelpCmd commands[] = {
    {"lint", "check", "[options] [PATH ...]", "lint files and directories (default: .)",
     "Lints .py, .pyi and .ipynb files and directories (walked in sorted order, honouring\n"
     ".gitignore; virtual environments, site-packages and tool caches are skipped; files\n"
     "named explicitly are always linted). PATH - reads the source from stdin.\n"
     "Jupyter notebooks (.ipynb) are linted cell by cell, their code cells joined in\n"
     "order with IPython magics and shell escapes blanked; findings name the cell\n"
     "(\"cell N, line L\"), and --fix rewrites only the edited cells' sources.\n"
     "Settings come from the nearest pfc.toml or pyproject.toml [tool.pfc] (pfc help\n"
     "config); noqa comments suppress findings (pfc help noqa).",
     lint_opts},
    {"explain", "rule", "[CODE]", "what a rule finds, why, its cost, the fix",
     "Prints a rule's documentation (the same text as docs/rules/CODE.md). Without a\n"
     "CODE, lists every code with its severity and summary. Codes are case-insensitive.",
     explain_opts},
    {"estimate", "", "[options] SCRIPT [-- ARGS]", "a step's projected peak GPU memory, what fits",
     "Projects the peak GPU memory of one training (or evaluation) step of the script\n"
     "without running it: the model (a Hugging Face model by name, a torchvision\n"
     "constructor, a diffusers UNet, or modules defined in the script), batch, sequence, precision,\n"
     "optimizer, checkpointing, LoRA, accumulation and sharding are read from the script\n"
     "and one step is interpreted over symbolic tensors. Prints the verdict first (fits,\n"
     "borderline when the range crosses the card, does not fit), the breakdown at the\n"
     "peak and over the step, the projected peak with its range, and what it assumed.\n"
     "Exit 0 when the projected peak fits (or without --gpu), 1 when it does not or the script\n"
     "cannot be read or estimated (the reason is printed), 2 on usage errors.",
     estimate_opts},
    {"audit", "", "[options] SCRIPT [-- ARGS]", "run one instrumented training step (needs PyTorch)",
     "Runs SCRIPT with python3 under the pfc_audit package (audit/; installed in\n"
     "lib/pfc/python, or PFC_AUDIT_PATH): forward hooks, gradient hooks and a watch on\n"
     "every optimizer's step() let exactly one optimizer step happen, then the script is\n"
     "stopped and what the step showed is reported with lint's codes where the same bug\n"
     "is meant and TG401-TG408 for what only a run shows (pfc explain TG4xx).\n"
     "Exit 0 clean, 1 findings, 2 when the script raised, python3, PyTorch or the\n"
     "package is missing, or on usage errors.",
     audit_opts},
    {"gpus", "", "", "the GPUs and cloud instances known by name",
     "Lists the GPUs (id, name, marketed and usable memory, bf16) and the cloud instances\n"
     "(name, cloud, GPUs) that --gpu accepts.", help_only},
    {"archs", "", "", "the model architectures built in",
     "Lists the Hugging Face architectures, torchvision models and diffusers UNets the estimator\n"
     "knows.",
     help_only},
    {"dump-cst", "", "[options] FILE", "print the lossless syntax tree",
     "Prints the syntax tree: node kinds, byte spans, tokens and their trivia.", file_opts},
    {"dump-ir", "", "[options] FILE", "print the SSA IR with its lattice facts",
     "Prints the SSA IR of each scope with its lattice facts, code context and effects,\n"
     "as the rules see them (imports of the project's modules resolved).", ir_opts},
    {"emit", "", "[options] FILE", "parse and re-emit FILE to stdout",
     "Parses FILE and prints it again from the tree (byte-identical); syntax errors go to\n"
     "stderr and make the exit status 1.", file_opts},
    {"version", "--version", "", "print the version", "Prints pfc's version.", help_only},
    {"help", "", "[COMMAND|TOPIC]", "print this help, or a command's or topic's",
     "Prints the commands, or the help of one command (as pfc COMMAND --help does), or\n"
     "of a topic: config, noqa, exit-status.", help_only},
};

typedef struct HelpTopic {
    const char *name, *title, *text;
    bool lines;   /* one item per line, not a paragraph */
} HelpTopic;

static const HelpTopic topics[] = {
    {"config", "CONFIGURATION",
     "The nearest pfc.toml (top-level keys) or pyproject.toml with a [tool.pfc] table,\n"
     "searched upwards from each linted file, applies to it. Keys (kebab-case or\n"
     "snake_case): select, extend-select, ignore (arrays of codes or prefixes),\n"
     "per-file-ignores (a table of glob = [codes]), exclude and extend-exclude (globs),\n"
     "target-version (\"3.9\" to \"3.13\"), fail-on (\"note\", \"warning\", \"error\"),\n"
     "target-gpu and target-world-size (the GPU and ranks of the run, for the estimator).\n"
     "An unknown key or code, or a malformed file, is an error with its location and a\n"
     "suggestion (exit 2). The command line's --select, --target-version and --fail-on\n"
     "override the file; --ignore and --extend-select add to it; --config \"KEY = VALUE\"\n"
     "replaces one key; --config PATH uses one file for all; --isolated uses none.", false},
    {"noqa", "SUPPRESSION",
     "# noqa: TG001,TG003 on the line of a finding suppresses those codes there (any\n"
     "case); a bare # noqa suppresses every code on its line; # pfc: noqa anywhere\n"
     "suppresses the whole file. Other tools' directives (# flake8: noqa, # type:\n"
     "ignore, # ruff: noqa) are theirs and change nothing. TG000 (off by default) reports\n"
     "pfc codes in noqa comments that suppress nothing; other tools' codes are never\n"
     "reported. E999 and E902 cannot be suppressed.", false},
    {"exit-status", "EXIT STATUS",
     "0: no finding at or above --fail-on (estimate: it fits, or no --gpu).\n"
     "1: findings (estimate: it does not fit, or the script cannot be read).\n"
     "2: a usage or configuration error, an internal error, or unwritable fixes.", true},
};

enum { OPT_COLUMN = 28 };

/* An option's text as one paragraph, wrapped to 80 columns from `indent`. */
static void put_wrapped(FILE *out, const char *text, int indent, int col)
{
    enum { WIDTH = 80 };
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, " \n");
        if (col > indent && col + 1 + (int)n > WIDTH) {
            fprintf(out, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', out);
            col++;
        } else {
            fprintf(out, "%*s", indent - col, "");
            col = indent;
        }
        fprintf(out, "%.*s", (int)n, p);
        col += (int)n;
        p += n;
        p += *p != 0;
    }
    fputc('\n', out);
}

static void print_command(const HelpCmd *c, FILE *out)
{
    fprintf(out, "usage: pfc %s%s%s\n\n%s.\n\n", c->name, *c->args ? " " : "", c->args,
            c->summary);
    put_wrapped(out, c->text, 0, 0);
    if (*c->aliases)
        fprintf(out, "\nalias: %s\n", c->aliases);
    fputs("\noptions:\n", out);
    for (const HelpOpt *o = c->opts; o->flags; o++) {
        int col = fprintf(out, "  %s%s%s", o->flags, o->arg ? " " : "", o->arg ? o->arg : "");
        if (col >= OPT_COLUMN) {
            fputc('\n', out);
            col = 0;
        }
        put_wrapped(out, o->text, OPT_COLUMN, col);
    }
}

void help_global(FILE *out)
{
    fputs("pfc " PFC_VERSION ": pre-flight checks for PyTorch training code\n\n"
          "usage: pfc <command> [options] [args]\n\ncommands:\n", out);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        char head[64];
        snprintf(head, sizeof head, "%s %s", commands[i].name, commands[i].args);
        fprintf(out, "  %-26s %s\n", head, commands[i].summary);
    }
    fputs("\ntopics (pfc help TOPIC):", out);
    for (size_t i = 0; i < sizeof topics / sizeof topics[0]; i++)
        fprintf(out, " %s", topics[i].name);
    fputs("\n\nrun 'pfc COMMAND --help' (or 'pfc help COMMAND') for a command's options.\n"
          "exit status: 0 no findings (estimate: fits), 1 findings (estimate: does not fit\n"
          "or cannot be read), 2 usage, configuration or internal error\n", out);
}

static bool has_alias(const HelpCmd *c, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = c->aliases; (p = strstr(p, name)); p += n)
        if ((p == c->aliases || p[-1] == ' ') && (p[n] == 0 || p[n] == ' '))
            return true;
    return false;
}

bool help_topic(const char *name, FILE *out)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, name) == 0 || has_alias(&commands[i], name)) {
            print_command(&commands[i], out);
            return true;
        }
    for (size_t i = 0; i < sizeof topics / sizeof topics[0]; i++)
        if (strcmp(topics[i].name, name) == 0) {
            fprintf(out, "%s\n\n", topics[i].title);
            if (topics[i].lines)
                fprintf(out, "%s\n", topics[i].text);
            else
                put_wrapped(out, topics[i].text, 0, 0);
            return true;
        }
    return false;
}

/* ---- the man page ------------------------------------------------------------------- */

/* Text for roff: '-' and '\' escaped, no line starting with '.' or '\''. */
static void roff(FILE *out, const char *s)
{
    bool line_start = true;
    for (; *s; s++) {
        if (line_start && (*s == '.' || *s == '\''))
            fputs("\\&", out);
        if (*s == '-')
            fputs("\\-", out);
        else if (*s == '\\')
            fputs("\\e", out);
        else
            fputc(*s, out);
        line_start = *s == '\n';
    }
}

static void man_command(FILE *out, const HelpCmd *c)
{
    fputs(".SS \"pfc ", out);
    roff(out, c->name);
    fputs(*c->args ? " " : "", out);
    roff(out, c->args);
    fputs("\"\n", out);
    roff(out, c->text);
    fputc('\n', out);
    if (*c->aliases) {
        fputs("Alias: ", out);
        roff(out, c->aliases);
        fputs(".\n", out);
    }
    for (const HelpOpt *o = c->opts; o->flags; o++) {
        fputs(".TP\n.B ", out);
        roff(out, o->flags);
        if (o->arg) {
            fputs(" \\fI", out);
            roff(out, o->arg);
            fputs("\\fR", out);
        }
        fputc('\n', out);
        roff(out, o->text);
        fputc('\n', out);
    }
}

void help_man(FILE *out)
{
    fputs(".\\\" Generated by 'pfc debug-man' from cli/help.c: edit that, then run 'make docs'.\n"
          ".TH PFC 1 \"2026\" \"pfc " PFC_VERSION "\" \"User Commands\"\n"
          ".SH NAME\npfc \\- pre\\-flight checks for PyTorch training code\n.SH SYNOPSIS\n", out);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        fputs(i ? ".br\n.B pfc " : ".B pfc ", out);
        roff(out, commands[i].name);
        fputc('\n', out);
        if (*commands[i].args) {
            roff(out, commands[i].args);
            fputc('\n', out);
        }
    }
    fputs(".SH DESCRIPTION\n.B pfc\nreads PyTorch training scripts without running them. It "
          "parses Python 3.9 to 3.13 into a\nlossless syntax tree, finds the bugs that cost "
          "GPU hours with rules over an SSA IR,\nand projects a step's peak GPU memory. "
          "Each rule is documented by\n.B pfc explain CODE\nand in docs/rules/CODE.md.\n"
          ".SH COMMANDS\n", out);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        man_command(out, &commands[i]);
    for (size_t i = 0; i < sizeof topics / sizeof topics[0]; i++) {
        fprintf(out, ".SH %s\n", topics[i].title);
        for (const char *p = topics[i].text; *p;) {   /* .br keeps a list's lines */
            size_t n = strcspn(p, "\n");
            char line[256];
            snprintf(line, sizeof line, "%.*s", (int)n, p);
            roff(out, line);
            fputs(topics[i].lines && p[n] ? "\n.br\n" : "\n", out);
            p += n + (p[n] != 0);
        }
    }
    fputs(".SH ENVIRONMENT\nNO_COLOR disables colour; PFC_OUTPUT_FORMAT sets the default "
          "output format of\n.BR \"pfc lint\" .\n.SH FILES\n.TP\n.B .pfc_cache/\nthe result "
          "cache, in the current directory\n.TP\n.B pfc.toml \", \" pyproject.toml\n"
          "configuration (see CONFIGURATION)\n", out);
}
