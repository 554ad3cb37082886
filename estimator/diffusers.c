/* diffusers' UNets as trace recordings (see diffusers.h).
 *
 * Every module follows diffusers' source (src/diffusers/models: unets/
 * unet_2d.py, unet_2d_condition.py, unet_2d_blocks.py, resnet.py,
 * downsampling.py, upsampling.py, transformers/transformer_2d.py,
 * attention.py, attention_processor.py's AttnProcessor2_0, embeddings.py),
 * with its parameters' shapes, so a configuration's total is diffusers':
 *   - ResnetBlock2D: GroupNorm, SiLU, 3x3 conv, SiLU(temb) and its Linear
 *     (2 x channels under "scale_shift"), added as (N, C, 1, 1), GroupNorm,
 *     SiLU, dropout, 3x3 conv, a 1x1 conv shortcut where the channels change,
 *     (shortcut + h) / output_scale_factor. nn.SiLU is not in place: it saves
 *     its input; GroupNorm saves its input and (N, groups) mean and rstd, in
 *     fp32 under autocast (group_norm is on autocast's fp32 list, so the
 *     following SiLU runs in fp32 and the conv saves a 16-bit copy);
 *   - the spatial Attention of Attn*Block2D (_from_deprecated_attn_block):
 *     (N, C, H*W) view, GroupNorm, then to_q, to_k, to_v with bias on the
 *     transposed view: a non-contiguous 3-D input, which F.linear folds into
 *     a (N*H*W, C) copy per projection that its matmul saves;
 *     scaled_dot_product_attention on (N, heads, H*W, head_dim) views, a
 *     fused kernel (q, k, v, output, log-sum-exp saved), to_out with bias,
 *     the transpose back to (N, C, H, W) a reshape copy, + residual,
 *     / rescale_output_factor;
 *   - Transformer2DModel (continuous input): GroupNorm (eps 1e-6), proj_in a
 *     1x1 conv (then the NHWC permute-reshape, a copy) or, with
 *     use_linear_projection, the copy first and a Linear; BasicTransformerBlocks
 *     (LayerNorm, self-attention with bias-free q/k/v, + x; LayerNorm,
 *     cross-attention on encoder_hidden_states, + x; LayerNorm, GEGLU
 *     feed-forward (Linear to 8 x dim, chunk, x * gelu(gate), Linear back),
 *     + x); proj_out and the copy back to NCHW, + residual. Under autocast
 *     each projection casts its input again (autocast caches only weights);
 *   - Downsample2D: a 3x3 stride-2 conv, after F.pad(0, 1, 0, 1) when its
 *     padding is 0; Upsample2D: nearest 2x interpolation (its backward needs
 *     no tensor) and a 3x3 conv; the up blocks concatenate each skip
 *     (torch.cat, saved by the next GroupNorm and shortcut conv);
 *   - the time embedding: the sinusoidal projection (no parameters, no
 *     grad), TimestepEmbedding (Linear, SiLU, Linear); SDXL's text_time
 *     embedding (time_ids projected, concatenated with text_embeds, a second
 *     TimestepEmbedding, added); class labels through an nn.Embedding.
 * With gradient checkpointing (enable_gradient_checkpointing()) each ResNet
 * and each BasicTransformerBlock is a checkpointed region, as the blocks'
 * forwards call _gradient_checkpointing_func; the spatial attentions are not.
 * Dropout in attention and feed-forward is diffusers' 0 in these blocks.
 *
 * Approximations (the report says so): the fused attention kernel is
 * assumed for every head size (the math fallback would keep the scores);
 * the sinusoidal projections' small temporaries are one tensor each; not
 * calibrated against a measurement (shared/calibration has no UNet). */
#include "checked.h"
#include "diffusers.h"
#include <string.h>

/* ---- known checkpoints (their unet/config.json) ------------------------------------------ */

#define SD_COMMON \
    .conditional = true, .nblocks = 4, .channels = {320, 640, 1280, 1280}, \
    .down = {UB_CROSS, UB_CROSS, UB_CROSS, UB_PLAIN}, .up = {UB_PLAIN, UB_CROSS, UB_CROSS, UB_CROSS}, \
    .mid = UM_CROSS, .layers = {2, 2, 2, 2}, .depth = {1, 1, 1, 1}, .in_channels = 4, .out_channels = 4, \
    .groups = 32, .conv_in_kernel = 3, .conv_out_kernel = 3, .downsample_padding = 1
/* Stable Diffusion 1.x: attention_head_dim 8 (read as 8 heads), CLIP ViT-L's 768 */
#define SD1 {SD_COMMON, .heads = {8, 8, 8, 8}, .head_dim = {8, 8, 8, 8}, \
             .cross_dim = {768, 768, 768, 768}, .sample_size = 64}
/* Stable Diffusion 2.x: attention_head_dim (5, 10, 20, 20), OpenCLIP ViT-H's 1024, linear projections */
#define SD2(side) {SD_COMMON, .heads = {5, 10, 20, 20}, .head_dim = {5, 10, 20, 20}, \
                   .cross_dim = {1024, 1024, 1024, 1024}, .linear_projection = true, .sample_size = side}
/* SDXL base: three blocks, transformer depth (1, 2, 10), the text_time embedding */
#define SDXL {.conditional = true, .nblocks = 3, .channels = {320, 640, 1280}, \
              .down = {UB_PLAIN, UB_CROSS, UB_CROSS}, .up = {UB_CROSS, UB_CROSS, UB_PLAIN}, .mid = UM_CROSS, \
              .layers = {2, 2, 2}, .depth = {1, 2, 10}, .heads = {5, 10, 20}, .head_dim = {5, 10, 20}, \
              .cross_dim = {2048, 2048, 2048}, .linear_projection = true, .in_channels = 4, .out_channels = 4, \
              .sample_size = 128, .groups = 32, .conv_in_kernel = 3, .conv_out_kernel = 3, \
              .downsample_padding = 1, .addition_time_embed_dim = 256, .addition_input_dim = 2816}
/* DDPM on CIFAR-10 (UNet2DModel): attention_head_dim None (one head), downsample_padding 0 */
#define DDPM_CIFAR {.nblocks = 4, .channels = {128, 256, 256, 256}, \
                    .down = {UB_PLAIN, UB_ATTN, UB_PLAIN, UB_PLAIN}, .up = {UB_PLAIN, UB_PLAIN, UB_ATTN, UB_PLAIN}, \
                    .mid = UM_ATTN, .mid_attn_groups = 32, .layers = {2, 2, 2, 2}, .depth = {1, 1, 1, 1}, \
                    .in_channels = 3, .out_channels = 3, .sample_size = 32, .groups = 32, \
                    .conv_in_kernel = 3, .conv_out_kernel = 3, .downsample_padding = 0}

static const struct Known {
    const char *name;
    bool subfolder;   /* a pipeline repository: the UNet is under unet/ */
    UNetConfig c;
} known[] = {
    {"runwayml/stable-diffusion-v1-5", true, SD1},
    {"stable-diffusion-v1-5/stable-diffusion-v1-5", true, SD1},
    {"CompVis/stable-diffusion-v1-4", true, SD1},
    {"stabilityai/stable-diffusion-2-1", true, SD2(96)},
    {"stabilityai/stable-diffusion-2-1-base", true, SD2(64)},
    {"stabilityai/stable-diffusion-xl-base-1.0", true, SDXL},
    {"google/ddpm-cifar10-32", false, DDPM_CIFAR},
};
#define NKNOWN (sizeof known / sizeof known[0])

static const struct Known *find_known(const char *name)
{
    for (size_t i = 0; name && i < NKNOWN; i++)
        if (strcmp(known[i].name, name) == 0)
            return &known[i];
    return NULL;
}

bool diffusers_known(const char *name, UNetConfig *out)
{
    const struct Known *k = find_known(name);
    if (k)
        *out = k->c;
    return k != NULL;
}

bool diffusers_in_subfolder(const char *name)
{
    const struct Known *k = find_known(name);
    return k && k->subfolder;
}

const char *const *diffusers_names(size_t *n)
{
    static const char *const names[] = {
        "runwayml/stable-diffusion-v1-5", "stable-diffusion-v1-5/stable-diffusion-v1-5",
        "CompVis/stable-diffusion-v1-4", "stabilityai/stable-diffusion-2-1",
        "stabilityai/stable-diffusion-2-1-base", "stabilityai/stable-diffusion-xl-base-1.0",
        "google/ddpm-cifar10-32",
    };
    _Static_assert(sizeof names / sizeof names[0] == NKNOWN, "one listed name per known UNet");
    *n = NKNOWN;
    return names;
}

void diffusers_defaults(UNetConfig *c, bool conditional)
{
    static const UNetConfig unet2d = {
        .nblocks = 4, .channels = {224, 448, 672, 896}, .down = {UB_PLAIN, UB_ATTN, UB_ATTN, UB_ATTN},
        .up = {UB_ATTN, UB_ATTN, UB_ATTN, UB_PLAIN}, .mid = UM_ATTN, .mid_head_dim = 8, .mid_attn_groups = 32,
        .layers = {2, 2, 2, 2}, .depth = {1, 1, 1, 1}, .head_dim = {8, 8, 8, 8}, .in_channels = 3,
        .out_channels = 3, .groups = 32, .conv_in_kernel = 3, .conv_out_kernel = 3, .downsample_padding = 1};
    static const UNetConfig condition = {
        SD_COMMON, .heads = {8, 8, 8, 8}, .head_dim = {8, 8, 8, 8}, .cross_dim = {1280, 1280, 1280, 1280}};
    *c = conditional ? condition : unet2d;
    for (int i = 4; i < UNET_MAX_BLOCKS; i++) {   /* what a longer block_out_channels gets per block */
        c->layers[i] = 2;
        c->depth[i] = 1;
        c->heads[i] = c->head_dim[i] = 8;
        c->cross_dim[i] = c->cross_dim[0];
    }
}

/* ---- what diffusers would refuse --------------------------------------------------------- */

#define UNET_MAX_LAYERS 100   /* per block: more would only be a runaway loop to record */
#define UNET_MAX_CHANNELS ((int64_t)1 << 20)

static bool has_cross(const UNetConfig *c, int i);

static const char *block_refusal(Arena *a, const UNetConfig *c, int i)
{
    int64_t ch = c->channels[i];
    if (ch <= 0 || ch > UNET_MAX_CHANNELS)
        return arena_printf(a, "block_out_channels[%d] is %lld, not a channel count pfc can estimate", i,
                            (long long)ch);
    if (ch % c->groups)
        return arena_printf(a, "block_out_channels[%d] = %lld is not a multiple of norm_num_groups = %lld "
                               "(GroupNorm refuses it)", i, (long long)ch, (long long)c->groups);
    if (c->layers[i] < 1 || c->layers[i] > UNET_MAX_LAYERS || c->depth[i] < 0 || c->depth[i] > UNET_MAX_LAYERS)
        return arena_printf(a, "block %d's layers_per_block (%lld) or transformer_layers_per_block (%lld) is "
                               "not 1 to %d", i, (long long)c->layers[i], (long long)c->depth[i], UNET_MAX_LAYERS);
    bool cross = has_cross(c, i);
    if (cross && (c->heads[i] <= 0 || ch % c->heads[i]))
        return arena_printf(a, "block %d's %lld channels do not split into %lld attention heads (the "
                               "Transformer2DModel's residual would not match)", i, (long long)ch,
                            (long long)c->heads[i]);
    if (cross && (c->cross_dim[i] <= 0 || c->cross_dim[i] > UNET_MAX_CHANNELS))
        return arena_printf(a, "block %d's cross_attention_dim is %lld", i, (long long)c->cross_dim[i]);
    return NULL;
}

/* A spatial attention over ch channels with head_dim channels a head. */
static const char *heads_refusal(Arena *a, int64_t ch, int64_t head_dim, const char *where)
{
    if (head_dim < 0 || head_dim > ch)
        return arena_printf(a, "%s's attention_head_dim %lld gives no head over %lld channels", where,
                            (long long)head_dim, (long long)ch);
    return NULL;
}

static const char *geometry_refusal(Arena *a, const UNetConfig *c)
{
    if (c->nblocks < 1 || c->nblocks > UNET_MAX_BLOCKS)
        return arena_printf(a, "%d blocks: pfc models 1 to %d", c->nblocks, UNET_MAX_BLOCKS);
    if (c->groups <= 0 || c->in_channels <= 0 || c->in_channels > UNET_MAX_CHANNELS || c->out_channels <= 0 ||
        c->out_channels > UNET_MAX_CHANNELS)
        return "norm_num_groups, in_channels or out_channels is not a positive size pfc can estimate";
    if (c->conv_in_kernel < 1 || c->conv_in_kernel % 2 == 0 || c->conv_out_kernel < 1 || c->conv_out_kernel % 2 == 0 ||
        c->conv_in_kernel > 15 || c->conv_out_kernel > 15)
        return "conv_in_kernel and conv_out_kernel must be odd (1 to 15) for the sample to keep its size";
    if (c->time_embed_dim < 0 || c->time_embed_dim > UNET_MAX_CHANNELS || c->num_class_embeds < 0 ||
        c->num_class_embeds > CK_DIM_MAX)
        return "time_embedding_dim or num_class_embeds is not a size pfc can estimate";
    if (c->addition_time_embed_dim &&
        (c->addition_time_embed_dim < 0 || c->addition_time_embed_dim > UNET_MAX_CHANNELS ||
         c->addition_input_dim <= 6 * c->addition_time_embed_dim || c->addition_input_dim > UNET_MAX_CHANNELS))
        return "addition_embed_type 'text_time' needs projection_class_embeddings_input_dim above 6 x "
               "addition_time_embed_dim (the text embedding and six time ids)";
    if (c->dropout < 0 || c->dropout >= 1)
        return "dropout is not in [0, 1)";
    return NULL;
}

static bool has_cross(const UNetConfig *c, int i)
{
    return c->down[i] == UB_CROSS || c->up[c->nblocks - 1 - i] == UB_CROSS ||
           (i == c->nblocks - 1 && c->mid == UM_CROSS);
}

/* One encoder_hidden_states feeds every cross-attention: their
 * cross_attention_dim must agree (diffusers' to_k would refuse it). */
static const char *cross_dim_refusal(Arena *a, const UNetConfig *c)
{
    int first = -1;
    for (int i = 0; i < c->nblocks; i++) {
        if (!has_cross(c, i))
            continue;
        if (first < 0)
            first = i;
        else if (c->cross_dim[i] != c->cross_dim[first])
            return arena_printf(a, "cross_attention_dim differs between blocks (%lld, %lld) while one "
                                   "encoder_hidden_states feeds them all", (long long)c->cross_dim[first],
                                (long long)c->cross_dim[i]);
    }
    return NULL;
}

int64_t diffusers_cross_dim(const UNetConfig *c)
{
    for (int i = 0; i < c->nblocks; i++)
        if (has_cross(c, i))
            return c->cross_dim[i];
    return 0;
}

const char *diffusers_refusal(Arena *a, const UNetConfig *c, int64_t height, int64_t width)
{
    const char *why = geometry_refusal(a, c);
    for (int i = 0; !why && i < c->nblocks; i++)
        why = block_refusal(a, c, i);
    for (int i = 0; !why && i < c->nblocks; i++) {
        if (c->down[i] == UB_ATTN)
            why = heads_refusal(a, c->channels[i], c->head_dim[i], "a down block");
        if (!why && c->up[i] == UB_ATTN)   /* the i-th up block reads head_dim[i] */
            why = heads_refusal(a, c->channels[c->nblocks - 1 - i], c->head_dim[i], "an up block");
    }
    if (!why && c->mid == UM_ATTN)
        why = heads_refusal(a, c->channels[c->nblocks - 1], c->mid_head_dim, "the mid block");
    if (!why)
        why = cross_dim_refusal(a, c);
    if (why || !height)
        return why;
    int64_t step = (int64_t)1 << (c->nblocks - 1);
    if (height <= 0 || width <= 0 || height > CK_DIM_MAX || width > CK_DIM_MAX || height % step || width % step)
        return arena_printf(a, "the sample is %lld x %lld: pfc models UNet sides that are multiples of %lld "
                               "(2 to the number of downsamplers), where every skip connection matches",
                            (long long)height, (long long)width, (long long)step);
    return NULL;
}

/* ---- layers over the trace API ----------------------------------------------------------- */

typedef struct Unet {
    Trace *tr;
    const UNetConfig *c;
    TId temb;          /* the time embedding every ResNet reads */
    TId enc;           /* encoder_hidden_states, for the cross-attentions */
    bool ckpt;         /* checkpoint each ResNet and BasicTransformerBlock */
    TId *skips;        /* the down path's outputs the up blocks concatenate */
    int nskips;
    uint32_t units;    /* ResNets and BasicTransformerBlocks: FSDP's wrapping units */
} Unet;

static int64_t dim(const Trace *tr, TId x, int i) { return tr_dim(tr, x, i); }

static TId view(Trace *tr, TId x, int nd, int64_t d0, int64_t d1, int64_t d2, int64_t d3)
{
    int64_t d[4] = {d0, d1, d2, d3};
    return tr_view(tr, x, nd, d);
}

/* nn.Conv2d(cin, cout, k, stride, padding) with its bias (every conv of the UNet has one) */
static TId conv(Trace *tr, TId x, int64_t cout, int k, int stride, int pad)
{
    uint64_t cin = (uint64_t)dim(tr, x, 1);
    uint32_t w = tr_param(tr, ck_mul(ck_mul(cin, (uint64_t)cout), (uint64_t)k * (uint64_t)k));
    uint32_t b = tr_param(tr, (uint64_t)cout);
    return tr_conv2d(tr, x, cout, k, stride, pad, 1, w, b);
}

static TId linear(Trace *tr, TId x, int64_t out, bool bias)
{
    uint32_t w = tr_param(tr, ck_mul((uint64_t)dim(tr, x, -1), (uint64_t)out));
    uint32_t b = bias ? tr_param(tr, (uint64_t)out) : 0;
    return tr_linear(tr, x, out, w, b);
}

static TId group_norm(Trace *tr, TId x, int64_t groups)
{
    uint64_t ch = (uint64_t)dim(tr, x, 1);
    uint32_t w = tr_param(tr, ch);
    uint32_t b = tr_param(tr, ch);
    return tr_group_norm(tr, x, groups, w, b);
}

static TId layer_norm(Trace *tr, TId x)
{
    uint64_t d = (uint64_t)dim(tr, x, -1);
    uint32_t w = tr_param(tr, d);
    uint32_t b = tr_param(tr, d);
    return tr_layer_norm(tr, x, w, b);
}

static TId silu(Trace *tr, TId x) { return tr_act(tr, x, ACT_SILU, false); }

/* TimestepEmbedding: Linear, SiLU, Linear */
static TId timestep_embedding(Trace *tr, TId x, int64_t width)
{
    return linear(tr, silu(tr, linear(tr, x, width, true)), width, true);
}

/* A sinusoidal projection (Timesteps): (rows, width) fp32, made from
 * integers, outside the graph. */
static TId sinusoids(Trace *tr, int64_t rows, int64_t width)
{
    int64_t d[2] = {rows, width};
    return tr_new(tr, DT_F32, 2, d);
}

/* ---- ResnetBlock2D ------------------------------------------------------------------------ */

static TId resnet_body(Unet *u, TId x, int64_t cout)
{
    Trace *tr = u->tr;
    const UNetConfig *c = u->c;
    int64_t n = dim(tr, x, 0);
    TId h = conv(tr, silu(tr, group_norm(tr, x, c->groups)), cout, 3, 1, 1);
    TId t = linear(tr, silu(tr, u->temb), c->scale_shift ? 2 * cout : cout, true);
    if (!c->scale_shift) {
        h = group_norm(tr, tr_add(tr, h, view(tr, t, 4, n, cout, 1, 1)), c->groups);
    } else {
        /* time_scale, time_shift = chunk(temb, 2): h * (1 + scale) + shift */
        TId scale = tr_scale(tr, view(tr, t, 4, n, cout, 1, 1));
        TId shift = view(tr, t, 4, n, cout, 1, 1);
        h = tr_add(tr, tr_mul(tr, group_norm(tr, h, c->groups), scale), shift);
    }
    h = conv(tr, tr_dropout(tr, silu(tr, h), c->dropout), cout, 3, 1, 1);
    TId skip = dim(tr, x, 1) != cout ? conv(tr, x, cout, 1, 1, 0) : x;
    return tr_scale(tr, tr_add(tr, skip, h));   /* / output_scale_factor */
}

static TId resnet(Unet *u, TId x, int64_t cout)
{
    u->units++;
    if (!u->ckpt)
        return resnet_body(u, x, cout);
    tr_ckpt_begin(u->tr, x);
    TId y = resnet_body(u, x, cout);
    tr_ckpt_end(u->tr);
    return y;
}

/* ---- attention ---------------------------------------------------------------------------- */

/* q (n, s, heads * hd) and k, v (n, s_kv, heads * hd) as (n, heads, s, hd)
 * views into scaled_dot_product_attention; the output, whose memory is
 * (n, s, heads, hd), back as (n, s, heads * hd) without a copy. */
static TId sdpa_heads(Trace *tr, TId q, TId k, TId v, int64_t heads)
{
    int64_t n = dim(tr, q, 0), s = dim(tr, q, 1), skv = dim(tr, k, 1), inner = dim(tr, q, 2);
    int64_t hd = inner / heads;
    TId o = tr_sdpa(tr, view(tr, q, 4, n, heads, s, hd), view(tr, k, 4, n, heads, skv, hd),
                    view(tr, v, 4, n, heads, skv, hd), 0);
    return view(tr, o, 3, n, s, inner, 0);
}

/* F.linear on a transposed (n, s, c) view of a (n, c, s) tensor: autocast's
 * cast keeps the strides, and matmul folds the input into a (n*s, c) copy
 * that it saves. */
static TId folded_linear(Trace *tr, TId x_ncs, int64_t out)
{
    int64_t n = dim(tr, x_ncs, 0), ch = dim(tr, x_ncs, 1), s = dim(tr, x_ncs, 2);
    TId src = x_ncs;
    if (tr->autocast_on && tr_dtype(tr, src) == DT_F32)
        src = tr_cast(tr, src, tr->autocast);
    int64_t fold[2] = {n * s, ch};
    TId y = linear(tr, tr_copy(tr, src, 2, fold), out, true);
    return view(tr, y, 3, n, s, out, 0);
}

/* Attention(c, heads=c // head_dim, dim_head=head_dim, bias=True,
 * norm_num_groups=groups, residual_connection=True) on (n, c, h, w) */
static TId spatial_attention(Unet *u, TId x, int64_t head_dim, int64_t groups)
{
    Trace *tr = u->tr;
    int64_t n = dim(tr, x, 0), ch = dim(tr, x, 1), h = dim(tr, x, 2), w = dim(tr, x, 3);
    int64_t hd = head_dim ? head_dim : ch, heads = ch / hd, inner = heads * hd;
    TId flat = view(tr, x, 3, n, ch, h * w, 0);
    TId normed = groups ? group_norm(tr, flat, groups) : flat;
    TId q = folded_linear(tr, normed, inner);
    TId k = folded_linear(tr, normed, inner);
    TId v = folded_linear(tr, normed, inner);
    TId o = linear(tr, sdpa_heads(tr, q, k, v, heads), ch, true);
    int64_t nchw[4] = {n, ch, h, w};
    o = tr_copy(tr, o, 4, nchw);   /* transpose(-1, -2).reshape(n, c, h, w) */
    return tr_scale(tr, tr_add(tr, o, x));   /* / rescale_output_factor */
}

/* Attention(dim, heads, dim_head, bias=False) of BasicTransformerBlock:
 * self-attention when kv is 0, else cross-attention on kv */
static TId block_attention(Trace *tr, TId x, TId kv, int64_t heads)
{
    int64_t d = dim(tr, x, -1);
    TId src = kv ? kv : x;
    TId q = linear(tr, x, d, false);
    TId k = linear(tr, src, d, false);
    TId v = linear(tr, src, d, false);
    /* to_out, Dropout(0), then AttnProcessor2_0's / rescale_output_factor */
    return tr_scale(tr, linear(tr, sdpa_heads(tr, q, k, v, heads), d, true));
}

/* FeedForward(dim, activation_fn="geglu"): proj to 2 x 4 x dim, chunk,
 * hidden * gelu(gate), Linear back */
static TId geglu_ff(Trace *tr, TId x)
{
    int64_t n = dim(tr, x, 0), s = dim(tr, x, 1), d = dim(tr, x, 2);
    TId p = linear(tr, x, 8 * d, true);
    TId hidden = view(tr, p, 3, n, s, 4 * d, 0);
    TId gate = view(tr, p, 3, n, s, 4 * d, 0);
    TId m = tr_mul(tr, hidden, tr_act(tr, gate, ACT_GELU, false));
    return linear(tr, m, d, true);
}

static TId basic_block(Unet *u, TId x, int64_t heads)
{
    Trace *tr = u->tr;
    x = tr_add(tr, block_attention(tr, layer_norm(tr, x), 0, heads), x);
    x = tr_add(tr, block_attention(tr, layer_norm(tr, x), u->enc, heads), x);
    return tr_add(tr, geglu_ff(tr, layer_norm(tr, x)), x);
}

static TId transformer_block(Unet *u, TId x, int64_t heads)
{
    u->units++;
    if (!u->ckpt)
        return basic_block(u, x, heads);
    tr_ckpt_begin(u->tr, x);
    TId y = basic_block(u, x, heads);
    tr_ckpt_end(u->tr);
    return y;
}

/* Transformer2DModel(heads, c // heads, in_channels=c, num_layers=depth) */
static TId transformer2d(Unet *u, TId x, int64_t heads, int64_t depth)
{
    Trace *tr = u->tr;
    int64_t n = dim(tr, x, 0), ch = dim(tr, x, 1), h = dim(tr, x, 2), w = dim(tr, x, 3);
    int64_t tokens[3] = {n, h * w, ch}, nchw[4] = {n, ch, h, w};
    TId hs = group_norm(tr, x, u->c->groups);
    if (u->c->linear_projection)
        hs = linear(tr, tr_copy(tr, hs, 3, tokens), ch, true);
    else
        hs = tr_copy(tr, conv(tr, hs, ch, 1, 1, 0), 3, tokens);   /* permute(0, 2, 3, 1).reshape */
    for (int64_t i = 0; i < depth; i++)
        hs = transformer_block(u, hs, heads);
    if (u->c->linear_projection)
        hs = tr_copy(tr, linear(tr, hs, ch, true), 4, nchw);   /* reshape, permute, contiguous() */
    else
        hs = conv(tr, tr_copy(tr, hs, 4, nchw), ch, 1, 1, 0);
    return tr_add(tr, hs, x);
}

/* ---- sampling ----------------------------------------------------------------------------- */

static TId downsample(Unet *u, TId x)
{
    Trace *tr = u->tr;
    int pad = u->c->downsample_padding;
    if (pad == 0) {   /* F.pad(x, (0, 1, 0, 1)) */
        int64_t d[4] = {dim(tr, x, 0), dim(tr, x, 1), dim(tr, x, 2) + 1, dim(tr, x, 3) + 1};
        x = tr_remap(tr, "constant_pad_nd", x, 4, d);
    }
    return conv(tr, x, dim(tr, x, 1), 3, 2, pad);
}

static TId upsample(Unet *u, TId x)
{
    Trace *tr = u->tr;
    int64_t d[4] = {dim(tr, x, 0), dim(tr, x, 1), 2 * dim(tr, x, 2), 2 * dim(tr, x, 3)};
    return conv(tr, tr_remap(tr, "upsample_nearest2d", x, 4, d), d[1], 3, 1, 1);
}

/* ---- the blocks --------------------------------------------------------------------------- */

static void push_skip(Unet *u, TId x) { u->skips[u->nskips++] = x; }

static TId down_block(Unet *u, TId x, int i)
{
    const UNetConfig *c = u->c;
    int64_t ch = c->channels[i];
    for (int64_t l = 0; l < c->layers[i]; l++) {
        x = resnet(u, x, ch);
        if (c->down[i] == UB_ATTN)
            x = spatial_attention(u, x, c->head_dim[i], c->groups);
        else if (c->down[i] == UB_CROSS)
            x = transformer2d(u, x, c->heads[i], c->depth[i]);
        push_skip(u, x);
    }
    if (i < c->nblocks - 1) {
        x = downsample(u, x);
        push_skip(u, x);
    }
    return x;
}

static TId mid_block(Unet *u, TId x)
{
    const UNetConfig *c = u->c;
    int last = c->nblocks - 1;
    int64_t ch = c->channels[last];
    if (c->mid == UM_NONE)
        return x;
    x = resnet(u, x, ch);
    if (c->mid == UM_RESNET)
        return x;
    if (c->mid == UM_PAIR)
        return resnet(u, x, ch);
    if (c->mid == UM_ATTN)
        x = spatial_attention(u, x, c->mid_head_dim, c->mid_attn_groups);
    else
        x = transformer2d(u, x, c->heads[last], c->depth[last]);
    return resnet(u, x, ch);
}

/* The i-th up block: the settings of down block n-1-i, one more ResNet,
 * each on the concatenation with the skip the down path left last. */
static TId up_block(Unet *u, TId x, int i)
{
    const UNetConfig *c = u->c;
    int r = c->nblocks - 1 - i;
    int64_t ch = c->channels[r];
    for (int64_t l = 0; l <= c->layers[r]; l++) {
        TId parts[2] = {x, u->skips[--u->nskips]};
        x = resnet(u, tr_cat(u->tr, parts, 2, 1), ch);
        if (c->up[i] == UB_ATTN)
            x = spatial_attention(u, x, c->head_dim[i], c->groups);
        else if (c->up[i] == UB_CROSS)
            x = transformer2d(u, x, c->heads[r], c->depth[r]);
    }
    return i < c->nblocks - 1 ? upsample(u, x) : x;
}

/* ---- the model ---------------------------------------------------------------------------- */

static TId input_or_new(Trace *tr, TId given, DType dt, int nd, int64_t d0, int64_t d1, int64_t d2, int64_t d3)
{
    if (given)
        return given;
    int64_t d[4] = {d0, d1, d2, d3};
    TId t = tr_input(tr, dt, nd, d);
    tr->t.v[t].kept = false;   /* made for the call: not a value the script holds */
    return t;
}

/* The time embedding, plus the class and SDXL's text_time embeddings. */
static TId time_embedding(Unet *u, const UNetInputs *x)
{
    Trace *tr = u->tr;
    const UNetConfig *c = u->c;
    int64_t width = c->time_embed_dim ? c->time_embed_dim : 4 * c->channels[0];
    TId t = sinusoids(tr, x->batch, c->channels[0]);
    TId emb = timestep_embedding(tr, tr_cast(tr, t, tr->weight_dtype), width);   /* t_emb.to(self.dtype) */
    if (c->num_class_embeds) {
        TId labels = input_or_new(tr, x->class_labels, DT_I64, 1, x->batch, 0, 0, 0);
        uint32_t w = tr_param(tr, ck_mul((uint64_t)c->num_class_embeds, (uint64_t)width));
        emb = tr_add(tr, emb, tr_embedding(tr, labels, width, w));
    }
    if (c->addition_time_embed_dim) {
        int64_t text = c->addition_input_dim - 6 * c->addition_time_embed_dim;
        TId te = input_or_new(tr, x->text_embeds, tr->weight_dtype, 2, x->batch, text, 0, 0);
        TId ids = sinusoids(tr, x->batch * 6, c->addition_time_embed_dim);   /* add_time_proj(time_ids.flatten()) */
        TId parts[2] = {te, view(tr, ids, 2, x->batch, 6 * c->addition_time_embed_dim, 0, 0)};
        TId add = tr_cast(tr, tr_cat(tr, parts, 2, 1), tr_dtype(tr, emb));
        emb = tr_add(tr, emb, timestep_embedding(tr, add, width));
    }
    return emb;
}

static int total_skips(const UNetConfig *c)
{
    int n = 1;
    for (int i = 0; i < c->nblocks; i++)
        n += (int)c->layers[i] + 1;
    return n;
}

bool diffusers_build(Trace *tr, const UNetConfig *c, const UNetInputs *x, TId *out)
{
    if (diffusers_refusal(tr->arena, c, x->height, x->width) || x->batch <= 0)
        return false;
    Unet u = {tr, c, 0, 0, x->grad_ckpt && !tr->no_grad, NULL, 0, 0};
    u.skips = arena_alloc(tr->arena, (size_t)total_skips(c) * sizeof *u.skips);
    TId sample = input_or_new(tr, x->sample, tr->weight_dtype, 4, x->batch, c->in_channels, x->height, x->width);
    if (diffusers_cross_dim(c))
        u.enc = input_or_new(tr, x->encoder, tr->weight_dtype, 3, x->batch, x->text_len ? x->text_len : 77,
                             diffusers_cross_dim(c), 0);
    u.temb = time_embedding(&u, x);
    TId h = conv(tr, sample, c->channels[0], c->conv_in_kernel, 1, (c->conv_in_kernel - 1) / 2);
    push_skip(&u, h);
    for (int i = 0; i < c->nblocks; i++)
        h = down_block(&u, h, i);
    h = mid_block(&u, h);
    for (int i = 0; i < c->nblocks; i++)
        h = up_block(&u, h, i);
    h = silu(tr, group_norm(tr, h, c->groups));
    *out = conv(tr, h, c->out_channels, c->conv_out_kernel, 1, (c->conv_out_kernel - 1) / 2);
    tr->layers = u.units;   /* diffusers' _no_split_modules: what FSDP gathers one at a time */
    return true;
}
