/* Building fixes: edits as byte ranges over the file, computed from CST
 * spans, so that the re-emitted file keeps every other byte (layout,
 * comments, line endings). */
#ifndef PFC_FIXES_H
#define PFC_FIXES_H
#include "pass.h"

Fix *fix_new(RuleCtx *c, Applicability a, const char *message);
void fix_edit(RuleCtx *c, Fix *f, uint32_t start, uint32_t end, const char *text);

/* The file's line ending ("\r\n", "\n" or "\r"): inserted lines use it. */
const char *fix_newline(const Syntax *S);
/* Offset of the start of the line holding `off`. */
uint32_t fix_line_start(const Syntax *S, uint32_t off);
/* The indentation (spaces/tabs) of the line holding `off`, as a string. */
const char *fix_indent(RuleCtx *c, uint32_t off);
/* The source text of a node. */
const char *fix_text(RuleCtx *c, uint32_t node);
/* The parent of a node (UINT32_MAX for the module). */
uint32_t fix_parent(RuleCtx *c, uint32_t node);
/* The statement line (SIMPLE_LINE) or compound statement holding a node. */
uint32_t fix_statement(RuleCtx *c, uint32_t node);
/* The local name bound to the `torch` module, or NULL. */
const char *fix_torch_alias(RuleCtx *c);
/* The offset right after a statement's last line break (what follows it
 * starts on a new line); *at_eof when the file ends without one there. */
uint32_t fix_after_statement(RuleCtx *c, uint32_t stmt, bool *at_eof);
/* Inserts `line` (without line break) as a new line after statement `stmt`. */
void fix_insert_line_after(RuleCtx *c, Fix *f, uint32_t stmt, const char *line);
/* Does the node's span contain a string token that runs over lines (which
 * re-indenting would change)? */
bool fix_has_multiline_string(RuleCtx *c, uint32_t node);

#endif
