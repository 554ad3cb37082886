/* libFuzzer target for the whole pipeline: any input must parse without a
 * crash, satisfy the tree invariants and re-emit byte for byte; a file without
 * syntax errors must also lower to IR, go through every rule and through the
 * estimator (configuration reading, interpretation, simulation). */
#include "../../emit/emit.h"
#include "../../estimator/estimate.h"
#include "../../passes/pass.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Arena arena;
    arena_init(&arena);
    Syntax s;
    parse_file(&s, (const char *)data, (uint32_t)size, &arena);
    parse_check_target(&s, 9);
    const char *why = check_tree(&s);
    if (why) {
        fprintf(stderr, "tree invariant broken: %s\n", why);
        abort();
    }
    Buf out = {0};
    emit_tree(&s, &out);
    if (out.n != size || (size && memcmp(out.v, data, size) != 0)) {
        fputs("round trip failed\n", stderr);
        abort();
    }
    for (uint32_t i = 0; i < s.diags.n; i++) {
        uint32_t line, col;
        syntax_line_col(&s, s.diags.v[i].start, &line, &col);
        if (!s.diags.v[i].msg || !s.diags.v[i].msg[0] || s.diags.v[i].start > size)
            abort();
    }
    if (!s.diags.n) {
        Ir ir;
        ir_build(&ir, &s);
        FindingVec findings = {0};
        passes_run(&s, &ir, &findings);
        for (uint32_t i = 0; i < findings.n; i++)
            if (findings.v[i].start > findings.v[i].end || findings.v[i].end > size)
                abort();
        EstimateConfig cfg;
        Estimate e;
        const char *not_read = NULL;
        estimate_read(&s, &ir, &cfg);
        if (estimate_run(&s, &ir, &cfg, &e, &not_read) && e.projected_peak < e.allocated_peak)
            abort();
    }
    buf_free(&out);
    arena_free(&arena);
    return 0;
}
