/* Unicode identifier character classes, matching CPython's tokenizer
 * (_PyUnicode_ScanIdentifier). Generated tables: see lexer/unicode_id.c and
 * tests/tools/gen_unicode_id.py. Correct for ASCII too, but callers should
 * fast-path ASCII. Surrogates and values above U+10FFFF are never accepted. */
#ifndef PFC_UNICODE_ID_H
#define PFC_UNICODE_ID_H
#include <stdbool.h>
#include <stdint.h>

bool uni_is_id_start(uint32_t cp);     /* XID_Start or '_' */
bool uni_is_id_continue(uint32_t cp);  /* XID_Continue (includes digits and '_') */

#endif
