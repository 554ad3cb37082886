/* Every code pfc can report: the registry's rules (passes/rules.def), then
 * the codes the driver reports itself (E999 syntax, E902 I/O, TG000 unused
 * noqa). Selection, `pfc explain`, the SARIF rule table and docs/rules/ all
 * read this one list. Codes are case-insensitive on input. */
#ifndef PFC_CODES_H
#define PFC_CODES_H
#include "../passes/pass.h"
#include <stdbool.h>
#include <stddef.h>

/* The i-th code (registry rules first), or NULL past the end. */
const RuleInfo *code_nth(size_t i);
/* A code in any case ("tg001"), or NULL. */
const RuleInfo *code_lookup(const char *code);

/* Upper-cases a code or selector in place ("tg0" -> "TG0", "all" -> "ALL"). */
void code_upcase(char *s);
/* "ALL", or a non-empty prefix of some code (upper case). */
bool code_selector_known(const char *sel);
/* The known code (or code prefix of the same length) nearest to sel by edit
 * distance, for "did you mean". */
const char *code_suggest(const char *sel, char *buf, size_t size);
/* Checks selectors; on the first unknown one writes "unknown rule code or
 * prefix 'X' in WHERE (did you mean 'Y'? ...)" to err and returns false. */
bool codes_check(const char *const *v, size_t n, const char *where, char *err, size_t size);

/* Levenshtein distance, ASCII case-insensitive (short strings: names, codes). */
size_t edit_distance(const char *a, const char *b);

#endif
