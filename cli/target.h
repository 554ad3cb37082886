/* TG901 projected-oom: with a target GPU ([tool.pfc] target_gpu, or pfc lint
 * --target-gpu), pfc lint runs the memory estimator on each file that holds
 * a training loop and reports, at the loop, a step that would not fit. */
#ifndef PFC_TARGET_H
#define PFC_TARGET_H
#include "../base/finding.h"
#include "../estimator/gpu.h"
#include "../ir/ir.h"

typedef struct LintTarget {
    const char *spelling;   /* as the user wrote it, for the message */
    const Gpu *gpu;
    uint32_t count;         /* GPUs of an instance; 1 for a GPU */
    int64_t world_size;     /* target-world-size; 0 when unset */
} LintTarget;

/* Resolves a GPU or instance name; false when the catalog does not hold it. */
bool lint_target_resolve(const char *name, int64_t world_size, LintTarget *out);

/* Appends a TG901 finding to *out when the file holds a training loop and the
 * estimator is confident that one step needs more than a GPU of the target
 * holds. Silent when it cannot estimate the script, or when the estimate
 * rests on a guess that could have made it too high. The help names the
 * path as linted, for `pfc estimate PATH`. Arena: s->arena. */
void lint_target_check(Syntax *s, const char *path, const Ir *ir, const LintTarget *t,
                       FindingVec *out);

#endif
