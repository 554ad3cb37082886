#include "fix.h"
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void emit_apply_edits(const char *src, uint32_t len, const Edit *edits, uint32_t n, Buf *out)
{
    uint32_t at = 0;
    for (uint32_t i = 0; i < n; i++) {
        buf_put(out, src + at, edits[i].start - at);
        buf_puts(out, edits[i].text);
        at = edits[i].end;
    }
    buf_put(out, src + at, len - at);
}

/* ---- diff ------------------------------------------------------------------------- */

typedef struct Line { const char *s; uint32_t n; } Line;
typedef struct Lines { Line *v; uint32_t n; } Lines;

/* Lines keep their line ending, so CRLF files diff as they are. */
static Lines split_lines(const char *s, uint32_t len)
{
    Lines l = {malloc((len + 1) * sizeof(Line)), 0};
    if (!l.v)
        abort();
    uint32_t start = 0;
    for (uint32_t i = 0; i < len; i++) {
        bool end = s[i] == '\n' || (s[i] == '\r' && (i + 1 >= len || s[i + 1] != '\n'));
        if (end) {
            l.v[l.n++] = (Line){s + start, i + 1 - start};
            start = i + 1;
        }
    }
    if (start < len)
        l.v[l.n++] = (Line){s + start, len - start};
    return l;
}

static bool line_eq(Line a, Line b) { return a.n == b.n && memcmp(a.s, b.s, a.n) == 0; }

/* Edit script by dynamic programming over the region between a common
 * prefix and suffix (fixes touch few lines, so the region is small); a
 * region too large for the table is shown as one replaced block. */
enum { DIFF_MAX_CELLS = 4000000 };
typedef enum Op { OP_KEEP, OP_DEL, OP_ADD } Op;

static void put_line(Buf *out, char mark, Line l)
{
    buf_putc(out, mark);
    buf_put(out, l.s, l.n);
    if (!l.n || (l.s[l.n - 1] != '\n' && l.s[l.n - 1] != '\r'))
        buf_puts(out, "\n\\ No newline at end of file\n");
}

void emit_unified_diff(const char *path, const char *a, uint32_t alen, const char *b,
                       uint32_t blen, Buf *out)
{
    if (alen == blen && memcmp(a, b, alen) == 0)
        return;
    Lines A = split_lines(a, alen), B = split_lines(b, blen);
    uint32_t pre = 0;
    while (pre < A.n && pre < B.n && line_eq(A.v[pre], B.v[pre]))
        pre++;
    uint32_t suf = 0;
    while (suf < A.n - pre && suf < B.n - pre && line_eq(A.v[A.n - 1 - suf], B.v[B.n - 1 - suf]))
        suf++;
    uint32_t n = A.n - pre - suf, m = B.n - pre - suf;
    Op *ops = malloc((n + m + 1) * sizeof *ops);
    uint32_t nops = 0;
    if ((uint64_t)(n + 1) * (m + 1) <= DIFF_MAX_CELLS) {
        /* lcs[i][j]: LCS length of A[pre+i..] and B[pre+j..] */
        uint32_t *lcs = calloc((size_t)(n + 1) * (m + 1), sizeof *lcs);
        for (uint32_t i = n; i-- > 0;)
            for (uint32_t j = m; j-- > 0;)
                lcs[i * (m + 1) + j] = line_eq(A.v[pre + i], B.v[pre + j])
                                           ? lcs[(i + 1) * (m + 1) + j + 1] + 1
                                           : (lcs[(i + 1) * (m + 1) + j] > lcs[i * (m + 1) + j + 1]
                                                  ? lcs[(i + 1) * (m + 1) + j]
                                                  : lcs[i * (m + 1) + j + 1]);
        uint32_t i = 0, j = 0;
        while (i < n || j < m) {
            if (i < n && j < m && line_eq(A.v[pre + i], B.v[pre + j])) {
                ops[nops++] = OP_KEEP, i++, j++;
            } else if (j < m && (i == n || lcs[i * (m + 1) + j + 1] > lcs[(i + 1) * (m + 1) + j])) {
                ops[nops++] = OP_ADD, j++;
            } else {
                ops[nops++] = OP_DEL, i++;
            }
        }
        free(lcs);
    } else {
        for (uint32_t i = 0; i < n; i++)
            ops[nops++] = OP_DEL;
        for (uint32_t j = 0; j < m; j++)
            ops[nops++] = OP_ADD;
    }
    buf_printf(out, "--- %s\n+++ %s\n", path, path);
    /* hunks: runs of changes with up to 3 lines of context around them */
    enum { CONTEXT = 3 };
    uint32_t k = 0;
    while (k < nops) {
        while (k < nops && ops[k] == OP_KEEP)
            k++;
        if (k == nops)
            break;
        /* extend the hunk while changes are within 2*CONTEXT keeps of each other */
        uint32_t end = k;
        for (uint32_t keep = 0, x = k; x < nops; x++) {
            keep = ops[x] == OP_KEEP ? keep + 1 : 0;
            if (ops[x] != OP_KEEP)
                end = x + 1;
            if (keep > 2 * CONTEXT)
                break;
        }
        uint32_t ai = pre, bi = pre;   /* line numbers (0-based) at ops index k */
        for (uint32_t x = 0; x < k; x++) {
            ai += ops[x] != OP_ADD;
            bi += ops[x] != OP_DEL;
        }
        uint32_t ctx_before = ai < CONTEXT ? ai : CONTEXT;
        if (bi < ctx_before)
            ctx_before = bi;
        uint32_t a0 = ai - ctx_before, b0 = bi - ctx_before;
        uint32_t alines = ctx_before, blines = ctx_before;
        for (uint32_t x = k; x < end; x++) {
            alines += ops[x] != OP_ADD;
            blines += ops[x] != OP_DEL;
        }
        uint32_t a_after = a0 + alines, ctx_after = 0;
        while (ctx_after < CONTEXT && a_after + ctx_after < A.n &&
               b0 + blines + ctx_after < B.n)
            ctx_after++;
        buf_printf(out, "@@ -%u,%u +%u,%u @@\n", a0 + 1, alines + ctx_after, b0 + 1,
                   blines + ctx_after);
        for (uint32_t x = 0; x < ctx_before; x++)
            put_line(out, ' ', A.v[a0 + x]);
        uint32_t ia = ai, ib = bi;
        for (uint32_t x = k; x < end; x++) {
            if (ops[x] == OP_KEEP)
                put_line(out, ' ', A.v[ia++]), ib++;
            else if (ops[x] == OP_DEL)
                put_line(out, '-', A.v[ia++]);
            else
                put_line(out, '+', B.v[ib++]);
        }
        for (uint32_t x = 0; x < ctx_after; x++)
            put_line(out, ' ', A.v[ia + x]);
        k = end;
    }
    free(ops);
    free(A.v);
    free(B.v);
}
