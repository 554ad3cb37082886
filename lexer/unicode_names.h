/* Which \N{NAME} escapes CPython accepts, per version. Generated tables: see
 * lexer/unicode_names_data.h and tests/tools/gen_unicode_names.py.
 *
 * CPython folds ASCII case for table names ("bullet" is BULLET) but computes
 * "CJK UNIFIED IDEOGRAPH-XXXX" (upper-case hex, 4 or 5 digits) and
 * "HANGUL SYLLABLE ..." names, which must be written in upper case. Named
 * sequences are not accepted by \N; formal aliases ("NULL", "BOM") are. */
#ifndef PFC_UNICODE_NAMES_H
#define PFC_UNICODE_NAMES_H
#include <stddef.h>

/* The first Python 3 minor version (9..13) whose \N accepts NAME, or -1 when
 * none does. Names are matched by a 32-bit hash, so about one misspelling in
 * 120,000 is taken for a real name. */
int uni_name_min_minor(const char *name, size_t len);

#endif
