/* emit: CST -> bytes. Re-emits every token with its leading trivia, walking the
 * tree (not the token array), so a token the tree lost or duplicated breaks the
 * round trip instead of being papered over. */
#ifndef PFC_EMIT_H
#define PFC_EMIT_H
#include "../base/buf.h"
#include "../parser/parser.h"
#include <stdbool.h>

void emit_tree(const Syntax *s, Buf *out);

/* Checks the tree invariants: tokens in order, each exactly once, trivia tiling
 * the file, every node's span enclosing its children. Returns NULL or why not. */
const char *check_tree(const Syntax *s);

/* Stable text dump of the tree for golden tests and parser debugging. */
void dump_cst(Syntax *s, Buf *out);

#endif
