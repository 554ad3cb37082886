/* What a training or evaluation loop keeps from one iteration to the next. */
#ifndef PFC_LEAK_H
#define PFC_LEAK_H
#include "interp.h"

typedef struct Target {
    int fi;
    ValueId v;          /* the value evaluated: backward()'s receiver, or the model call */
    ValueId call;       /* the backward() / train() / model call itself */
    bool training;
} Target;

/* Bytes kept by the end of the loop around the target beyond one iteration:
 * a loop-carried value attached to the graph (the graph of every iteration
 * stays) or tensors appended to a list each iteration. */
uint64_t estimate_retained(Syntax *s, const Ir *ir, Interp *in, const Target *t, const PassMemory *m,
                           int64_t *iterations, const char **what);

/* Evaluates what an evaluation loop carries (a loss computed outside the model). */
void loop_carried_values(Syntax *s, const Ir *ir, Interp *in, const Target *t);
/* The trip count of an inner loop that calls backward() while step() is
 * outside it (gradient accumulation), or 1. */
int64_t loop_accumulation(Syntax *s, const Ir *ir, Interp *in, const Target *t);

#endif
