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
/* Is the statement line (SIMPLE_LINE) alone on its line, not the body of
 * `if x: stmt` (a line inserted after it would not share its condition)? */
bool fix_line_of_its_own(RuleCtx *c, uint32_t stmt);
/* Inserts `line` (without line break) as a new line after statement `stmt`. */
void fix_insert_line_after(RuleCtx *c, Fix *f, uint32_t stmt, const char *line);
/* Does the node's span contain a string token that runs over lines (which
 * re-indenting would change)? */
bool fix_has_multiline_string(RuleCtx *c, uint32_t node);

/* ---- when a fix keeps the meaning of the code ------------------------------------
 * A fix is written only where pfc can tell what it changes: never in model
 * code (it runs under its caller's grad mode: a detach or a no_grad there stops
 * training silently) or test code, `.detach()` only on a proven tensor, and
 * only when nothing may still use the graph it cuts. */

/* May a fix edit the code of function f? Not model or test code (an_context),
 * and not a method of a model-like class (an nn.Module, or any class that
 * defines forward: diffusers' ModelMixin, a base imported from elsewhere)
 * unless the method evaluates or is a training-loop hook; and not a method
 * of a test class (Test*, or a base named *TestCase, *Test, Test*). */
bool fix_allowed_in(RuleCtx *c, const IrFunction *f);
/* Is v proven to be one torch.Tensor, so that `.detach()` exists on it? */
bool fix_is_tensor(RuleCtx *c, const IrFunction *f, ValueId v);
/* What may become of the graph of what is derived from v: UNUSED (dropped
 * here, or by every in-file caller it is returned to), USED (backpropagated:
 * backward(), autograd.grad, accelerator.backward; or stored on an object,
 * here or by a caller), ESCAPES (returned or yielded to callers pfc does not
 * see). */
typedef enum GraphUse { GRAPH_UNUSED, GRAPH_USED, GRAPH_ESCAPES } GraphUse;
GraphUse fix_graph_use(RuleCtx *c, const IrFunction *f, ValueId v);
/* Is what is derived from v backpropagated (backward(), autograd.grad,
 * accelerator.backward), here or by an in-file caller it is returned to? Then
 * keeping its graph is the point (TG001), and a loop making it trains (TG003). */
bool graph_backpropagated(RuleCtx *c, const IrFunction *f, ValueId v);

#endif
