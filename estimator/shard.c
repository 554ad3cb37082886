/* Sharding modes and the world size they split over.
 *
 * What each mode keeps per rank, of what a replica would hold:
 *   DDP, FSDP NO_SHARD           everything (replicated)
 *   ZeRO-1                       optimizer state / ranks
 *   ZeRO-2, FSDP SHARD_GRAD_OP   state and gradients / ranks
 *   ZeRO-3, FSDP FULL_SHARD      state, gradients and weights / ranks
 *   FSDP HYBRID_SHARD            as FULL_SHARD, over the GPUs of one node
 * Sharded gradients are reduce-scattered as the backward makes them (per
 * wrapped layer), so the backward never holds them whole. */
#include "estimate.h"
#include <stdlib.h>
#include <string.h>

/* a node of the common 8-GPU servers, when LOCAL_WORLD_SIZE is not set */
enum { GPUS_PER_NODE_ASSUMED = 8 };

bool shard_splits_params(const EstimateConfig *cfg)
{
    return cfg->shard == SHARD_FSDP || cfg->shard == SHARD_FSDP_HYBRID || cfg->shard == SHARD_ZERO3;
}

bool shard_splits_grads(const EstimateConfig *cfg)
{
    return shard_splits_params(cfg) || cfg->shard == SHARD_ZERO2 || cfg->shard == SHARD_FSDP_GRAD_OP;
}

bool shard_splits_state(const EstimateConfig *cfg) { return shard_splits_grads(cfg) || cfg->shard == SHARD_ZERO1; }

uint64_t shard_ranks(const EstimateConfig *cfg)
{
    uint64_t ws = cfg->world_size > 1 ? (uint64_t)cfg->world_size : 1;
    if (cfg->shard != SHARD_FSDP_HYBRID)
        return ws;
    uint64_t node = cfg->local_world_size > 0 ? (uint64_t)cfg->local_world_size : GPUS_PER_NODE_ASSUMED;
    return node < ws ? node : ws;
}

const char *shard_name(Shard s)
{
    static const char *const names[] = {
        [SHARD_NONE] = "", [SHARD_DDP] = "DDP", [SHARD_FSDP] = "FSDP", [SHARD_ZERO1] = "ZeRO-1",
        [SHARD_ZERO2] = "ZeRO-2", [SHARD_ZERO3] = "ZeRO-3", [SHARD_FSDP_GRAD_OP] = "FSDP SHARD_GRAD_OP",
        [SHARD_FSDP_HYBRID] = "FSDP HYBRID_SHARD", [SHARD_FSDP_NONE] = "FSDP NO_SHARD",
    };
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "";
}

static bool positive(const char *s, int64_t *out)
{
    char *end;
    long long v = s ? strtoll(s, &end, 10) : 0;
    if (!s || !*s || *end || v <= 0 || v > (1ll << 30))
        return false;
    *out = v;
    return true;
}

static void assume(EstimateConfig *cfg, Arena *a, const char *s) { VEC_PUSH(a, cfg->assumptions, s); }

void estimate_world(EstimateConfig *cfg, Arena *a, int64_t option, const char *env_world,
                    const char *env_local, uint32_t count)
{
    int64_t w = 0, local = 0;
    /* DDP replicates the model: its per-rank memory does not depend on the world size */
    bool sharded = cfg->shard != SHARD_NONE && cfg->shard != SHARD_DDP;
    bool wide = sharded || cfg->distributed || cfg->shard == SHARD_DDP;
    if (option > 0) {
        w = option;
    } else if (wide && positive(env_world, &w)) {
        assume(cfg, a, arena_printf(a, "world size %lld: from WORLD_SIZE in the environment "
                                       "(as torchrun and accelerate launch set it)", (long long)w));
    } else if (sharded && count > 1) {
        w = count;
    }
    if (positive(env_local, &local))
        cfg->local_world_size = local;
    if (w)
        cfg->world_size = w;
    if (sharded && cfg->world_size <= 1)
        assume(cfg, a, "the script shards the model (FSDP/ZeRO) but the world size is unknown: one rank assumed "
                       "(--world-size N)");
    else if (cfg->distributed && cfg->shard != SHARD_DDP && cfg->world_size <= 1)
        assume(cfg, a, "the script runs distributed but nothing says how wide: one rank assumed "
                       "(--world-size N, or WORLD_SIZE as torchrun sets it)");
    if (cfg->shard == SHARD_FSDP_HYBRID && cfg->world_size > 1)
        assume(cfg, a, arena_printf(a, "HYBRID_SHARD shards within a node: %llu GPUs per node%s",
                                    (unsigned long long)shard_ranks(cfg),
                                    local ? " (LOCAL_WORLD_SIZE)" : " assumed (LOCAL_WORLD_SIZE unset)"));
}
