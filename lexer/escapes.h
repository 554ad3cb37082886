/* Backslash escapes of string literals, checked as CPython decodes them (the
 * 'unicodeescape' codec for str, _PyBytes_DecodeEscape for bytes). Called only
 * for literal text that holds a backslash; the text is never rewritten. */
#ifndef PFC_ESCAPES_H
#define PFC_ESCAPES_H
#include "../base/arena.h"
#include <stdbool.h>
#include <stdint.h>

typedef struct EscapeCheck {
    const char *msg;       /* CPython's SyntaxError message, or NULL when valid */
    int name_minor;        /* newest first minor of a \N{...} name used; 9 if none */
    uint32_t name_start, name_end;   /* byte span of that name's escape */
} EscapeCheck;

/* The body of a non-raw str literal (or one f-string text segment) at
 * [start, end) of src. `utf8`: non-ASCII bytes are UTF-8 (else one character
 * each), which matters for the positions in the message. */
EscapeCheck esc_check_str(Arena *a, const char *src, uint32_t start, uint32_t end, bool utf8);

/* The body of a non-raw bytes literal. */
EscapeCheck esc_check_bytes(Arena *a, const char *src, uint32_t start, uint32_t end);

#endif
