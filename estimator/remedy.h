/* "What would make it fit": changes a user can make, each evaluated by
 * running the estimator again with the changed configuration. */
#ifndef PFC_REMEDY_H
#define PFC_REMEDY_H
#include "estimate.h"
#include "gpu.h"

/* The verdict against a card: fits when even the high end of the range
 * does, does not fit when even the low end exceeds it, borderline when the
 * range crosses the usable capacity. */
typedef enum Verdict { VERDICT_NONE, VERDICT_FITS, VERDICT_BORDERLINE, VERDICT_NO_FIT } Verdict;

typedef struct Remedy {
    const char *change;
    uint64_t projected_peak;
    bool fits;            /* the projected peak fits */
    bool combination;     /* several changes together */
    Verdict verdict;      /* with the range */
} Remedy;

typedef struct Remedies {
    ARENA_VEC(Remedy) list;
    const char *smallest_target;   /* when nothing fits: the smallest GPU, or instance with FSDP, that would */
} Remedies;

/* Per-GPU capacity for a target: usable bytes of one of its GPUs. */
bool remedy_fits(const Estimate *e, const Gpu *gpu);
/* VERDICT_NONE without a GPU. */
Verdict remedy_verdict(const Estimate *e, const Gpu *gpu);

void remedy_search(Syntax *s, const Ir *ir, const EstimateConfig *cfg, const Estimate *base,
                   const Gpu *gpu, uint32_t count, Remedies *out);

#endif
