/* Models known by name: Hugging Face from_pretrained (the architecture
 * snapshot, recorded by hf.c) and torchvision constructors (vision.c), as
 * interpreter hooks. */
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

#endif
