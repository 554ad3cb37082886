/* pfc gpus / pfc archs: what the estimator knows by name. */
#include "../estimator/arch.h"
#include "../estimator/diffusers.h"
#include "../estimator/gpu.h"
#include "../estimator/vision.h"
#include "cli.h"
#include <stdio.h>

static double gib(uint64_t bytes) { return (double)bytes / (double)(1ull << 30); }

int cmd_gpus(int argc, char **argv)
{
    (void)argv;
    if (argc)
        return usage_error("gpus takes no arguments");
    size_t n;
    const Gpu *g = gpu_all(&n);
    printf("%-14s %-30s %9s %12s  %s\n", "GPU", "name", "marketed", "usable", "bf16");
    for (size_t i = 0; i < n; i++)
        printf("%-14s %-30s %7u GB %8.1f GiB  %s\n", g[i].id, g[i].name, g[i].marketed_gb,
               gib(g[i].usable_bytes), g[i].bf16 ? "yes" : "no");
    const Instance *in = instance_all(&n);
    printf("\n%-28s %-6s %s\n", "instance", "cloud", "GPUs");
    for (size_t i = 0; i < n; i++)
        printf("%-28s %-6s %u x %s\n", in[i].name, in[i].provider, in[i].count, in[i].gpu_id);
    return EXIT_CLEAN;
}

static uint64_t vision_param_count(const char *name);
static uint64_t unet_param_count(const char *name);

int cmd_archs(int argc, char **argv)
{
    (void)argv;
    if (argc)
        return usage_error("archs takes no arguments");
    size_t n;
    const Arch *a = arch_all(&n);
    printf("%-55s %-8s %6s %7s %15s\n", "model", "family", "layers", "hidden", "parameters");
    for (size_t i = 0; i < n; i++)
        printf("%-55s %-8s %6u %7u %15llu\n", a[i].name, arch_family_name(a[i].family),
               a[i].layers, a[i].hidden, (unsigned long long)arch_params(&a[i]));
    printf("\ntorchvision (torchvision.models.NAME, 1000 classes)\n");
    size_t nv;
    const char *const *names = vision_names(&nv);
    for (size_t i = 0; i < nv; i++)
        printf("%-55s %-8s %6s %7s %15llu\n", names[i], "vision", "", "",
               (unsigned long long)vision_param_count(names[i]));
    printf("\ndiffusers UNets (UNet2DConditionModel.from_pretrained(NAME, subfolder=\"unet\"), "
           "UNet2DModel.from_pretrained(NAME))\n");
    names = diffusers_names(&nv);
    for (size_t i = 0; i < nv; i++)
        printf("%-55s %-8s %6s %7s %15llu\n", names[i], "unet", "", "", (unsigned long long)unet_param_count(names[i]));
    return EXIT_CLEAN;
}

/* A torchvision model's parameters: recorded once on a small input. */
static uint64_t vision_param_count(const char *name)
{
    Arena arena;
    arena_init(&arena);
    Trace tr;
    tr_init(&tr, &arena);
    TId logits;
    ParamTotals pt = {0};
    if (vision_build(&tr, name, 1, 224, 1000, &logits))
        tr_param_totals(&tr, &pt);
    arena_free(&arena);
    return pt.total;
}

/* A known UNet's parameters: recorded once on one sample of its side. */
static uint64_t unet_param_count(const char *name)
{
    UNetConfig c;
    if (!diffusers_known(name, &c))
        return 0;
    Arena arena;
    arena_init(&arena);
    Trace tr;
    tr_init(&tr, &arena);
    UNetInputs x = {.batch = 1, .height = c.sample_size, .width = c.sample_size};
    TId out;
    ParamTotals pt = {0};
    if (diffusers_build(&tr, &c, &x, &out))
        tr_param_totals(&tr, &pt);
    arena_free(&arena);
    return pt.total;
}
