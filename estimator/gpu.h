/* The GPU catalog and cloud instances known by name. */
#ifndef PFC_GPU_H
#define PFC_GPU_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct Gpu {
    const char *id, *name;
    uint32_t marketed_gb;
    uint64_t usable_bytes;
    bool bf16;
} Gpu;

typedef struct Instance {
    const char *name, *provider, *gpu_id;
    uint32_t count;
} Instance;

const Gpu *gpu_all(size_t *n);
const Instance *instance_all(size_t *n);
const Gpu *gpu_find(const char *id);

/* A --gpu argument: a GPU id ("a100-80gb", "h100") or an instance name
 * ("p4de.24xlarge"; Azure's with or without "Standard_"), case-insensitive.
 * Returns false when unknown. */
bool gpu_target(const char *name, const Gpu **gpu, uint32_t *count);

#endif
