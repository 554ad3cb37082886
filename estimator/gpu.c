#include "gpu.h"
#include <string.h>
#include <strings.h>

static const Gpu gpus[] = {
#define MIB(n) ((uint64_t)(n) << 20)
#define GPU(id, name, gb, bytes, bf16) {id, name, gb, bytes, bf16},
#include "gpus.def"
#undef GPU
};

static const Instance instances[] = {
#define INSTANCE(name, provider, gpu, count) {name, provider, gpu, count},
#include "instances.def"
#undef INSTANCE
};

const Gpu *gpu_all(size_t *n)
{
    *n = sizeof gpus / sizeof gpus[0];
    return gpus;
}

const Instance *instance_all(size_t *n)
{
    *n = sizeof instances / sizeof instances[0];
    return instances;
}

const Gpu *gpu_find(const char *id)
{
    for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++)
        if (strcasecmp(gpus[i].id, id) == 0)
            return &gpus[i];
    return NULL;
}

bool gpu_target(const char *name, const Gpu **gpu, uint32_t *count)
{
    const Gpu *g = gpu_find(name);
    if (g) {
        *gpu = g;
        *count = 1;
        return true;
    }
    /* Azure's VM sizes are also written without their "Standard_" tier
     * (ND96amsr_A100_v4, as Azure's own pages and PRODUCT.md do) */
    const char *tier = "Standard_";
    for (size_t i = 0; i < sizeof instances / sizeof instances[0]; i++)
        if ((strcasecmp(instances[i].name, name) == 0 ||
             (strncasecmp(instances[i].name, tier, strlen(tier)) == 0 &&
              strcasecmp(instances[i].name + strlen(tier), name) == 0)) &&
            (g = gpu_find(instances[i].gpu_id))) {
            *gpu = g;
            *count = instances[i].count;
            return true;
        }
    return false;
}
