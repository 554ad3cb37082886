#include "buf.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void buf_reserve(Buf *b, size_t extra)
{
    if (b->n + extra <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + extra)
        cap *= 2;
    char *v = realloc(b->v, cap);
    if (!v) {
        fputs("pfc: out of memory\n", stderr);
        abort();
    }
    b->v = v;
    b->cap = cap;
}

void buf_put(Buf *b, const char *s, size_t n)
{
    if (!n)
        return;
    buf_reserve(b, n);
    memcpy(b->v + b->n, s, n);
    b->n += n;
}

void buf_puts(Buf *b, const char *s) { buf_put(b, s, strlen(s)); }

void buf_putc(Buf *b, char c)
{
    buf_reserve(b, 1);
    b->v[b->n++] = c;
}

void buf_printf(Buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    buf_reserve(b, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(b->v + b->n, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)n;
}

void buf_put_escaped(Buf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': buf_puts(b, "\\\""); break;
        case '\\': buf_puts(b, "\\\\"); break;
        case '\n': buf_puts(b, "\\n"); break;
        case '\r': buf_puts(b, "\\r"); break;
        case '\t': buf_puts(b, "\\t"); break;
        default:
            if (c < 0x20 || c == 0x7f)
                buf_printf(b, "\\u%04x", c);
            else
                buf_putc(b, (char)c);
        }
    }
}

void buf_free(Buf *b)
{
    free(b->v);
    b->v = NULL;
    b->n = b->cap = 0;
}

int buf_write(const Buf *b, FILE *f)
{
    return b->n ? (int)(fwrite(b->v, 1, b->n, f) == b->n) : 1;
}
