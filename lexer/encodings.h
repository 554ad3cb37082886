/* Encoding names in PEP 263 coding cookies, as CPython 3.13 treats them.
 * Generated table: lexer/encodings_data.h (tests/tools/gen_encodings.py).
 *
 * How the tokenizer handles a cookie NAME: it first applies get_normal_name()
 * (enc_normal_name below); if that gives "utf-8" the name is accepted without a
 * codec lookup (so "utf-8-anything" is fine), otherwise it decodes with the codec
 * found by codecs.lookup(normal name or NAME), which must exist (enc_is_known) and
 * be a text encoding (enc_is_text_encoding): "rot13" or "hex" are found by
 * codecs.lookup but rejected by the tokenizer. */
#ifndef PFC_ENCODINGS_H
#define PFC_ENCODINGS_H
#include <stdbool.h>
#include <stddef.h>

/* True when codecs.lookup(name) succeeds, e.g. "utf-8", "UTF8", "latin-1",
 * "iso8859_15", "cp1252", "euc_jp", "rot13"; false for "uft-8", "", or a name
 * containing NUL. The name is normalised like CPython: ASCII case folded, runs of
 * characters other than ASCII letters, digits and '.' become one '_', and leading
 * or trailing ones are dropped. Platform-specific codecs ("mbcs", "oem") are
 * those of the generating platform (Linux: absent). */
bool enc_is_known(const char *name, size_t len);

/* The codecs.lookup() behind enc_is_known: the position, in the generated name
 * table of lexer/encodings_data.h, of the entry NAME resolves to; -1 when it does not.
 * lexer/codecs_data.h is generated from that table and indexed by it. */
int enc_lookup_index(const char *name, size_t len);

/* enc_is_known and the codec is a text encoding (what a coding cookie needs). */
bool enc_is_text_encoding(const char *name, size_t len);

/* CPython tokenizer's get_normal_name(): looks at the first 12 bytes (stopping at
 * NUL), ASCII-lowercased with '_' read as '-'. "utf-8" or "utf-8-*" -> "utf-8";
 * "latin-1", "iso-8859-1", "iso-latin-1" or any of them followed by "-..." ->
 * "iso-8859-1"; otherwise NULL, meaning the name is used unchanged. */
const char *enc_normal_name(const char *name, size_t len);

/* True when the name resolves to the utf-8 codec itself ("utf-8", "utf8", "u8",
 * "utf_8", "cp65001", ...). "utf-8-sig" is a distinct codec and gives false; pass
 * the result of enc_normal_name when there is one ("utf-8-sig" -> "utf-8"). */
bool enc_is_utf8(const char *name, size_t len);

#endif
