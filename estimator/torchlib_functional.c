/* torch.nn.functional: activations, dropout, linear, losses,
 * scaled_dot_product_attention (convolution, pooling, padding and
 * interpolation are in torchlib_conv.c). */
#include "torchlib.h"
#include <math.h>
#include <stdlib.h>

/* ---- torch.nn.functional and tensor math ------------------------------------------------ */

static TId gpu_arg(Interp *in, const Args *a, int pos, const char *kw)
{
    return av_gpu(in, arg(a, pos, kw));
}

AVal *act(Interp *in, AVal *x, Act kind, bool inplace)
{
    TId t = av_gpu(in, x);
    return t ? tensor_result(in, tr_act(in->tr, t, kind, inplace)) : av_unknown(in);
}

AVal *cross_entropy(Interp *in, AVal *logits, AVal *target)
{
    TId l = av_gpu(in, logits);
    if (!l)
        return av_unknown(in);
    TId t = target && target->k == AV_TENSOR ? av_gpu(in, target) : 0;
    return tensor_result(in, tr_cross_entropy(in->tr, l, t));
}

static AVal *sdpa(Interp *in, Args *a)
{
    TId q = gpu_arg(in, a, 0, "query"), k = gpu_arg(in, a, 1, "key"), v = gpu_arg(in, a, 2, "value");
    if (!q || !k || !v)
        return av_unknown(in);
    AVal *out = tensor_result(in, tr_sdpa(in->tr, q, k, v, dropout_p(in, a, 4, "dropout_p", 0, "F.scaled_dot_product_attention")));
    if (out->nd == 4) {
        /* the fused kernels write (b, s, h, d) memory and return it as (b, h, s, d) */
        uint8_t p[4] = {0, 2, 1, 3};
        set_layout(out, p, 4);
    }
    return out;
}

AVal *nll_loss(Interp *in, AVal *logp, AVal *target)
{
    TId l = av_gpu(in, logp);
    return l ? tensor_result(in, tr_nll_loss(in->tr, l, target && target->k == AV_TENSOR ? av_gpu(in, target) : 0))
             : av_unknown(in);
}

/* F.relu and friends; the relu family alone honours inplace=. */
static AVal *f_activation(Interp *in, const char *name, Args *a)
{
    static const struct { const char *name; Act kind; bool inplace; } acts[] = {
        {"relu", ACT_RELU, true}, {"relu6", ACT_RELU, true}, {"leaky_relu", ACT_RELU, true},
        {"gelu", ACT_GELU, false}, {"silu", ACT_SILU, false}, {"tanh", ACT_TANH, false},
        {"sigmoid", ACT_SIGMOID, false},
    };
    for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++)
        if (eq(name, acts[i].name))
            return act(in, arg(a, 0, "input"), acts[i].kind,
                       acts[i].inplace && bool_or(a, -1, "inplace", false));
    return NULL;
}

/* F.dropout(training=False) is the identity. */
static AVal *f_dropout(Interp *in, AVal *x, Args *a)
{
    TId t = av_gpu(in, x);
    bool training = bool_or(a, 2, "training", true);
    if (!t || !training)
        return x ? x : av_unknown(in);
    return tensor_result(in, tr_dropout(in->tr, t, dropout_p(in, a, 1, "p", 0.5, "F.dropout")));
}

/* F.linear with an nn.Parameter weight (out_features x in_features). */
static AVal *f_linear(Interp *in, AVal *x, Args *a)
{
    TId t = av_gpu(in, x);
    AVal *w = arg(a, 1, "weight");
    if (!t || !w || w->k != AV_PARAM)
        return av_unknown(in);
    int64_t out = w->nd ? w->dim[0] : 0;
    return tensor_result(in, tr_linear(in->tr, t, out, w->param, 0));
}

/* The losses F.* and torch.nn share. */
static AVal *f_loss(Interp *in, const char *name, AVal *x, Args *a)
{
    if (eq(name, "cross_entropy"))
        return cross_entropy(in, x, arg(a, 1, "target"));
    if (eq(name, "nll_loss"))
        return nll_loss(in, x, arg(a, 1, "target"));
    /* elementwise losses: each keeps the difference (or its input) for the backward */
    if (eq(name, "mse_loss") || eq(name, "l1_loss") || eq(name, "smooth_l1_loss") || eq(name, "huber_loss") ||
        eq(name, "binary_cross_entropy") || eq(name, "binary_cross_entropy_with_logits") ||
        eq(name, "kl_div") || eq(name, "cosine_embedding_loss")) {
        TId t = av_gpu(in, x);
        return t ? tensor_result(in, tr_mse(in->tr, t)) : av_unknown(in);
    }
    return NULL;
}

AVal *functional(Interp *in, const char *name, Args *a)
{
    AVal *x = arg(a, 0, "input");
    AVal *r = window_functional(in, name, a);
    if (!r)
        r = f_activation(in, name, a);
    if (!r)
        r = f_loss(in, name, x, a);
    if (r)
        return r;
    if (eq(name, "softmax") || eq(name, "log_softmax")) {
        TId t = av_gpu(in, x);
        return t ? tensor_result(in, tr_softmax(in->tr, t, eq(name, "log_softmax"))) : av_unknown(in);
    }
    if (eq(name, "dropout"))
        return f_dropout(in, x, a);
    if (eq(name, "scaled_dot_product_attention"))
        return sdpa(in, a);
    if (eq(name, "linear"))
        return f_linear(in, x, a);
    if (eq(name, "layer_norm")) {
        TId t = av_gpu(in, x);
        return t ? tensor_result(in, tr_layer_norm(in->tr, t, 0, 0)) : av_unknown(in);
    }
    if (eq(name, "normalize") || eq(name, "softplus") || eq(name, "elu") || eq(name, "mish") ||
        eq(name, "hardswish") || eq(name, "softsign") || eq(name, "logsigmoid"))
        return act(in, x, ACT_GELU, false);   /* keeps its input (normalize: and the norms) */
    return assumed_op(in, x, arena_printf(in->a, "`F.%s`", name));
}
