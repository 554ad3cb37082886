/* Applying fixes and showing them: the edited file is the original bytes
 * with the edits spliced in, so nothing outside an edit changes. */
#ifndef PFC_FIX_H
#define PFC_FIX_H
#include "../base/buf.h"
#include "../base/finding.h"

/* Applies edits, which must be sorted by start and must not overlap. */
void emit_apply_edits(const char *src, uint32_t len, const Edit *edits, uint32_t n, Buf *out);

/* A unified diff (3 lines of context) between two versions of `path`;
 * nothing when they are equal. */
void emit_unified_diff(const char *path, const char *a, uint32_t alen, const char *b,
                       uint32_t blen, Buf *out);

#endif
