/* Commands of the pfc binary. Each returns the process exit status:
 * 0 success/no findings, 1 findings, 2 usage, configuration or internal error. */
#ifndef PFC_CLI_H
#define PFC_CLI_H
#include "../parser/parser.h"
#include <stdbool.h>

#define PFC_VERSION "0.1.0"

enum { EXIT_CLEAN = 0, EXIT_FINDINGS = 1, EXIT_USAGE = 2 };

int cmd_lint(int argc, char **argv);
typedef enum EmitMode { EMIT_SOURCE, EMIT_DUMP_CST, EMIT_DUMP_IR } EmitMode;
int cmd_emit(int argc, char **argv, EmitMode mode);
int cmd_debug_corpus(int argc, char **argv);
int cmd_gpus(int argc, char **argv);
int cmd_estimate(int argc, char **argv);
int cmd_archs(int argc, char **argv);
int cmd_debug_bench(int argc, char **argv);
int cmd_debug_estimate_mutate(int argc, char **argv);   /* estimate_mutate.c */
int cmd_debug_context(int argc, char **argv);           /* fix_context.c */
int cmd_audit(int argc, char **argv);                   /* audit.c */
int cmd_explain_runtime(const char *code);              /* audit.c: TG4xx */
bool audit_is_runtime_code(const char *code);

/* pfc dump-ir's text: the IR dump with each function's code context and
 * transitive effects as the rules see them (debug.c). */
struct Ir;
struct Buf;
void dump_ir_analysed(Syntax *s, const struct Ir *ir, const char *only, struct Buf *out);

/* Reads and parses a file (the caller frees *src and the arena); returns -1,
 * or EXIT_USAGE after saying why the file could not be read. */
int cli_parse_file(const char *path, char **src, Arena *arena, Syntax *s);

/* "3.9".."3.13" or "py39".."py313" -> minor version; -1 if invalid. */
int parse_target_version(const char *s);
/* Reports a usage error on stderr; returns EXIT_USAGE. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
