/* Does the source decode with the codec of its coding cookie? pfc never
 * rewrites the bytes (the tree is lossless); this only finds the first byte
 * CPython's decoder would refuse. Generated tables: lexer/codecs_data.h and
 * tests/tools/gen_codecs.py. */
#ifndef PFC_DECODE_CHECK_H
#define PFC_DECODE_CHECK_H
#include "../base/arena.h"
#include <stddef.h>
#include <stdint.h>

/* NAME is a text-encoding cookie name other than UTF-8 (enc_is_text_encoding).
 * Returns NULL when src[0, n) decodes, else CPython's message ("'ascii' codec
 * can't decode byte 0xe9 in position 35: ordinal not in range(128)") with *at
 * set to the offending byte. Codecs that are not checked (utf-7, iso2022_*,
 * the *_escape ones...) always pass. */
const char *enc_check_source(Arena *a, const char *name, size_t len, const char *src,
                             uint32_t n, uint32_t *at);

#endif
