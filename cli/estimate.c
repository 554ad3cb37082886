/* pfc estimate SCRIPT [--json]: the memory the script will need on the GPU.
 * This version reports the exact components (parameters, weights, gradients,
 * optimizer state); the peak (activations, logits, allocator slack) is not
 * modelled yet and is reported as such, never guessed. */
#include "../base/buf.h"
#include "../estimator/estimate.h"
#include "cli.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double gib(uint64_t b) { return (double)b / (double)(1ull << 30); }

static void put_json_str(Buf *b, const char *s)
{
    buf_putc(b, '"');
    buf_put_escaped(b, s, strlen(s));
    buf_putc(b, '"');
}

static void json(Buf *b, const EstimateConfig *c, const Estimate *e, const char *error)
{
    buf_puts(b, "{\n  \"allocated_peak_bytes\": null,\n  \"reserved_peak_bytes\": null,\n"
                "  \"projected_peak_bytes\": null,\n  \"projected_low_bytes\": null,\n"
                "  \"projected_high_bytes\": null,\n");
    if (error) {
        buf_puts(b, "  \"params_total\": null,\n  \"params_trainable\": null,\n"
                    "  \"breakdown\": {},\n");
    } else {
        buf_printf(b, "  \"model\": ");
        put_json_str(b, c->model_name);
        buf_printf(b,
                   ",\n  \"params_total\": %llu,\n  \"params_trainable\": %llu,\n"
                   "  \"breakdown\": {\"weights\": %llu, \"gradients\": %llu, "
                   "\"optimizer_state\": %llu},\n",
                   (unsigned long long)e->params_total, (unsigned long long)e->params_trainable,
                   (unsigned long long)e->weights, (unsigned long long)e->gradients,
                   (unsigned long long)e->optimizer_state);
    }
    buf_puts(b, "  \"target\": null,\n  \"fits\": null,\n  \"assumptions\": [");
    for (uint32_t i = 0; c && i < c->assumptions.n; i++) {
        buf_puts(b, i ? ", " : "");
        put_json_str(b, c->assumptions.v[i]);
    }
    buf_puts(b, "],\n  \"remediation\": [],\n  \"error\": ");
    if (error)
        put_json_str(b, error);
    else
        buf_puts(b, "null");
    buf_puts(b, "\n}\n");
}

static void text(Buf *b, const EstimateConfig *c, const Estimate *e)
{
    buf_printf(b, "Model      %s (built-in)   %.2f B params   (trainable %.4g M)\n",
               c->model_name, (double)e->params_total / 1e9,
               (double)e->params_trainable / 1e6);
    buf_printf(b, "Config     %s weights%s%s%s%s%s\n\n", c->weight_bytes == 2 ? "16-bit" : "fp32",
               c->autocast_bytes ? " · autocast" : "",
               c->optimizer_name ? " · " : "", c->optimizer_name ? c->optimizer_name : "",
               c->lora_r ? " · LoRA" : "", c->grad_checkpointing ? " · gradient checkpointing" : "");
    buf_printf(b, "  weights            %9.2f GiB\n", gib(e->weights));
    buf_printf(b, "  gradients          %9.2f GiB\n", gib(e->gradients));
    buf_printf(b, "  optimizer state    %9.2f GiB\n", gib(e->optimizer_state));
    buf_puts(b, "  activations, logits and the peak: not modelled yet\n");
    for (uint32_t i = 0; i < c->assumptions.n; i++)
        buf_printf(b, "  assumed: %s\n", c->assumptions.v[i]);
}

int cmd_estimate(int argc, char **argv)
{
    const char *path = NULL;
    bool as_json = false;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            as_json = true;
        else if (argv[i][0] == '-')
            return usage_error("estimate: unknown option '%s' (this version reads --json)", argv[i]);
        else if (path)
            return usage_error("estimate expects one script");
        else
            path = argv[i];
    }
    if (!path)
        return usage_error("estimate expects a script");
    char *src;
    Arena arena;
    Syntax s;
    if (cli_parse_file(path, &src, &arena, &s) >= 0)
        return EXIT_USAGE;
    const char *why = NULL;
    EstimateConfig cfg;
    Estimate e;
    memset(&cfg, 0, sizeof cfg);
    if (s.diags.n) {
        why = "the script has syntax errors (pfc lint shows them)";
    } else {
        Ir ir;
        ir_build(&ir, &s);
        if (estimate_read(&s, &ir, &cfg, &why))
            estimate_components(&cfg, &e);
    }
    Buf out = {0};
    if (as_json)
        json(&out, &cfg, &e, why);
    else if (why)
        fprintf(stderr, "pfc: estimate: %s: %s\n", path, why);
    else
        text(&out, &cfg, &e);
    buf_write(&out, stdout);
    buf_free(&out);
    arena_free(&arena);
    free(src);
    return why ? EXIT_FINDINGS : EXIT_CLEAN;
}
