/* The runtime code table (runtime.def) with its explain texts. */
#include "runtime.h"
#include "explain_runtime.h"
#include <strings.h>

static const RuntimeCode runtime_codes[] = {
#define RUNTIME(id, code, name, sev, summary) {code, name, sev, summary, EXPLAIN_##id},
#include "runtime.def"
#undef RUNTIME
};

const RuntimeCode *runtime_codes_all(size_t *n)
{
    *n = sizeof runtime_codes / sizeof runtime_codes[0];
    return runtime_codes;
}

const RuntimeCode *runtime_code_by_code(const char *code)
{
    for (size_t i = 0; i < sizeof runtime_codes / sizeof runtime_codes[0]; i++)
        if (strcasecmp(runtime_codes[i].code, code) == 0)
            return &runtime_codes[i];
    return NULL;
}
