/* torchvision's classification models as trace recordings (see vision.h).
 *
 * Every builder mirrors the module structure of torchvision 0.26
 * (the files under torchvision/models and torchvision/ops/misc.py) op by op, so that
 * trace.c's rules decide what is saved for the backward:
 *   - Conv2dNormActivation: conv without bias, BatchNorm, activation with
 *     inplace=True (ReLU/ReLU6 in place save their result; in-place SiLU and
 *     Hardswish save a clone of their input);
 *   - SqueezeExcitation: adaptive average pool, 1x1 conv with bias,
 *     activation, 1x1 conv with bias, sigmoid/hardsigmoid, scale * input;
 *   - StochasticDepth ("row"): in training, input * noise with a (N, 1, 1, 1)
 *     Bernoulli mask in the input's dtype (the product saves the mask only);
 *   - nn.Dropout(inplace=True) multiplies by a full-size noise tensor of the
 *     input's dtype (no fused kernel in place), nn.Dropout by a bool mask;
 *   - residual `out += identity` is recorded as an add (it saves nothing; the
 *     simulation then allocates a new block where PyTorch reuses one);
 *   - DenseNet (memory_efficient=False) concatenates all earlier features
 *     before every dense layer: a real cat that BatchNorm saves;
 *   - ViT's encoder block runs nn.MultiheadAttention the way it does in
 *     training (F.multi_head_attention_forward, need_weights=False): the
 *     batch-first input is transposed, the packed in-projection folds the
 *     non-contiguous view into a (S*N, E) copy that the matmul saves, the
 *     projection is rearranged into a contiguous (3, S, N, E) copy whose views
 *     are q, k and v for scaled_dot_product_attention (flash/cuDNN in 16 bits:
 *     saves q, k, v, output, log-sum-exp), and the attention output feeds the
 *     out-projection (copied first only by the fp32 kernel, see vit_block);
 *   - MaxViT's partition attention runs its einsums as ATen does (operands
 *     permuted and reshaped for bmm: copies that bmm saves) with an explicit
 *     softmax; it is not calibrated (no measurement in shared/calibration).
 * Against shared/calibration's H200 measurements the activations saved for
 * the backward agree within 1% (resnet18/50/101, efficientnet_b0,
 * mobilenet_v3_large, vit_b_16; densenet121 once avg_pool2d saves its input).
 * Parameters are created with the exact shapes torchvision gives them
 * (grouped convs hold cout * cin / groups * k * k weights), so the totals equal
 * the published num_params. BatchNorm's running statistics are buffers. */
#include "checked.h"
#include "vision.h"
#include <math.h>
#include <string.h>

/* ---- helpers over the trace API --------------------------------------------------------- */

#define NO_ACT (-1)

static TId root_of(const Trace *tr, TId x)
{
    while (x && tr->t.v[x].base)
        x = tr->t.v[x].base;
    return x;
}

static int64_t chans(const Trace *tr, TId x) { return tr_dim(tr, x, 1); }

/* The dtype autocast runs a matmul-like op in. */
static DType ac_dtype(const Trace *tr, DType dt)
{
    return tr->autocast_on && dt == DT_F32 ? tr->autocast : dt;
}

/* A tensor the model makes itself (a random mask, a parameter used as an
 * operand): not an input the script holds, so not kept past its last use. */
static TId fresh(Trace *tr, DType dt, int nd, const int64_t *dim, bool grad)
{
    TId t = tr_input(tr, dt, nd, dim);
    tr->t.v[t].kept = false;
    tr->t.v[t].grad = grad && !tr->no_grad;
    return t;
}

/* An nn.Parameter used directly as a tensor operand (layer scale, class
 * token, position embedding): counted as a parameter, recorded as a leaf that
 * requires grad so the ops consuming it save what its gradient needs. */
static TId param_tensor(Trace *tr, int nd, const int64_t *dim)
{
    uint32_t p = tr_param(tr, ck_numel(dim, nd));
    bool trains = tr->params.v[p - 1].trainable;
    return fresh(tr, tr->weight_dtype, nd, dim, trains);
}

static TId conv(Trace *tr, TId x, int64_t cout, int k, int stride, int pad, int groups, bool bias)
{
    int64_t cin = chans(tr, x);
    uint64_t per_group = (uint64_t)(groups > 0 && cin / groups > 0 ? cin / groups : 1);
    uint32_t w = tr_param(tr, ck_mul(ck_mul((uint64_t)cout, per_group), (uint64_t)k * (uint64_t)k));
    uint32_t b = bias ? tr_param(tr, (uint64_t)cout) : 0;
    return tr_conv2d(tr, x, cout, k, stride, pad, groups, w, b);
}

static TId bn(Trace *tr, TId x)
{
    uint64_t c = (uint64_t)chans(tr, x);
    uint32_t w = tr_param(tr, c);
    uint32_t b = tr_param(tr, c);
    tr_buffer(tr, ck_mul(c, dtype_size(tr->weight_dtype)));   /* running_mean */
    tr_buffer(tr, ck_mul(c, dtype_size(tr->weight_dtype)));   /* running_var */
    tr_buffer(tr, 8);                                  /* num_batches_tracked (int64) */
    return tr_batch_norm(tr, x, w, b);
}

static TId ln(Trace *tr, TId x)
{
    uint64_t c = (uint64_t)tr_dim(tr, x, -1);
    uint32_t w = tr_param(tr, c);
    uint32_t b = tr_param(tr, c);
    return tr_layer_norm(tr, x, w, b);
}

static TId linear(Trace *tr, TId x, int64_t out, bool bias)
{
    int64_t in = tr_dim(tr, x, -1);
    uint32_t w = tr_param(tr, ck_mul((uint64_t)in, (uint64_t)out));
    uint32_t b = bias ? tr_param(tr, (uint64_t)out) : 0;
    return tr_linear(tr, x, out, w, b);
}

/* The classifier's last layer, the one `model.fc = nn.Linear(...)`
 * replaces: it trains as the replacement did (tr->head_grad), even in
 * a model frozen around it. */
static void head_params(Trace *tr, uint32_t w, uint32_t b)
{
    tr->head_w = w;
    tr->head_b = b;
    if (tr->head_grad == HEAD_AS_MODEL)
        return;
    if (w)
        tr->params.v[w - 1].trainable = tr->head_grad == HEAD_TRAINS;
    if (b)
        tr->params.v[b - 1].trainable = tr->head_grad == HEAD_TRAINS;
}

static TId classifier(Trace *tr, TId x, int64_t out, bool bias)
{
    int64_t in = tr_dim(tr, x, -1);
    uint32_t w = tr_param(tr, ck_mul((uint64_t)in, (uint64_t)out));
    uint32_t b = bias ? tr_param(tr, (uint64_t)out) : 0;
    head_params(tr, w, b);
    return tr_linear(tr, x, out, w, b);
}

/* SqueezeNet's classifier is a 1x1 convolution with bias. */
static TId classifier_conv(Trace *tr, TId x, int64_t nc)
{
    int64_t cin = chans(tr, x);
    uint32_t w = tr_param(tr, ck_mul((uint64_t)nc, (uint64_t)cin));
    uint32_t b = tr_param(tr, (uint64_t)nc);
    head_params(tr, w, b);
    return tr_conv2d(tr, x, nc, 1, 1, 0, 1, w, b);
}

static TId act(Trace *tr, TId x, int a, bool inplace)
{
    return a < 0 ? x : tr_act(tr, x, (Act)a, inplace);
}

/* torchvision.ops.Conv2dNormActivation: padding (k-1)/2, bias=False under a
 * norm, BatchNorm2d, activation(inplace=True). */
static TId cna(Trace *tr, TId x, int64_t cout, int k, int stride, int groups, int a)
{
    x = conv(tr, x, cout, k, stride, (k - 1) / 2, groups, false);
    x = bn(tr, x);
    return act(tr, x, a, true);
}

/* torch.flatten(x, 1) of a contiguous tensor: a view. */
static TId flatten(Trace *tr, TId x)
{
    int64_t n = tr_dim(tr, x, 0);
    int64_t d[2] = {n, n > 0 ? (int64_t)(tr_numel(tr, x) / (uint64_t)n) : 0};
    return tr_view(tr, x, 2, d);
}

/* (N, C, H, W) <-> (N, H, W, C) permutes: views. */
static TId permute_nhwc(Trace *tr, TId x)
{
    int64_t d[4] = {tr_dim(tr, x, 0), tr_dim(tr, x, 2), tr_dim(tr, x, 3), tr_dim(tr, x, 1)};
    return tr_view(tr, x, 4, d);
}

static TId permute_nchw(Trace *tr, TId x)
{
    int64_t d[4] = {tr_dim(tr, x, 0), tr_dim(tr, x, 3), tr_dim(tr, x, 1), tr_dim(tr, x, 2)};
    return tr_view(tr, x, 4, d);
}

/* torch.cat of any number of tensors. tr_cat records at most TR_MAXIN inputs
 * on its op; the others are read by the same op, so their lifetime in the
 * forward extends to it as well. */
static TId cat_all(Trace *tr, const TId *xs, int n, int axis)
{
    TId y = tr_cat(tr, xs, n, axis);
    for (int i = TR_MAXIN; i < n && tr->ops.n; i++) {
        TId r = root_of(tr, xs[i]);
        if (r && tr->t.v[r].last_use < tr->ops.n)
            tr->t.v[r].last_use = tr->ops.n;
    }
    return y;
}

/* torchvision.ops.StochasticDepth(p, "row"): identity in eval or at p = 0,
 * else input * noise, noise a (N, 1, ..., 1) Bernoulli mask in the input's
 * dtype; the product saves the mask (the input's gradient needs it). */
static TId stochastic_depth(Trace *tr, TId x, double p)
{
    if (!tr->training || p <= 0)
        return x;
    int64_t d[TR_MAXDIM];
    int nd = tr->t.v[x].nd;
    for (int i = 0; i < nd; i++)
        d[i] = i ? 1 : tr_dim(tr, x, 0);
    TId noise = fresh(tr, tr_dtype(tr, x), nd, d, false);
    return tr_mul(tr, x, noise);
}

/* nn.Dropout(p, inplace=True): ATen's in-place dropout has no fused kernel; it
 * draws a noise tensor of the input's shape and dtype and multiplies in place,
 * so the product saves that full-size noise (not a bool mask). */
static TId dropout_inplace(Trace *tr, TId x, double p)
{
    if (!tr->training || p <= 0)
        return x;
    int64_t dim[TR_MAXDIM];
    int nd = tr->t.v[x].nd;
    memcpy(dim, tr->t.v[x].dim, sizeof dim);
    TId noise = fresh(tr, tr_dtype(tr, x), nd, dim, false);
    return tr_mul(tr, x, noise);
}

/* torchvision.ops.SqueezeExcitation: scale = sigma(fc2(delta(fc1(avgpool(x))))),
 * out = scale * x (the product saves both operands). */
static TId squeeze_excite(Trace *tr, TId x, int64_t squeeze, Act delta, bool delta_inplace, Act sigma)
{
    int64_t c = chans(tr, x);
    TId s = tr_adaptive_pool(tr, x, 1, 1);
    s = conv(tr, s, squeeze, 1, 1, 0, 1, true);
    s = tr_act(tr, s, delta, delta_inplace);
    s = conv(tr, s, c, 1, 1, 0, 1, true);
    s = tr_act(tr, s, sigma, false);
    return tr_mul(tr, s, x);
}

/* torchvision.models._utils._make_divisible */
static int64_t make_divisible(double v, int64_t divisor, int64_t min_value)
{
    if (min_value <= 0)
        min_value = divisor;
    int64_t nv = (int64_t)(v + (double)divisor / 2) / divisor * divisor;
    if (nv < min_value)
        nv = min_value;
    if ((double)nv < 0.9 * v)
        nv += divisor;
    return nv;
}

/* avgpool to 1x1, flatten */
static TId pool_flatten(Trace *tr, TId x)
{
    return flatten(tr, tr_adaptive_pool(tr, x, 1, 1));
}

/* ---- the model table -------------------------------------------------------------------- */

typedef enum Family {
    F_RESNET, F_VGG, F_DENSENET, F_EFFNET, F_EFFNET_V2, F_MOBILENET_V2, F_MOBILENET_V3,
    F_VIT, F_CONVNEXT, F_REGNET, F_ALEXNET, F_SQUEEZENET, F_SHUFFLENET, F_MNASNET, F_GOOGLENET,
    F_INCEPTION, F_SWIN, F_MAXVIT
} Family;

typedef struct VModel {
    const char *name;
    Family fam;
    int32_t i[8];
    double f[4];
} VModel;

/* name, family, integer settings, real settings:
 *  resnet:     bottleneck, layers x4, groups, width_per_group
 *  vgg:        config (0 A, 1 B, 2 D, 3 E), batch norm
 *  densenet:   growth rate, initial features, layers per block x4
 *  effnet:     -; width_mult, depth_mult, dropout
 *  effnet_v2:  variant (0 s, 1 m, 2 l); dropout
 *  mobilenet_v3: large
 *  vit:        patch, layers, heads, hidden, mlp
 *  convnext:   dims x4, depths x4; stochastic depth probability
 *  regnet:     depth, w_0, group_width; w_a, w_m, se_ratio
 *  squeezenet: version (0 1.0, 1 1.1)
 *  shufflenet: stage output channels x3, last conv channels
 *  mnasnet:    -; width multiplier (alpha)
 *  swin:       embed dim, depths x4, window, v2; stochastic depth probability
 *  maxvit:     stem channels, first block channels (doubled per block), layers x4, head dim,
 *              partition size; stochastic depth probability */
#define VISION_MODELS(X) \
    X("resnet18", F_RESNET, {0, 2, 2, 2, 2, 1, 64}, {0}) \
    X("resnet34", F_RESNET, {0, 3, 4, 6, 3, 1, 64}, {0}) \
    X("resnet50", F_RESNET, {1, 3, 4, 6, 3, 1, 64}, {0}) \
    X("resnet101", F_RESNET, {1, 3, 4, 23, 3, 1, 64}, {0}) \
    X("resnet152", F_RESNET, {1, 3, 8, 36, 3, 1, 64}, {0}) \
    X("resnext50_32x4d", F_RESNET, {1, 3, 4, 6, 3, 32, 4}, {0}) \
    X("resnext101_32x8d", F_RESNET, {1, 3, 4, 23, 3, 32, 8}, {0}) \
    X("resnext101_64x4d", F_RESNET, {1, 3, 4, 23, 3, 64, 4}, {0}) \
    X("wide_resnet50_2", F_RESNET, {1, 3, 4, 6, 3, 1, 128}, {0}) \
    X("wide_resnet101_2", F_RESNET, {1, 3, 4, 23, 3, 1, 128}, {0}) \
    X("vgg11", F_VGG, {0, 0}, {0}) \
    X("vgg11_bn", F_VGG, {0, 1}, {0}) \
    X("vgg13", F_VGG, {1, 0}, {0}) \
    X("vgg13_bn", F_VGG, {1, 1}, {0}) \
    X("vgg16", F_VGG, {2, 0}, {0}) \
    X("vgg16_bn", F_VGG, {2, 1}, {0}) \
    X("vgg19", F_VGG, {3, 0}, {0}) \
    X("vgg19_bn", F_VGG, {3, 1}, {0}) \
    X("densenet121", F_DENSENET, {32, 64, 6, 12, 24, 16}, {0}) \
    X("densenet161", F_DENSENET, {48, 96, 6, 12, 36, 24}, {0}) \
    X("densenet169", F_DENSENET, {32, 64, 6, 12, 32, 32}, {0}) \
    X("densenet201", F_DENSENET, {32, 64, 6, 12, 48, 32}, {0}) \
    X("efficientnet_b0", F_EFFNET, {0}, {1.0, 1.0, 0.2}) \
    X("efficientnet_b1", F_EFFNET, {0}, {1.0, 1.1, 0.2}) \
    X("efficientnet_b2", F_EFFNET, {0}, {1.1, 1.2, 0.3}) \
    X("efficientnet_b3", F_EFFNET, {0}, {1.2, 1.4, 0.3}) \
    X("efficientnet_b4", F_EFFNET, {0}, {1.4, 1.8, 0.4}) \
    X("efficientnet_b5", F_EFFNET, {0}, {1.6, 2.2, 0.4}) \
    X("efficientnet_b6", F_EFFNET, {0}, {1.8, 2.6, 0.5}) \
    X("efficientnet_b7", F_EFFNET, {0}, {2.0, 3.1, 0.5}) \
    X("efficientnet_v2_s", F_EFFNET_V2, {0}, {0.2}) \
    X("efficientnet_v2_m", F_EFFNET_V2, {1}, {0.3}) \
    X("efficientnet_v2_l", F_EFFNET_V2, {2}, {0.4}) \
    X("mobilenet_v2", F_MOBILENET_V2, {0}, {0}) \
    X("mobilenet_v3_large", F_MOBILENET_V3, {1}, {0}) \
    X("mobilenet_v3_small", F_MOBILENET_V3, {0}, {0}) \
    X("vit_b_16", F_VIT, {16, 12, 12, 768, 3072}, {0}) \
    X("vit_b_32", F_VIT, {32, 12, 12, 768, 3072}, {0}) \
    X("vit_l_16", F_VIT, {16, 24, 16, 1024, 4096}, {0}) \
    X("vit_l_32", F_VIT, {32, 24, 16, 1024, 4096}, {0}) \
    X("vit_h_14", F_VIT, {14, 32, 16, 1280, 5120}, {0}) \
    X("convnext_tiny", F_CONVNEXT, {96, 192, 384, 768, 3, 3, 9, 3}, {0.1}) \
    X("convnext_small", F_CONVNEXT, {96, 192, 384, 768, 3, 3, 27, 3}, {0.4}) \
    X("convnext_base", F_CONVNEXT, {128, 256, 512, 1024, 3, 3, 27, 3}, {0.5}) \
    X("convnext_large", F_CONVNEXT, {192, 384, 768, 1536, 3, 3, 27, 3}, {0.5}) \
    X("regnet_y_400mf", F_REGNET, {16, 48, 8}, {27.89, 2.09, 0.25}) \
    X("regnet_y_800mf", F_REGNET, {14, 56, 16}, {38.84, 2.4, 0.25}) \
    X("regnet_y_1_6gf", F_REGNET, {27, 48, 24}, {20.71, 2.65, 0.25}) \
    X("regnet_y_3_2gf", F_REGNET, {21, 80, 24}, {42.63, 2.66, 0.25}) \
    X("regnet_y_8gf", F_REGNET, {17, 192, 56}, {76.82, 2.19, 0.25}) \
    X("regnet_y_16gf", F_REGNET, {18, 200, 112}, {106.23, 2.48, 0.25}) \
    X("regnet_y_32gf", F_REGNET, {20, 232, 232}, {115.89, 2.53, 0.25}) \
    X("regnet_y_128gf", F_REGNET, {27, 456, 264}, {160.83, 2.52, 0.25}) \
    X("regnet_x_400mf", F_REGNET, {22, 24, 16}, {24.48, 2.54, 0}) \
    X("regnet_x_800mf", F_REGNET, {16, 56, 16}, {35.73, 2.28, 0}) \
    X("regnet_x_1_6gf", F_REGNET, {18, 80, 24}, {34.01, 2.25, 0}) \
    X("regnet_x_3_2gf", F_REGNET, {25, 88, 48}, {26.31, 2.25, 0}) \
    X("regnet_x_8gf", F_REGNET, {23, 80, 120}, {49.56, 2.88, 0}) \
    X("regnet_x_16gf", F_REGNET, {22, 216, 128}, {55.59, 2.1, 0}) \
    X("regnet_x_32gf", F_REGNET, {23, 320, 168}, {69.86, 2.0, 0}) \
    X("alexnet", F_ALEXNET, {0}, {0}) \
    X("squeezenet1_0", F_SQUEEZENET, {0}, {0}) \
    X("squeezenet1_1", F_SQUEEZENET, {1}, {0}) \
    X("shufflenet_v2_x0_5", F_SHUFFLENET, {48, 96, 192, 1024}, {0}) \
    X("shufflenet_v2_x1_0", F_SHUFFLENET, {116, 232, 464, 1024}, {0}) \
    X("shufflenet_v2_x1_5", F_SHUFFLENET, {176, 352, 704, 1024}, {0}) \
    X("shufflenet_v2_x2_0", F_SHUFFLENET, {244, 488, 976, 2048}, {0}) \
    X("mnasnet0_5", F_MNASNET, {0}, {0.5}) \
    X("mnasnet0_75", F_MNASNET, {0}, {0.75}) \
    X("mnasnet1_0", F_MNASNET, {0}, {1.0}) \
    X("mnasnet1_3", F_MNASNET, {0}, {1.3}) \
    X("googlenet", F_GOOGLENET, {0}, {0}) \
    X("inception_v3", F_INCEPTION, {0}, {0}) \
    X("swin_t", F_SWIN, {96, 2, 2, 6, 2, 7, 0}, {0.2}) \
    X("swin_s", F_SWIN, {96, 2, 2, 18, 2, 7, 0}, {0.3}) \
    X("swin_b", F_SWIN, {128, 2, 2, 18, 2, 7, 0}, {0.5}) \
    X("swin_v2_t", F_SWIN, {96, 2, 2, 6, 2, 8, 1}, {0.2}) \
    X("swin_v2_s", F_SWIN, {96, 2, 2, 18, 2, 8, 1}, {0.3}) \
    X("swin_v2_b", F_SWIN, {128, 2, 2, 18, 2, 8, 1}, {0.5}) \
    X("maxvit_t", F_MAXVIT, {64, 64, 2, 2, 5, 2, 32, 7}, {0.2})

/* Configurations torchvision does not ship, built for timm's names (timm.c);
 * the "timm:" prefix keeps them out of torchvision.models' namespace. */
#define TIMM_ONLY_MODELS(X) \
    X("timm:vit_tiny_patch16_224", F_VIT, {16, 12, 3, 192, 768}, {0}) \
    X("timm:vit_small_patch16_224", F_VIT, {16, 12, 6, 384, 1536}, {0})

#define AS_MODEL(name, fam, ...) {name, fam, __VA_ARGS__},
#define AS_NAME(name, fam, ...) name,
static const VModel models[] = {VISION_MODELS(AS_MODEL) TIMM_ONLY_MODELS(AS_MODEL)};
static const char *const model_names[] = {VISION_MODELS(AS_NAME)};
#define NMODELS (sizeof models / sizeof models[0])

const char *const *vision_names(size_t *n)
{
    *n = sizeof model_names / sizeof model_names[0];
    return model_names;
}

/* ---- ResNet, ResNeXt, Wide ResNet (resnet.py) --------------------------------------------- */

static TId resnet_basic(Trace *tr, TId x, int64_t planes, int stride)
{
    int64_t inplanes = chans(tr, x);
    TId out = conv(tr, x, planes, 3, stride, 1, 1, false);
    out = bn(tr, out);
    out = tr_act(tr, out, ACT_RELU, true);
    out = conv(tr, out, planes, 3, 1, 1, 1, false);
    out = bn(tr, out);
    TId identity = x;
    if (stride != 1 || inplanes != planes)
        identity = bn(tr, conv(tr, x, planes, 1, stride, 0, 1, false));
    out = tr_add(tr, out, identity);
    return tr_act(tr, out, ACT_RELU, true);
}

static TId resnet_bottleneck(Trace *tr, TId x, int64_t planes, int stride, int groups, int base_width)
{
    int64_t inplanes = chans(tr, x);
    int64_t width = planes * base_width / 64 * groups;
    TId out = conv(tr, x, width, 1, 1, 0, 1, false);
    out = bn(tr, out);
    out = tr_act(tr, out, ACT_RELU, true);
    out = conv(tr, out, width, 3, stride, 1, groups, false);
    out = bn(tr, out);
    out = tr_act(tr, out, ACT_RELU, true);
    out = conv(tr, out, planes * 4, 1, 1, 0, 1, false);
    out = bn(tr, out);
    TId identity = x;
    if (stride != 1 || inplanes != planes * 4)
        identity = bn(tr, conv(tr, x, planes * 4, 1, stride, 0, 1, false));
    out = tr_add(tr, out, identity);
    return tr_act(tr, out, ACT_RELU, true);
}

static TId resnet(Trace *tr, TId x, const VModel *m, int64_t nc)
{
    x = conv(tr, x, 64, 7, 2, 3, 1, false);
    x = bn(tr, x);
    x = tr_act(tr, x, ACT_RELU, true);
    x = tr_pool2d(tr, x, 3, 2, 1, true);
    for (int s = 0; s < 4; s++) {
        int64_t planes = 64 << s;
        for (int b = 0; b < m->i[1 + s]; b++) {
            int stride = b == 0 && s > 0 ? 2 : 1;
            x = m->i[0] ? resnet_bottleneck(tr, x, planes, stride, m->i[5], m->i[6])
                        : resnet_basic(tr, x, planes, stride);
        }
    }
    return classifier(tr, pool_flatten(tr, x), nc, true);
}

/* ---- VGG (vgg.py) --------------------------------------------------------------------------- */

static TId vgg(Trace *tr, TId x, const VModel *m, int64_t nc)
{
    static const int16_t cfgs[4][22] = {
        {64, 0, 128, 0, 256, 256, 0, 512, 512, 0, 512, 512, 0, -1},
        {64, 64, 0, 128, 128, 0, 256, 256, 0, 512, 512, 0, 512, 512, 0, -1},
        {64, 64, 0, 128, 128, 0, 256, 256, 256, 0, 512, 512, 512, 0, 512, 512, 512, 0, -1},
        {64, 64, 0, 128, 128, 0, 256, 256, 256, 256, 0, 512, 512, 512, 512, 0, 512, 512, 512, 512, 0, -1},
    };
    const int16_t *cfg = cfgs[m->i[0]];
    for (int i = 0; cfg[i] >= 0; i++) {
        if (cfg[i] == 0) {
            x = tr_pool2d(tr, x, 2, 2, 0, true);
            continue;
        }
        x = conv(tr, x, cfg[i], 3, 1, 1, 1, true);
        if (m->i[1])
            x = bn(tr, x);
        x = tr_act(tr, x, ACT_RELU, true);
    }
    x = flatten(tr, tr_adaptive_pool(tr, x, 7, 7));
    x = linear(tr, x, 4096, true);
    x = tr_act(tr, x, ACT_RELU, true);
    x = tr_dropout(tr, x, 0.5);
    x = linear(tr, x, 4096, true);
    x = tr_act(tr, x, ACT_RELU, true);
    x = tr_dropout(tr, x, 0.5);
    return classifier(tr, x, nc, true);
}

/* ---- AlexNet (alexnet.py) ----------------------------------------------------------------- */

static TId alexnet(Trace *tr, TId x, int64_t nc)
{
    x = tr_act(tr, conv(tr, x, 64, 11, 4, 2, 1, true), ACT_RELU, true);
    x = tr_pool2d(tr, x, 3, 2, 0, true);
    x = tr_act(tr, conv(tr, x, 192, 5, 1, 2, 1, true), ACT_RELU, true);
    x = tr_pool2d(tr, x, 3, 2, 0, true);
    x = tr_act(tr, conv(tr, x, 384, 3, 1, 1, 1, true), ACT_RELU, true);
    x = tr_act(tr, conv(tr, x, 256, 3, 1, 1, 1, true), ACT_RELU, true);
    x = tr_act(tr, conv(tr, x, 256, 3, 1, 1, 1, true), ACT_RELU, true);
    x = tr_pool2d(tr, x, 3, 2, 0, true);
    x = flatten(tr, tr_adaptive_pool(tr, x, 6, 6));
    x = tr_dropout(tr, x, 0.5);
    x = tr_act(tr, linear(tr, x, 4096, true), ACT_RELU, true);
    x = tr_dropout(tr, x, 0.5);
    x = tr_act(tr, linear(tr, x, 4096, true), ACT_RELU, true);
    return classifier(tr, x, nc, true);
}

/* ---- DenseNet (densenet.py, memory_efficient=False) ---------------------------------------- */

static TId densenet(Trace *tr, TId x, const VModel *m, int64_t nc)
{
    int64_t growth = m->i[0], bn_size = 4;
    x = conv(tr, x, m->i[1], 7, 2, 3, 1, false);
    x = bn(tr, x);
    x = tr_act(tr, x, ACT_RELU, true);
    x = tr_pool2d(tr, x, 3, 2, 1, true);
    for (int b = 0; b < 4; b++) {
        TId feats[128];
        int nf = 0;
        feats[nf++] = x;
        for (int l = 0; l < m->i[2 + b] && nf < 128; l++) {
            /* _DenseLayer.bn_function: torch.cat(inputs, 1) allocates, even of one tensor */
            TId h = cat_all(tr, feats, nf, 1);
            h = bn(tr, h);
            h = tr_act(tr, h, ACT_RELU, true);
            h = conv(tr, h, bn_size * growth, 1, 1, 0, 1, false);
            h = bn(tr, h);
            h = tr_act(tr, h, ACT_RELU, true);
            h = conv(tr, h, growth, 3, 1, 1, 1, false);
            feats[nf++] = h;   /* drop_rate 0: no dropout */
        }
        x = cat_all(tr, feats, nf, 1);
        if (b < 3) {   /* _Transition */
            x = bn(tr, x);
            x = tr_act(tr, x, ACT_RELU, true);
            x = conv(tr, x, chans(tr, x) / 2, 1, 1, 0, 1, false);
            x = tr_pool2d(tr, x, 2, 2, 0, false);
        }
    }
    x = bn(tr, x);                          /* norm5 */
    x = tr_act(tr, x, ACT_RELU, true);      /* F.relu(features, inplace=True) */
    return classifier(tr, pool_flatten(tr, x), nc, true);
}

/* ---- EfficientNet V1 and V2 (efficientnet.py) -------------------------------------------- */

static TId mbconv(Trace *tr, TId x, double expand, int k, int stride, int64_t out, double sd_prob)
{
    int64_t in = chans(tr, x);
    int64_t expanded = make_divisible((double)in * expand, 8, 0);
    TId h = x;
    if (expanded != in)
        h = cna(tr, h, expanded, 1, 1, 1, ACT_SILU);
    h = cna(tr, h, expanded, k, stride, (int)expanded, ACT_SILU);
    int64_t squeeze = in / 4 > 1 ? in / 4 : 1;
    h = squeeze_excite(tr, h, squeeze, ACT_SILU, true, ACT_SIGMOID);
    h = cna(tr, h, out, 1, 1, 1, NO_ACT);
    if (stride == 1 && in == out) {
        h = stochastic_depth(tr, h, sd_prob);
        h = tr_add(tr, h, x);
    }
    return h;
}

static TId fused_mbconv(Trace *tr, TId x, double expand, int k, int stride, int64_t out, double sd_prob)
{
    int64_t in = chans(tr, x);
    int64_t expanded = make_divisible((double)in * expand, 8, 0);
    TId h;
    if (expanded != in) {
        h = cna(tr, x, expanded, k, stride, 1, ACT_SILU);
        h = cna(tr, h, out, 1, 1, 1, NO_ACT);
    } else {
        h = cna(tr, x, out, k, stride, 1, ACT_SILU);
    }
    if (stride == 1 && in == out) {
        h = stochastic_depth(tr, h, sd_prob);
        h = tr_add(tr, h, x);
    }
    return h;
}

typedef struct MBStage {
    bool fused;
    double expand;
    int k, stride, in, out, layers;
} MBStage;

static TId efficientnet_run(Trace *tr, TId x, const MBStage *st, int nst, int64_t last_channel,
                            double dropout, int64_t nc)
{
    x = cna(tr, x, st[0].in, 3, 2, 1, ACT_SILU);
    int total = 0;
    for (int i = 0; i < nst; i++)
        total += st[i].layers;
    int id = 0;
    for (int i = 0; i < nst; i++) {
        for (int j = 0; j < st[i].layers; j++, id++) {
            double sd = 0.2 * (double)id / (double)total;
            int stride = j ? 1 : st[i].stride;
            x = st[i].fused ? fused_mbconv(tr, x, st[i].expand, st[i].k, stride, st[i].out, sd)
                            : mbconv(tr, x, st[i].expand, st[i].k, stride, st[i].out, sd);
        }
    }
    x = cna(tr, x, last_channel > 0 ? last_channel : 4 * st[nst - 1].out, 1, 1, 1, ACT_SILU);
    x = pool_flatten(tr, x);
    x = dropout_inplace(tr, x, dropout);
    return classifier(tr, x, nc, true);
}

static TId efficientnet(Trace *tr, TId x, const VModel *m, int64_t nc)
{
    static const MBStage base[7] = {
        {false, 1, 3, 1, 32, 16, 1}, {false, 6, 3, 2, 16, 24, 2}, {false, 6, 5, 2, 24, 40, 2},
        {false, 6, 3, 2, 40, 80, 3}, {false, 6, 5, 1, 80, 112, 3}, {false, 6, 5, 2, 112, 192, 4},
        {false, 6, 3, 1, 192, 320, 1},
    };
    MBStage st[7];
    double wm = m->f[0], dm = m->f[1];
    for (int i = 0; i < 7; i++) {
        st[i] = base[i];
        st[i].in = (int)make_divisible(base[i].in * wm, 8, 0);
        st[i].out = (int)make_divisible(base[i].out * wm, 8, 0);
        st[i].layers = (int)ceil(base[i].layers * dm);
    }
    return efficientnet_run(tr, x, st, 7, 0, m->f[2], nc);
}

static TId efficientnet_v2(Trace *tr, TId x, const VModel *m, int64_t nc)
{
    static const MBStage s[6] = {
        {true, 1, 3, 1, 24, 24, 2}, {true, 4, 3, 2, 24, 48, 4}, {true, 4, 3, 2, 48, 64, 4},
        {false, 4, 3, 2, 64, 128, 6}, {false, 6, 3, 1, 128, 160, 9}, {false, 6, 3, 2, 160, 256, 15},
    };
    static const MBStage md[7] = {
        {true, 1, 3, 1, 24, 24, 3}, {true, 4, 3, 2, 24, 48, 5}, {true, 4, 3, 2, 48, 80, 5},
        {false, 4, 3, 2, 80, 160, 7}, {false, 6, 3, 1, 160, 176, 14}, {false, 6, 3, 2, 176, 304, 18},
        {false, 6, 3, 1, 304, 512, 5},
    };
    static const MBStage l[7] = {
        {true, 1, 3, 1, 32, 32, 4}, {true, 4, 3, 2, 32, 64, 7}, {true, 4, 3, 2, 64, 96, 7},
        {false, 4, 3, 2, 96, 192, 10}, {false, 6, 3, 1, 192, 224, 19}, {false, 6, 3, 2, 224, 384, 25},
        {false, 6, 3, 1, 384, 640, 7},
    };
    const MBStage *st = m->i[0] == 0 ? s : m->i[0] == 1 ? md : l;
    int nst = m->i[0] == 0 ? 6 : 7;
    return efficientnet_run(tr, x, st, nst, 1280, m->f[0], nc);
}

/* ---- MobileNet V2 and V3 (mobilenetv2.py, mobilenetv3.py) ---------------------------------- */

static TId mobilenet_v2(Trace *tr, TId x, int64_t nc)
{
    static const int setting[7][4] = {
        {1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
        {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1},
    };
    x = cna(tr, x, 32, 3, 2, 1, ACT_RELU6);
    for (int i = 0; i < 7; i++) {
        int64_t out = make_divisible(setting[i][1], 8, 0);
        for (int j = 0; j < setting[i][2]; j++) {
            int64_t in = chans(tr, x);
            int stride = j ? 1 : setting[i][3];
            int64_t hidden = in * setting[i][0];
            TId h = x;
            if (setting[i][0] != 1)
                h = cna(tr, h, hidden, 1, 1, 1, ACT_RELU6);
            h = cna(tr, h, hidden, 3, stride, (int)hidden, ACT_RELU6);
            h = bn(tr, conv(tr, h, out, 1, 1, 0, 1, false));
            x = stride == 1 && in == out ? tr_add(tr, x, h) : h;
        }
    }
    x = cna(tr, x, 1280, 1, 1, 1, ACT_RELU6);
    x = pool_flatten(tr, x);
    x = tr_dropout(tr, x, 0.2);
    return classifier(tr, x, nc, true);
}

static TId mobilenet_v3(Trace *tr, TId x, const VModel *m, int64_t nc)
{
    /* input, kernel, expanded, out, use_se, hardswish, stride */
    static const int large[15][7] = {
        {16, 3, 16, 16, 0, 0, 1}, {16, 3, 64, 24, 0, 0, 2}, {24, 3, 72, 24, 0, 0, 1},
        {24, 5, 72, 40, 1, 0, 2}, {40, 5, 120, 40, 1, 0, 1}, {40, 5, 120, 40, 1, 0, 1},
        {40, 3, 240, 80, 0, 1, 2}, {80, 3, 200, 80, 0, 1, 1}, {80, 3, 184, 80, 0, 1, 1},
        {80, 3, 184, 80, 0, 1, 1}, {80, 3, 480, 112, 1, 1, 1}, {112, 3, 672, 112, 1, 1, 1},
        {112, 5, 672, 160, 1, 1, 2}, {160, 5, 960, 160, 1, 1, 1}, {160, 5, 960, 160, 1, 1, 1},
    };
    static const int small[11][7] = {
        {16, 3, 16, 16, 1, 0, 2}, {16, 3, 72, 24, 0, 0, 2}, {24, 3, 88, 24, 0, 0, 1},
        {24, 5, 96, 40, 1, 1, 2}, {40, 5, 240, 40, 1, 1, 1}, {40, 5, 240, 40, 1, 1, 1},
        {40, 5, 120, 48, 1, 1, 1}, {48, 5, 144, 48, 1, 1, 1}, {48, 5, 288, 96, 1, 1, 2},
        {96, 5, 576, 96, 1, 1, 1}, {96, 5, 576, 96, 1, 1, 1},
    };
    bool is_large = m->i[0] != 0;
    const int(*cfg)[7] = is_large ? large : small;
    int n = is_large ? 15 : 11;
    int64_t last_channel = is_large ? 1280 : 1024;
    x = cna(tr, x, cfg[0][0], 3, 2, 1, ACT_HARDSWISH);
    for (int i = 0; i < n; i++) {
        int64_t in = cfg[i][0], expanded = cfg[i][2], out = cfg[i][3];
        int k = cfg[i][1], stride = cfg[i][6];
        int a = cfg[i][5] ? ACT_HARDSWISH : ACT_RELU;
        TId h = x;
        if (expanded != in)
            h = cna(tr, h, expanded, 1, 1, 1, a);
        h = cna(tr, h, expanded, k, stride, (int)expanded, a);
        if (cfg[i][4])
            h = squeeze_excite(tr, h, make_divisible((double)(expanded / 4), 8, 0), ACT_RELU, false,
                               ACT_HARDSIGMOID);
        h = cna(tr, h, out, 1, 1, 1, NO_ACT);
        x = stride == 1 && in == out ? tr_add(tr, h, x) : h;   /* result += input */
    }
    x = cna(tr, x, 6 * cfg[n - 1][3], 1, 1, 1, ACT_HARDSWISH);
    x = pool_flatten(tr, x);
    x = linear(tr, x, last_channel, true);
    x = tr_act(tr, x, ACT_HARDSWISH, true);
    x = dropout_inplace(tr, x, 0.2);
    return classifier(tr, x, nc, true);
}

/* ---- Vision Transformer (vision_transformer.py) ------------------------------------------- */

static TId vit_block(Trace *tr, TId x, int heads, int64_t mlp, double dropout, double attn_dropout)
{
    int64_t n = tr_dim(tr, x, 0), s = tr_dim(tr, x, 1), e = tr_dim(tr, x, 2);
    int64_t hd = e / heads;
    TId h = ln(tr, x);   /* ln_1 */

    /* nn.MultiheadAttention(batch_first=True) in training: query.transpose(1, 0)
     * is (S, N, E) and not contiguous; under autocast linear's input is cast to
     * 16 bits keeping those strides, and matmul folds it into a (S*N, E) copy,
     * which mm saves for the weight's gradient. */
    h = tr_cast(tr, h, ac_dtype(tr, tr_dtype(tr, h)));
    int64_t fold[2] = {s * n, e};
    h = tr_copy(tr, h, 2, fold);
    uint32_t w_in = tr_param(tr, (uint64_t)(3 * e * e));
    uint32_t b_in = tr_param(tr, (uint64_t)(3 * e));
    TId qkv = tr_linear(tr, h, 3 * e, w_in, b_in);
    /* unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous() */
    int64_t packed[4] = {3, s, n, e};
    qkv = tr_copy(tr, qkv, 4, packed);
    /* q, k, v: views of the packed copy, (N, heads, S, head_dim) */
    int64_t hv[4] = {n, heads, s, hd};
    TId q = tr_view(tr, qkv, 4, hv);
    TId k = tr_view(tr, qkv, 4, hv);
    TId v = tr_view(tr, qkv, 4, hv);
    TId o = tr_sdpa(tr, q, k, v, tr->training ? attn_dropout : 0.0);
    /* attn_output.permute(2, 0, 1, 3).contiguous().view(S*N, E): the 16-bit
     * kernels (flash, cuDNN) allocate their output with q's strides, the
     * (S, N, heads, head_dim) layout of the packed copy, so the permute is
     * already contiguous and the out-projection saves the attention output
     * itself; the fp32 kernel (memory-efficient) writes (N, S, heads, head_dim)
     * and the permute copies. */
    if (tr_dtype(tr, o) == DT_F16 || tr_dtype(tr, o) == DT_BF16)
        o = tr_view(tr, o, 2, fold);
    else
        o = tr_copy(tr, o, 2, fold);
    o = linear(tr, o, e, true);   /* out_proj */
    int64_t d3[3] = {n, s, e};
    o = tr_view(tr, o, 3, d3);    /* .view(S, N, E).transpose(1, 0) */
    o = tr_dropout(tr, o, dropout);
    x = tr_add(tr, o, x);

    TId y = ln(tr, x);   /* ln_2 */
    y = linear(tr, y, mlp, true);
    y = tr_act(tr, y, ACT_GELU, false);
    y = tr_dropout(tr, y, dropout);
    y = linear(tr, y, e, true);
    y = tr_dropout(tr, y, dropout);
    return tr_add(tr, x, y);
}

static TId vit(Trace *tr, TId x, const VModel *m, int64_t nc)
{
    int patch = m->i[0], layers = m->i[1], heads = m->i[2];
    int64_t hidden = m->i[3], mlp = m->i[4];
    double dropout = 0.0, attn_dropout = 0.0;   /* torchvision's defaults */
    int64_t n = tr_dim(tr, x, 0);
    int64_t grid = tr_dim(tr, x, 2) / patch;
    int64_t seq = grid * grid + 1;
    /* _process_input: conv_proj, reshape, permute (views) */
    x = conv(tr, x, hidden, patch, patch, 0, 1, true);
    int64_t tokens[3] = {n, seq - 1, hidden};
    x = tr_view(tr, x, 3, tokens);
    int64_t one[3] = {1, 1, hidden};
    TId cls = param_tensor(tr, 3, one);
    int64_t expand[3] = {n, 1, hidden};
    TId parts[2] = {tr_view(tr, cls, 3, expand), x};
    x = tr_cat(tr, parts, 2, 1);   /* promotes to the class token's dtype */
    /* Encoder */
    int64_t pos_dim[3] = {1, seq, hidden};
    TId pos = param_tensor(tr, 3, pos_dim);
    x = tr_add(tr, x, pos);
    x = tr_dropout(tr, x, dropout);
    for (int i = 0; i < layers; i++)
        x = vit_block(tr, x, heads, mlp, dropout, attn_dropout);
    x = ln(tr, x);
    int64_t first[2] = {n, hidden};
    x = tr_view(tr, x, 2, first);   /* x[:, 0] */
    return classifier(tr, x, nc, true);
}

/* ---- ConvNeXt (convnext.py) --------------------------------------------------------------- */

/* LayerNorm2d: permute to channels-last, layer_norm, permute back. */
static TId ln2d(Trace *tr, TId x) { return permute_nchw(tr, ln(tr, permute_nhwc(tr, x))); }

static TId cn_block(Trace *tr, TId x, double sd_prob)
{
    int64_t c = chans(tr, x);
    TId h = conv(tr, x, c, 7, 1, 3, (int)c, true);
    h = ln(tr, permute_nhwc(tr, h));
    h = linear(tr, h, 4 * c, true);
    h = tr_act(tr, h, ACT_GELU, false);
    h = linear(tr, h, c, true);
    h = permute_nchw(tr, h);
    int64_t ls_dim[3] = {c, 1, 1};
    TId scale = param_tensor(tr, 3, ls_dim);
    h = tr_mul(tr, scale, h);   /* self.layer_scale * self.block(input) */
    h = stochastic_depth(tr, h, sd_prob);
    return tr_add(tr, h, x);     /* result += input */
}

static TId convnext(Trace *tr, TId x, const VModel *m, int64_t nc)
{
    const int32_t *dims = m->i, *depths = m->i + 4;
    double sd = m->f[0];
    x = conv(tr, x, dims[0], 4, 4, 0, 1, true);
    x = ln2d(tr, x);
    int total = depths[0] + depths[1] + depths[2] + depths[3];
    int id = 0;
    for (int s = 0; s < 4; s++) {
        for (int j = 0; j < depths[s]; j++, id++)
            x = cn_block(tr, x, total > 1 ? sd * id / (total - 1.0) : 0.0);
        if (s < 3) {
            x = ln2d(tr, x);
            x = conv(tr, x, dims[s + 1], 2, 2, 0, 1, true);
        }
    }
    x = tr_adaptive_pool(tr, x, 1, 1);
    x = ln2d(tr, x);
    return classifier(tr, flatten(tr, x), nc, true);
}

/* ---- RegNet (regnet.py) ------------------------------------------------------------------- */

typedef struct RegStages {
    int n;
    int64_t width[16], group_width[16];
    int depth[16];
} RegStages;

/* BlockParams.from_init_params, in the float32 arithmetic torch does it in. */
static void regnet_stages(const VModel *m, RegStages *rs)
{
    int depth = m->i[0];
    float w0 = (float)m->i[1], wa = (float)m->f[0], wm = (float)m->f[1];
    float logwm = (float)log(m->f[1]);
    int64_t bw[64];
    if (depth > 64)
        depth = 64;
    for (int i = 0; i < depth; i++) {
        float wc = (float)i * wa + w0;
        float cap = rintf(logf(wc / w0) / logwm);
        bw[i] = (int64_t)(rintf(w0 * powf(wm, cap) / 8.0f) * 8.0f);
    }
    rs->n = 0;
    for (int i = 0; i < depth; i++) {
        if (i == 0 || bw[i] != bw[i - 1]) {
            if (rs->n == 16)
                break;
            rs->width[rs->n] = bw[i];
            rs->depth[rs->n] = 0;
            rs->n++;
        }
        rs->depth[rs->n - 1]++;
    }
    /* _adjust_widths_groups_compatibilty, bottleneck multiplier 1 */
    for (int s = 0; s < rs->n; s++) {
        int64_t g = m->i[2] < rs->width[s] ? m->i[2] : rs->width[s];
        rs->width[s] = make_divisible((double)rs->width[s], g, 0);
        rs->group_width[s] = g;
    }
}

static TId regnet_block(Trace *tr, TId x, int64_t wout, int stride, int64_t group_width, double se_ratio)
{
    int64_t win = chans(tr, x);
    TId proj = 0;
    if (win != wout || stride != 1)
        proj = cna(tr, x, wout, 1, stride, 1, NO_ACT);
    int64_t wb = wout;
    int groups = (int)(wb / group_width);
    TId h = cna(tr, x, wb, 1, 1, 1, ACT_RELU);
    h = cna(tr, h, wb, 3, stride, groups, ACT_RELU);
    if (se_ratio > 0)
        h = squeeze_excite(tr, h, (int64_t)nearbyint(se_ratio * (double)win), ACT_RELU, false, ACT_SIGMOID);
    h = cna(tr, h, wout, 1, 1, 1, NO_ACT);
    x = tr_add(tr, proj ? proj : x, h);
    return tr_act(tr, x, ACT_RELU, true);
}

static TId regnet(Trace *tr, TId x, const VModel *m, int64_t nc)
{
    RegStages rs;
    regnet_stages(m, &rs);
    x = cna(tr, x, 32, 3, 2, 1, ACT_RELU);   /* SimpleStemIN */
    for (int s = 0; s < rs.n; s++)
        for (int j = 0; j < rs.depth[s]; j++)
            x = regnet_block(tr, x, rs.width[s], j ? 1 : 2, rs.group_width[s], m->f[2]);
    return classifier(tr, pool_flatten(tr, x), nc, true);
}

/* ---- SqueezeNet (squeezenet.py) ------------------------------------------------------------ */

/* MaxPool2d(k, 2, ceil_mode=True): where ceil rounding adds an output row,
 * one row of padding gives the same size (stride 2). */
static TId pool_ceil(Trace *tr, TId x, int k, int stride)
{
    int64_t h = tr_dim(tr, x, 2);
    int64_t rem = (h - k) % stride;
    return tr_pool2d(tr, x, k, stride, rem ? 1 : 0, true);
}

static TId fire(Trace *tr, TId x, int64_t squeeze, int64_t e1, int64_t e3)
{
    x = tr_act(tr, conv(tr, x, squeeze, 1, 1, 0, 1, true), ACT_RELU, true);
    TId parts[2] = {tr_act(tr, conv(tr, x, e1, 1, 1, 0, 1, true), ACT_RELU, true),
                    tr_act(tr, conv(tr, x, e3, 3, 1, 1, 1, true), ACT_RELU, true)};
    return tr_cat(tr, parts, 2, 1);
}

/* squeezenet1_0: conv1 3*96*49 + 96 = 14,208; the eight Fire modules
 * 11,920 + 12,432 + 45,344 + 49,440 + 104,880 + 111,024 + 188,992 + 197,184;
 * the 1x1 classifier conv 513,000: 1,248,424 in all (the published figure). */
static TId squeezenet(Trace *tr, TId x, const VModel *m, int64_t nc)
{
    /* squeeze, expand per Fire; 0 is a ceil-mode max pool */
    static const int16_t v10[][2] = {{0, 0}, {16, 64}, {16, 64}, {32, 128}, {0, 0}, {32, 128},
                                     {48, 192}, {48, 192}, {64, 256}, {0, 0}, {64, 256}, {-1, 0}};
    static const int16_t v11[][2] = {{0, 0}, {16, 64}, {16, 64}, {0, 0}, {32, 128}, {32, 128},
                                     {0, 0}, {48, 192}, {48, 192}, {64, 256}, {64, 256}, {-1, 0}};
    bool first = m->i[0] == 0;
    x = first ? conv(tr, x, 96, 7, 2, 0, 1, true) : conv(tr, x, 64, 3, 2, 0, 1, true);
    x = tr_act(tr, x, ACT_RELU, true);
    const int16_t(*cfg)[2] = first ? v10 : v11;
    for (int i = 0; cfg[i][0] >= 0; i++)
        x = cfg[i][0] ? fire(tr, x, cfg[i][0], cfg[i][1], cfg[i][1]) : pool_ceil(tr, x, 3, 2);
    x = tr_dropout(tr, x, 0.5);
    x = tr_act(tr, classifier_conv(tr, x, nc), ACT_RELU, true);
    return pool_flatten(tr, x);
}

/* ---- ShuffleNet V2 (shufflenetv2.py) ------------------------------------------------------- */

/* A channel slice x[:, from:from+c] (chunk): a view of x. */
static TId channel_slice(Trace *tr, TId x, int64_t c)
{
    int64_t d[4] = {tr_dim(tr, x, 0), c, tr_dim(tr, x, 2), tr_dim(tr, x, 3)};
    return tr_view(tr, x, 4, d);
}

static TId shuffle_unit(Trace *tr, TId x, int64_t oup, int stride)
{
    int64_t inp = chans(tr, x), bf = oup / 2;
    TId left, right = stride > 1 ? x : channel_slice(tr, x, bf);
    if (stride > 1) {   /* branch1: depthwise 3x3, BN, 1x1, BN, ReLU */
        left = bn(tr, conv(tr, x, inp, 3, stride, 1, (int)inp, false));
        left = cna(tr, left, bf, 1, 1, 1, ACT_RELU);
    } else {
        left = channel_slice(tr, x, bf);
    }
    right = cna(tr, right, bf, 1, 1, 1, ACT_RELU);
    right = bn(tr, conv(tr, right, bf, 3, stride, 1, (int)bf, false));
    right = cna(tr, right, bf, 1, 1, 1, ACT_RELU);
    TId parts[2] = {left, right};
    TId y = tr_cat(tr, parts, 2, 1);
    /* channel_shuffle: view, transpose(1, 2).contiguous() (a copy), view */
    int64_t d[4] = {tr_dim(tr, y, 0), chans(tr, y), tr_dim(tr, y, 2), tr_dim(tr, y, 3)};
    return tr_copy(tr, y, 4, d);
}

static TId shufflenet(Trace *tr, TId x, const VModel *m, int64_t nc)
{
    static const int repeats[3] = {4, 8, 4};
    x = cna(tr, x, 24, 3, 2, 1, ACT_RELU);
    x = tr_pool2d(tr, x, 3, 2, 1, true);
    for (int s = 0; s < 3; s++)
        for (int j = 0; j < repeats[s]; j++)
            x = shuffle_unit(tr, x, m->i[s], j ? 1 : 2);
    x = cna(tr, x, m->i[3], 1, 1, 1, ACT_RELU);
    int64_t d[2] = {tr_dim(tr, x, 0), chans(tr, x)};
    x = tr_reduce_to(tr, x, 2, d);   /* x.mean([2, 3]) */
    return classifier(tr, x, nc, true);
}

/* ---- MNASNet (mnasnet.py, version 2) ------------------------------------------------------- */

/* mnasnet._round_to_multiple_of(val, 8, 0.9) */
static int64_t round_to_8(double v)
{
    int64_t nv = (int64_t)(v + 4) / 8 * 8;
    if (nv < 8)
        nv = 8;
    return (double)nv >= 0.9 * v ? nv : nv + 8;
}

static TId mnas_unit(Trace *tr, TId x, int64_t out, int k, int stride, int expand)
{
    int64_t in = chans(tr, x), mid = in * expand;
    TId h = cna(tr, x, mid, 1, 1, 1, ACT_RELU);
    h = cna(tr, h, mid, k, stride, (int)mid, ACT_RELU);
    h = cna(tr, h, out, 1, 1, 1, NO_ACT);
    return in == out && stride == 1 ? tr_add(tr, h, x) : h;
}

static TId mnasnet(Trace *tr, TId x, const VModel *m, int64_t nc)
{
    static const int base[8] = {32, 16, 24, 40, 80, 96, 192, 320};
    /* kernel, stride, expansion, repeats of _stack */
    static const int stacks[6][4] = {{3, 2, 3, 3}, {5, 2, 3, 3}, {5, 2, 6, 3},
                                     {3, 1, 6, 2}, {5, 2, 6, 4}, {3, 1, 6, 1}};
    int64_t d[8];
    for (int i = 0; i < 8; i++)
        d[i] = round_to_8(base[i] * m->f[0]);
    x = cna(tr, x, d[0], 3, 2, 1, ACT_RELU);
    x = cna(tr, x, d[0], 3, 1, (int)d[0], ACT_RELU);
    x = cna(tr, x, d[1], 1, 1, 1, NO_ACT);
    for (int s = 0; s < 6; s++)
        for (int j = 0; j < stacks[s][3]; j++)
            x = mnas_unit(tr, x, d[s + 2], stacks[s][0], j ? 1 : stacks[s][1], stacks[s][2]);
    x = cna(tr, x, 1280, 1, 1, 1, ACT_RELU);
    int64_t pooled[2] = {tr_dim(tr, x, 0), 1280};
    x = tr_reduce_to(tr, x, 2, pooled);   /* x.mean([2, 3]) */
    x = dropout_inplace(tr, x, 0.2);
    return classifier(tr, x, nc, true);
}

/* ---- GoogLeNet and Inception v3 (googlenet.py, inception.py) ------------------------------- */

/* BasicConv2d: conv without bias, BatchNorm (eps 0.001), relu(inplace=True). */
static TId bconv(Trace *tr, TId x, int64_t cout, int k, int stride, int pad)
{
    x = conv(tr, x, cout, k, stride, pad, 1, false);
    return tr_act(tr, bn(tr, x), ACT_RELU, true);
}

/* BasicConv2d with a (kh, kw) kernel, stride 1 and the padding that keeps
 * the size (Inception's 1x7, 7x1, 1x3, 3x1): the weight holds
 * cout * cin * kh * kw values; the output has the input's height and width. */
static TId bconv_rect(Trace *tr, TId x, int64_t cout, int kh, int kw)
{
    uint64_t cin = (uint64_t)chans(tr, x);
    uint32_t w = tr_param(tr, ck_mul(ck_mul((uint64_t)cout, cin), (uint64_t)(kh * kw)));
    x = tr_conv2d(tr, x, cout, 1, 1, 0, 1, w, 0);
    return tr_act(tr, bn(tr, x), ACT_RELU, true);
}

/* googlenet.Inception: 1x1 | 1x1, 3x3 | 1x1, 3x3 (torchvision's "5x5" branch
 * is a 3x3) | max pool 3 stride 1 (ceil), 1x1; concatenated. */
static TId goog_inception(Trace *tr, TId x, const int16_t *c)
{
    TId b[4];
    b[0] = bconv(tr, x, c[0], 1, 1, 0);
    b[1] = bconv(tr, bconv(tr, x, c[1], 1, 1, 0), c[2], 3, 1, 1);
    b[2] = bconv(tr, bconv(tr, x, c[3], 1, 1, 0), c[4], 3, 1, 1);
    b[3] = bconv(tr, tr_pool2d(tr, x, 3, 1, 1, true), c[5], 1, 1, 0);
    return tr_cat(tr, b, 4, 1);
}

/* googlenet() as torchvision loads it with weights (aux_logits off, its
 * published 6,624,904 parameters); transform_input off. */
static TId googlenet(Trace *tr, TId x, int64_t nc)
{
    static const int16_t blocks[9][6] = {
        {64, 96, 128, 16, 32, 32}, {128, 128, 192, 32, 96, 64}, {192, 96, 208, 16, 48, 64},
        {160, 112, 224, 24, 64, 64}, {128, 128, 256, 24, 64, 64}, {112, 144, 288, 32, 64, 64},
        {256, 160, 320, 32, 128, 128}, {256, 160, 320, 32, 128, 128}, {384, 192, 384, 48, 128, 128},
    };
    x = pool_ceil(tr, bconv(tr, x, 64, 7, 2, 3), 3, 2);
    x = bconv(tr, bconv(tr, x, 64, 1, 1, 0), 192, 3, 1, 1);
    x = pool_ceil(tr, x, 3, 2);
    for (int i = 0; i < 9; i++) {
        x = goog_inception(tr, x, blocks[i]);
        if (i == 1)
            x = pool_ceil(tr, x, 3, 2);
        if (i == 6)
            x = pool_ceil(tr, x, 2, 2);
    }
    x = pool_flatten(tr, x);
    x = tr_dropout(tr, x, 0.2);
    return classifier(tr, x, nc, true);
}

static TId incept_a(Trace *tr, TId x, int64_t pool_features)
{
    TId b[4];
    b[0] = bconv(tr, x, 64, 1, 1, 0);
    b[1] = bconv(tr, bconv(tr, x, 48, 1, 1, 0), 64, 5, 1, 2);
    b[2] = bconv(tr, bconv(tr, bconv(tr, x, 64, 1, 1, 0), 96, 3, 1, 1), 96, 3, 1, 1);
    b[3] = bconv(tr, tr_pool2d(tr, x, 3, 1, 1, false), pool_features, 1, 1, 0);
    return tr_cat(tr, b, 4, 1);
}

static TId incept_b(Trace *tr, TId x)
{
    TId b[3];
    b[0] = bconv(tr, x, 384, 3, 2, 0);
    b[1] = bconv(tr, bconv(tr, bconv(tr, x, 64, 1, 1, 0), 96, 3, 1, 1), 96, 3, 2, 0);
    b[2] = tr_pool2d(tr, x, 3, 2, 0, true);
    return tr_cat(tr, b, 3, 1);
}

static TId incept_c(Trace *tr, TId x, int64_t c7)
{
    TId b[4];
    b[0] = bconv(tr, x, 192, 1, 1, 0);
    b[1] = bconv_rect(tr, bconv_rect(tr, bconv(tr, x, c7, 1, 1, 0), c7, 1, 7), 192, 7, 1);
    TId d = bconv(tr, x, c7, 1, 1, 0);
    d = bconv_rect(tr, bconv_rect(tr, d, c7, 7, 1), c7, 1, 7);
    b[2] = bconv_rect(tr, bconv_rect(tr, d, c7, 7, 1), 192, 1, 7);
    b[3] = bconv(tr, tr_pool2d(tr, x, 3, 1, 1, false), 192, 1, 1, 0);
    return tr_cat(tr, b, 4, 1);
}

static TId incept_d(Trace *tr, TId x)
{
    TId b[3];
    b[0] = bconv(tr, bconv(tr, x, 192, 1, 1, 0), 320, 3, 2, 0);
    TId d = bconv_rect(tr, bconv_rect(tr, bconv(tr, x, 192, 1, 1, 0), 192, 1, 7), 192, 7, 1);
    b[1] = bconv(tr, d, 192, 3, 2, 0);
    b[2] = tr_pool2d(tr, x, 3, 2, 0, true);
    return tr_cat(tr, b, 3, 1);
}

/* 1x3 and 3x1 of the same input, concatenated */
static TId incept_split(Trace *tr, TId x)
{
    TId p[2] = {bconv_rect(tr, x, 384, 1, 3), bconv_rect(tr, x, 384, 3, 1)};
    return tr_cat(tr, p, 2, 1);
}

static TId incept_e(Trace *tr, TId x)
{
    TId b[4];
    b[0] = bconv(tr, x, 320, 1, 1, 0);
    b[1] = incept_split(tr, bconv(tr, x, 384, 1, 1, 0));
    b[2] = incept_split(tr, bconv(tr, bconv(tr, x, 448, 1, 1, 0), 384, 3, 1, 1));
    b[3] = bconv(tr, tr_pool2d(tr, x, 3, 1, 1, false), 192, 1, 1, 0);
    return tr_cat(tr, b, 4, 1);
}

/* InceptionAux, run in training only: avg pool 5 stride 3, 1x1 to 128, 5x5
 * to 768, pool, fc. Its 5x5 needs a 5x5 input: torchvision fails below. */
static TId incept_aux(Trace *tr, TId x, int64_t nc)
{
    x = tr_pool2d(tr, x, 5, 3, 0, false);
    x = bconv(tr, x, 128, 1, 1, 0);
    if (tr_dim(tr, x, 2) < 5 || tr_dim(tr, x, 3) < 5)
        return 0;
    x = bconv(tr, x, 768, 5, 1, 0);
    return classifier(tr, pool_flatten(tr, x), nc, true);
}

/* inception_v3 with aux_logits (the default, and the published 27,161,264
 * parameters); transform_input off (weights=None). Returns 0 for an image
 * too small for the auxiliary head in training (299 is the usual size). */
static TId inception_v3(Trace *tr, TId x, int64_t nc)
{
    x = bconv(tr, x, 32, 3, 2, 0);
    x = bconv(tr, x, 32, 3, 1, 0);
    x = bconv(tr, x, 64, 3, 1, 1);
    x = tr_pool2d(tr, x, 3, 2, 0, true);
    x = bconv(tr, x, 80, 1, 1, 0);
    x = bconv(tr, x, 192, 3, 1, 0);
    x = tr_pool2d(tr, x, 3, 2, 0, true);
    x = incept_a(tr, incept_a(tr, incept_a(tr, x, 32), 64), 64);
    x = incept_b(tr, x);
    x = incept_c(tr, incept_c(tr, incept_c(tr, incept_c(tr, x, 128), 160), 160), 192);
    uint64_t aux_params = 768ull * 128 + 2 * 128 + 128ull * 768 * 25 + 2 * 768 + 768ull * (uint64_t)nc + (uint64_t)nc;
    if (tr->training) {
        if (!incept_aux(tr, x, nc))
            return 0;
    } else {
        tr_param(tr, aux_params);   /* built, not run in eval */
    }
    x = incept_e(tr, incept_e(tr, incept_d(tr, x)));
    x = pool_flatten(tr, x);
    x = tr_dropout(tr, x, 0.5);
    return classifier(tr, x, nc, true);
}

/* ---- Swin Transformer V1 and V2 (swin_transformer.py) -------------------------------------- */

static int64_t round_up_to(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

/* The (1, heads, N, N) relative position bias, from a parameter table (V1:
 * (2w-1)^2 x heads, gathered) or from the continuous-position MLP (V2:
 * Linear(2, 512), ReLU, Linear(512, heads, no bias), 16 * sigmoid; its
 * activations are (2w-1)^2 x 512 values, too few to model), in dtype dt. It
 * requires grad, so adding it to the scores saves nothing extra. */
static TId relative_bias(Trace *tr, int64_t heads, int ws, bool v2, DType dt)
{
    uint64_t table = (uint64_t)(2 * ws - 1) * (uint64_t)(2 * ws - 1);
    if (v2) {
        tr_param(tr, 2 * 512 + 512);
        tr_param(tr, 512 * (uint64_t)heads);
    } else {
        tr_param(tr, table * (uint64_t)heads);
    }
    int64_t d[4] = {1, heads, (int64_t)ws * ws, (int64_t)ws * ws};
    return fresh(tr, dt, 4, d, true);
}

static TId swin_bias(Trace *tr, int64_t heads, int ws, bool v2)
{
    return relative_bias(tr, heads, ws, v2, ac_dtype(tr, tr->weight_dtype));
}

/* F.normalize(x, dim=-1): x / norm, saving x and the (..., 1) norm. */
static TId l2_normalize(Trace *tr, TId x)
{
    int64_t d[TR_MAXDIM];
    int nd = tr->t.v[x].nd;
    memcpy(d, tr->t.v[x].dim, sizeof d);
    d[nd - 1] = 1;
    TId norm = fresh(tr, tr_dtype(tr, x), nd, d, true);
    return tr_mul(tr, x, norm);
}

/* shifted_window_attention on a (B, H, W, C) input: pad to whole windows
 * (F.pad copies), roll by the shift, partition into (B*nW, ws*ws, C) windows
 * (a reshape of a permute: a copy), qkv linear, scores, bias (and the shift
 * mask), softmax, @ v, merge heads (a copy), projection, reverse partition
 * and roll (copies), and crop when padded. Scores are explicit matmuls. */
static TId swin_attention(Trace *tr, TId x, int64_t heads, int ws, int shift, bool v2)
{
    int64_t b = tr_dim(tr, x, 0), h = tr_dim(tr, x, 1), w = tr_dim(tr, x, 2), c = tr_dim(tr, x, 3);
    int64_t ph = round_up_to(h, ws), pw = round_up_to(w, ws), n = (int64_t)ws * ws;
    int64_t nw = ph / ws * (pw / ws), hd = c / heads;
    if (ws >= ph && ws >= pw)
        shift = 0;
    int64_t padded[4] = {b, ph, pw, c};
    x = tr_copy(tr, x, 4, padded);
    if (shift)
        x = tr_copy(tr, x, 4, padded);   /* torch.roll */
    int64_t win[3] = {b * nw, n, c};
    x = tr_copy(tr, x, 3, win);
    TId qkv = linear(tr, x, 3 * c, true);
    int64_t hv[4] = {b * nw, heads, n, hd}, kt[4] = {b * nw, heads, hd, n};
    TId q = tr_view(tr, qkv, 4, hv), k = tr_view(tr, qkv, 4, hv), v = tr_view(tr, qkv, 4, hv);
    TId attn;
    if (v2) {
        TId kn = l2_normalize(tr, k);
        attn = tr_matmul(tr, l2_normalize(tr, q), tr_view(tr, kn, 4, kt));
        int64_t sd[3] = {heads, 1, 1};
        attn = tr_mul(tr, attn, param_tensor(tr, 3, sd));   /* * logit_scale.exp() */
    } else {
        attn = tr_matmul(tr, tr_scale(tr, q), tr_view(tr, k, 4, kt));
    }
    attn = tr_add(tr, attn, swin_bias(tr, heads, ws, v2));
    if (shift) {
        int64_t md[4] = {1, 1, n, n};
        attn = tr_add(tr, attn, fresh(tr, tr_dtype(tr, attn), 4, md, false));
    }
    attn = tr_softmax(tr, attn, false);
    TId o = tr_matmul(tr, attn, v);
    o = tr_copy(tr, o, 3, win);   /* transpose(1, 2).reshape(B*nW, N, C) */
    o = linear(tr, o, c, true);
    o = tr_copy(tr, o, 4, padded);
    if (shift)
        o = tr_copy(tr, o, 4, padded);
    if (ph != h || pw != w) {
        int64_t crop[4] = {b, h, w, c};
        o = tr_copy(tr, o, 4, crop);
    }
    return o;
}

static TId swin_mlp(Trace *tr, TId x)
{
    int64_t c = tr_dim(tr, x, -1);
    x = tr_act(tr, linear(tr, x, 4 * c, true), ACT_GELU, false);
    return linear(tr, x, c, true);
}

/* V1: x + sd(attn(norm1(x))), then x + sd(mlp(norm2(x))); V2 normalises
 * after the attention and the MLP instead (res-post-norm). */
static TId swin_block(Trace *tr, TId x, int64_t heads, int ws, int shift, double sd, bool v2)
{
    TId h = v2 ? ln(tr, swin_attention(tr, x, heads, ws, shift, true))
               : swin_attention(tr, ln(tr, x), heads, ws, shift, false);
    x = tr_add(tr, x, stochastic_depth(tr, h, sd));
    h = v2 ? ln(tr, swin_mlp(tr, x)) : swin_mlp(tr, ln(tr, x));
    return tr_add(tr, x, stochastic_depth(tr, h, sd));
}

/* PatchMerging (V1: cat, norm(4C), reduction; V2: cat, reduction, norm(2C));
 * odd sizes are padded first (F.pad: a copy), the four strided slices are
 * views of it. */
static TId patch_merge(Trace *tr, TId x, bool v2)
{
    int64_t b = tr_dim(tr, x, 0), h = tr_dim(tr, x, 1), w = tr_dim(tr, x, 2), c = tr_dim(tr, x, 3);
    int64_t padded[4] = {b, round_up_to(h, 2), round_up_to(w, 2), c};
    x = tr_copy(tr, x, 4, padded);
    int64_t q[4] = {b, padded[1] / 2, padded[2] / 2, c};
    TId parts[4];
    for (int i = 0; i < 4; i++)
        parts[i] = tr_view(tr, x, 4, q);
    x = tr_cat(tr, parts, 4, 3);
    if (v2)
        return ln(tr, linear(tr, x, 2 * c, false));
    return linear(tr, ln(tr, x), 2 * c, false);
}

/* swin_t: blocks 12d^2 + 13d + 169h each (norms 4d, qkv 3d^2 + 3d, proj
 * d^2 + d, MLP 8d^2 + 5d, bias table 169h): 2 x 112,347 + 2 x 445,878 +
 * 6 x 1,776,492 + 2 x 7,091,928; merges 8d^2 + 8d: 74,496 + 296,448 +
 * 1,182,720; stem 4,704 + 192; final norm 1,536; head 769,000: 28,288,354. */
static TId swin(Trace *tr, TId x, const VModel *m, int64_t nc)
{
    int64_t dim = m->i[0];
    const int32_t *depths = m->i + 1;
    int ws = m->i[5];
    bool v2 = m->i[6] != 0;
    x = conv(tr, x, dim, 4, 4, 0, 1, true);
    x = ln(tr, permute_nhwc(tr, x));
    int total = depths[0] + depths[1] + depths[2] + depths[3], id = 0;
    for (int s = 0; s < 4; s++) {
        int64_t heads = (int64_t)3 << s;
        if (dim == 128)
            heads = (int64_t)4 << s;
        for (int j = 0; j < depths[s]; j++, id++)
            x = swin_block(tr, x, heads, ws, j % 2 ? ws / 2 : 0, m->f[0] * id / (total - 1.0), v2);
        if (s < 3)
            x = patch_merge(tr, x, v2);
    }
    x = ln(tr, x);
    x = flatten(tr, tr_adaptive_pool(tr, permute_nchw(tr, x), 1, 1));
    return classifier(tr, x, nc, true);
}

/* ---- MaxViT (maxvit.py) -------------------------------------------------------------------- */

/* MaxVit builds its partition layers for one input size (input_size, (224,
 * 224) by default and forced by the weights): each departition reshapes by
 * the grid computed from it, so an image runs only if its stem (3x3, stride
 * 2, padding 1) gives the same 112 x 112 as 224 does. */
static bool maxvit_takes(int64_t image) { return image > 0 && (image - 1) / 2 + 1 == 112; }

/* MBConv: res = proj(x) where the stride or the width changes (3x3 average
 * pool, stride 2, padding 1, which saves its input; then a 1x1 conv with
 * bias), else x; layers: pre-norm BatchNorm, a 1x1 expansion to 4 x out and
 * a 3x3 depthwise conv carrying the stride (Conv2dNormActivation with
 * inplace=None: BatchNorm, nn.GELU, which saves its input), squeeze-excitation
 * to out / 4 (nn.SiLU not in place, sigmoid), a 1x1 conv with bias; the sum
 * res + stochastic_depth(layers(x)). */
static TId maxvit_mbconv(Trace *tr, TId x, int64_t out, int stride, double sd_prob)
{
    int64_t in = chans(tr, x), mid = 4 * out;
    TId res = x;
    if (stride != 1 || in != out) {
        if (stride == 2)
            res = tr_pool2d(tr, res, 3, 2, 1, false);
        res = conv(tr, res, out, 1, 1, 0, 1, true);
    }
    TId h = bn(tr, x);
    h = cna(tr, h, mid, 1, 1, 1, ACT_GELU);
    h = cna(tr, h, mid, 3, stride, (int)mid, ACT_GELU);
    h = squeeze_excite(tr, h, out / 4, ACT_SILU, false, ACT_SIGMOID);
    h = conv(tr, h, out, 1, 1, 0, 1, true);
    return tr_add(tr, res, stochastic_depth(tr, h, sd_prob));
}

/* An einsum operand as bmm takes it: sumproduct_pair permutes it to
 * (B, G, heads, rows, cols) and reshapes to (B*G*heads, rows, cols). q, k and
 * v are head splits of the qkv projection's last dimension (k * scale keeps
 * that layout), so the window index and the head index do not fold into one
 * stride: the reshape copies, except when B*G is 1 and only the heads remain.
 * bmm saves what it multiplies, the copies. */
static TId bmm_operand(Trace *tr, TId x, int64_t bg, int64_t heads, int64_t rows, int64_t cols)
{
    int64_t d[3] = {bg * heads, rows, cols};
    return bg > 1 ? tr_copy(tr, x, 3, d) : tr_view(tr, x, 3, d);
}

/* RelativePositionalMultiHeadAttention on (B, G, P, C): qkv linear, chunked
 * into head-split views; k * C^-0.5; einsum q k^T (bmm on copies), plus the
 * gathered relative position bias (its table's dtype: fp32 under autocast,
 * which promotes the sum), softmax (saves its output), einsum with v (bmm
 * saves the probabilities, cast to 16 bits under autocast, and v's copy);
 * the heads merged back by permute + reshape (a copy), the merge linear. */
static TId maxvit_attention(Trace *tr, TId x, int64_t head_dim, int part)
{
    int64_t b = tr_dim(tr, x, 0), g = tr_dim(tr, x, 1), p = tr_dim(tr, x, 2), c = tr_dim(tr, x, 3);
    int64_t heads = c / head_dim, bg = b * g;
    TId qkv = linear(tr, x, 3 * c, true);
    int64_t split[5] = {b, g, heads, p, head_dim};
    TId q = tr_view(tr, qkv, 5, split), k = tr_view(tr, qkv, 5, split), v = tr_view(tr, qkv, 5, split);
    k = tr_scale(tr, k);
    TId s = tr_matmul(tr, bmm_operand(tr, q, bg, heads, p, head_dim), bmm_operand(tr, k, bg, heads, head_dim, p));
    int64_t scores[5] = {b, g, heads, p, p};
    s = tr_view(tr, s, 5, scores);
    /* relative_position_index: a (P, P) int64 buffer */
    tr_buffer(tr, ck_mul(ck_mul((uint64_t)p, (uint64_t)p), 8));
    s = tr_softmax(tr, tr_add(tr, s, relative_bias(tr, heads, part, false, tr->weight_dtype)), false);
    int64_t flat[3] = {bg * heads, p, p};
    TId o = tr_matmul(tr, tr_view(tr, s, 3, flat), bmm_operand(tr, v, bg, heads, p, head_dim));
    int64_t merged[4] = {b, g, p, c};
    o = tr_copy(tr, o, 4, merged);
    return linear(tr, o, c, true);
}

/* PartitionAttentionLayer on (B, C, H, W): partition into (B, G, P*P, C)
 * (reshape, permute, reshape: a copy; "window" takes P x P windows, "grid"
 * a P x P grid of strided pixels, its (B, P*P, G, C) copy swapped to (B, G,
 * P*P, C) as a view), then x + sd(attention(norm(x))), x + sd(mlp(norm(x)))
 * (dropouts at torchvision's 0.0 are identities), and the departition back to
 * (B, C, H, W) (a copy). LayerNorm makes the grid's strided input contiguous
 * internally and saves the input itself: that transient is not modelled. */
static TId maxvit_partition(Trace *tr, TId x, int64_t head_dim, int part, bool grid, double sd_prob)
{
    int64_t b = tr_dim(tr, x, 0), c = chans(tr, x), h = tr_dim(tr, x, 2), w = tr_dim(tr, x, 3);
    int64_t n = (int64_t)part * part, g = (h / part) * (w / part);
    int64_t windows[4] = {b, g, n, c}, strided[4] = {b, n, g, c};
    TId y = grid ? tr_view(tr, tr_copy(tr, x, 4, strided), 4, windows) : tr_copy(tr, x, 4, windows);
    TId a = maxvit_attention(tr, ln(tr, y), head_dim, part);
    y = tr_add(tr, y, stochastic_depth(tr, a, sd_prob));
    y = tr_add(tr, y, stochastic_depth(tr, swin_mlp(tr, ln(tr, y)), sd_prob));
    int64_t nchw[4] = {b, c, h, w};
    return tr_copy(tr, y, 4, nchw);
}

/* maxvit_t: stem 1,728 + 128 + 36,928; MBConv with out C, in C_in, mid 4C,
 * squeeze C/4: 2 C_in + C_in mid + 2 mid + 11 mid + 2 mid C/4 + C/4 + mid +
 * mid C + C, plus C_in C + C for the first of a block; each partition layer
 * 12C^2 + 13C + 169 C/32: blocks 294,952 + 1,114,064 + 11,165,456 +
 * 17,530,688; classifier 1,024 + 262,656 + 512,000: 30,919,624. */
static TId maxvit(Trace *tr, TId x, const VModel *m, int64_t nc)
{
    int64_t head_dim = m->i[6];
    int part = m->i[7];
    const int32_t *layers = m->i + 2;
    x = cna(tr, x, m->i[0], 3, 2, 1, ACT_GELU);
    x = conv(tr, x, m->i[0], 3, 1, 1, 1, true);
    int total = layers[0] + layers[1] + layers[2] + layers[3], id = 0;
    int64_t c = m->i[1];
    for (int s = 0; s < 4; s++, c *= 2) {
        for (int j = 0; j < layers[s]; j++, id++) {
            double sd = m->f[0] * id / (total - 1.0);   /* np.linspace(0, p, total) */
            x = maxvit_mbconv(tr, x, c, j ? 1 : 2, sd);
            x = maxvit_partition(tr, x, head_dim, part, false, sd);
            x = maxvit_partition(tr, x, head_dim, part, true, sd);
        }
    }
    x = ln(tr, pool_flatten(tr, x));
    x = tr_act(tr, linear(tr, x, chans(tr, x), true), ACT_TANH, false);
    return classifier(tr, x, nc, false);
}

/* ---- entry --------------------------------------------------------------------------------- */

static const VModel *find_model(const char *name)
{
    for (size_t i = 0; i < NMODELS && name; i++)
        if (strcmp(models[i].name, name) == 0)
            return &models[i];
    return NULL;
}

const char *vision_image_refusal(const char *name, int64_t image)
{
    const VModel *m = find_model(name);
    if (m && m->fam == F_VIT && (image <= 0 || image % m->i[0] != 0))
        return "a ViT's patch size must divide the image size (torchvision asserts it)";
    if (m && m->fam == F_MAXVIT && !maxvit_takes(image))
        return "maxvit_t is built for 224 x 224 images (its input_size, which the weights impose): "
               "each partition layer splits the 56, 28, 14 and 7 grids computed from it into 7 x 7 "
               "windows, and only 223 or 224 gives those grids (torchvision fails in the "
               "departition's reshape; pfc does not model another input_size)";
    return NULL;
}

/* Each family's head as its builder above records it (the Linear's input
 * is the width of the last feature map, or of the last hidden layer). */
bool vision_head(const char *name, VisionHead *out)
{
    const VModel *m = find_model(name);
    if (!m)
        return false;
    *out = (VisionHead){"classifier", -1, NULL, 0};
    switch (m->fam) {
    case F_RESNET: *out = (VisionHead){"fc", -1, NULL, m->i[0] ? 2048 : 512}; return true;
    case F_VGG: case F_ALEXNET: out->index = 6; out->in_features = 4096; return true;
    case F_DENSENET: {
        int64_t f = m->i[1];
        for (int b = 0; b < 4; b++)
            f = b < 3 ? (f + m->i[2 + b] * m->i[0]) / 2 : f + m->i[2 + b] * m->i[0];
        out->in_features = f;
        return true;
    }
    case F_EFFNET: out->index = 1; out->in_features = 4 * make_divisible(320 * m->f[0], 8, 0); return true;
    case F_EFFNET_V2: case F_MOBILENET_V2: case F_MNASNET: out->index = 1; out->in_features = 1280; return true;
    case F_MOBILENET_V3: out->index = 3; out->in_features = m->i[0] ? 1280 : 1024; return true;
    case F_VIT: *out = (VisionHead){"heads", -1, "head", m->i[3]}; return true;
    case F_CONVNEXT: out->index = 2; out->in_features = m->i[3]; return true;
    case F_SHUFFLENET: *out = (VisionHead){"fc", -1, NULL, m->i[3]}; return true;
    case F_GOOGLENET: *out = (VisionHead){"fc", -1, NULL, 1024}; return true;
    case F_INCEPTION: *out = (VisionHead){"fc", -1, NULL, 2048}; return true;
    case F_SWIN: *out = (VisionHead){"head", -1, NULL, 8 * (int64_t)m->i[0]}; return true;
    case F_MAXVIT: out->index = 5; out->in_features = 8 * (int64_t)m->i[1]; return true;
    default: return false;
    }
}

bool vision_build(Trace *tr, const char *name, int64_t batch, int64_t image, int64_t num_classes,
                  TId *logits)
{
    const VModel *m = find_model(name);
    if (!m || batch <= 0 || image <= 0 || num_classes <= 0 || vision_image_refusal(name, image))
        return false;
    /* fp32 images; a model converted to 16 bits without autocast (model.half())
     * is fed images of its own dtype, or the first conv would fail */
    int64_t dims[4] = {batch, 3, image, image};
    DType in_dt = tr->weight_dtype != DT_F32 && !tr->autocast_on ? tr->weight_dtype : DT_F32;
    TId x = tr_input(tr, in_dt, 4, dims);
    TId y = 0;
    switch (m->fam) {
    case F_RESNET: y = resnet(tr, x, m, num_classes); break;
    case F_VGG: y = vgg(tr, x, m, num_classes); break;
    case F_DENSENET: y = densenet(tr, x, m, num_classes); break;
    case F_EFFNET: y = efficientnet(tr, x, m, num_classes); break;
    case F_EFFNET_V2: y = efficientnet_v2(tr, x, m, num_classes); break;
    case F_MOBILENET_V2: y = mobilenet_v2(tr, x, num_classes); break;
    case F_MOBILENET_V3: y = mobilenet_v3(tr, x, m, num_classes); break;
    case F_VIT: y = vit(tr, x, m, num_classes); break;
    case F_CONVNEXT: y = convnext(tr, x, m, num_classes); break;
    case F_REGNET: y = regnet(tr, x, m, num_classes); break;
    case F_ALEXNET: y = alexnet(tr, x, num_classes); break;
    case F_SQUEEZENET: y = squeezenet(tr, x, m, num_classes); break;
    case F_SHUFFLENET: y = shufflenet(tr, x, m, num_classes); break;
    case F_MNASNET: y = mnasnet(tr, x, m, num_classes); break;
    case F_GOOGLENET: y = googlenet(tr, x, num_classes); break;
    case F_INCEPTION: y = inception_v3(tr, x, num_classes); break;
    case F_SWIN: y = swin(tr, x, m, num_classes); break;
    case F_MAXVIT: y = maxvit(tr, x, m, num_classes); break;
    }
    if (logits)
        *logits = y;
    return y != 0;
}
