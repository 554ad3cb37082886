/* Models known by name: Hugging Face from_pretrained (the architecture
 * snapshot, recorded by hf.c), torchvision constructors (vision.c) and
 * diffusers' UNets (diffusers.c), as interpreter hooks. */
#ifndef PFC_LIBRARY_H
#define PFC_LIBRARY_H
#include "estimate.h"
#include "interp.h"

typedef struct LibraryCtx {
    const EstimateConfig *cfg;
    Trace *tr;
    const char *model_name;    /* the last model created */
    TId logits;                /* the last model call's output (the head's start) */
    uint32_t head_op;          /* trace op index where the logits/loss part begins */
    int64_t batch, seq;        /* seen at the model call */
    int64_t image;             /* a torchvision model's input side */
    bool hf;
    bool training_target;      /* the step ends in backward() */
    const char *error;
} LibraryCtx;

void library_hooks(LibraryCtx *ctx, InterpHooks *out);

/* Shared by library.c and library_diffusers.c. */
/* The argument called `name`, or else the pos-th positional one (pos < 0: none). */
AVal *library_kwarg(AVal **args, const char **kw, uint32_t n, const char *name, int pos);
/* from_pretrained's model name (the script's, else --model); NULL with ctx->error. */
const char *library_model_name(LibraryCtx *lc, Interp *in, AVal **args, const char **kw, uint32_t n);
/* The script's input is replaced by the builder's (same shape): not kept. */
void library_release(Interp *in, AVal *x);
/* diffusers (library_diffusers.c): a UNet2DModel / UNet2DConditionModel, a
 * pipeline, or a component pfc does not model: 1 when it sets up *out, -1
 * when it refuses (ctx->error), 0 when the call is not diffusers'. */
int library_diffusers_model(LibraryCtx *lc, Interp *in, const char *qual, AVal **args, const char **kw,
                            uint32_t n, Obj *out);
/* Calling an NN_DIFFUSERS model: records its forward, returns its output. */
AVal *library_call_diffusers(LibraryCtx *lc, Interp *in, Obj *m, AVal **args, const char **kw, uint32_t n);

#endif
