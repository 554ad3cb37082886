/* Growable byte buffer for output (reports, re-emitted files). Output outlives
 * the file's arena, so it is malloc'ed; one buffer per file or per report. */
#ifndef PFC_BUF_H
#define PFC_BUF_H
#include <stddef.h>
#include <stdio.h>

typedef struct Buf { char *v; size_t n, cap; } Buf;

void buf_put(Buf *b, const char *s, size_t n);
void buf_puts(Buf *b, const char *s);
void buf_putc(Buf *b, char c);
void buf_printf(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends s[0..n) as the inside of a double-quoted string: JSON escapes,
 * which are also readable in golden files. */
void buf_put_escaped(Buf *b, const char *s, size_t n);
void buf_free(Buf *b);
/* Writes the buffer to a stream (nothing for an empty one); 0 on error. */
int buf_write(const Buf *b, FILE *f);

#endif
