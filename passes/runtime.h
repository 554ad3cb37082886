/* The runtime codes (runtime.def): what `pfc audit` reports beyond the lint
 * rules. A separate table from the rules so that lint never offers them. */
#ifndef PFC_RUNTIME_H
#define PFC_RUNTIME_H
#include "../base/finding.h"
#include <stddef.h>

typedef struct RuntimeCode {
    const char *code, *name;
    Severity severity;
    const char *summary, *explain;
} RuntimeCode;

const RuntimeCode *runtime_codes_all(size_t *n);
/* Case-insensitive: "tg401" finds TG401. NULL when not a runtime code. */
const RuntimeCode *runtime_code_by_code(const char *code);

#endif
