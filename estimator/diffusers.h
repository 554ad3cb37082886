/* diffusers' UNet2DModel and UNet2DConditionModel recorded into a Trace
 * (see trace.h), from their configuration.
 *
 * A UNetConfig holds what the two constructors take that changes the
 * module tree or the forward's tensors: block_out_channels, the down and up
 * block types, layers_per_block, transformer_layers_per_block, heads,
 * cross_attention_dim, linear projections, the time and addition
 * embeddings. The builder creates every parameter with diffusers' shapes
 * (unet_2d_blocks.py, resnet.py, transformer_2d.py, attention.py,
 * attention_processor.py, embeddings.py), so the totals are the published
 * ones for any configuration, and records the forward op by op so that
 * trace.c's rules decide what is saved (diffusers.c says which ops and
 * where it approximates).
 *
 * The caller sets tr->weight_dtype, autocast, training and no_grad first; the
 * builder only records. */
#ifndef PFC_DIFFUSERS_H
#define PFC_DIFFUSERS_H
#include "../base/arena.h"
#include "trace.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UNET_MAX_BLOCKS 8

/* DownBlock2D/UpBlock2D (ResNets only), AttnDownBlock2D/AttnUpBlock2D
 * (ResNets, each followed by a spatial self-attention), CrossAttnDownBlock2D/
 * CrossAttnUpBlock2D (ResNets, each followed by a Transformer2DModel). */
typedef enum UNetBlock { UB_PLAIN, UB_ATTN, UB_CROSS } UNetBlock;
/* mid_block_type None, UNetMidBlock2D without attention (what
 * UNet2DConditionModel builds for "UNetMidBlock2D": one ResNet), UNet2DModel's
 * UNetMidBlock2D (ResNet, attention, ResNet), UNetMidBlock2DCrossAttn, and
 * UNet2DModel's with add_attention=False (two ResNets). */
typedef enum UNetMid { UM_NONE, UM_RESNET, UM_ATTN, UM_CROSS, UM_PAIR } UNetMid;

typedef struct UNetConfig {
    bool conditional;                        /* UNet2DConditionModel (else UNet2DModel) */
    int nblocks;                             /* len(block_out_channels) */
    int64_t channels[UNET_MAX_BLOCKS];       /* block_out_channels */
    uint8_t down[UNET_MAX_BLOCKS];           /* UNetBlock, per down block */
    uint8_t up[UNET_MAX_BLOCKS];             /* UNetBlock, per up block (in up order) */
    uint8_t mid;                             /* UNetMid */
    /* per down block i (the up blocks read them reversed, as diffusers does) */
    int64_t layers[UNET_MAX_BLOCKS];         /* layers_per_block (an up block has one more) */
    int64_t depth[UNET_MAX_BLOCKS];          /* transformer_layers_per_block */
    int64_t heads[UNET_MAX_BLOCKS];          /* a Transformer2DModel's heads */
    int64_t cross_dim[UNET_MAX_BLOCKS];      /* cross_attention_dim */
    /* per block index i, not reversed for the up blocks (diffusers passes
     * attention_head_dim[i] to both the i-th down and the i-th up block):
     * channels per head of a spatial attention, 0 for one head over all
     * channels (attention_head_dim=None) */
    int64_t head_dim[UNET_MAX_BLOCKS];
    int64_t mid_head_dim;                    /* UNet2DModel's mid attention, the same way */
    int64_t mid_attn_groups;                 /* its GroupNorm's groups (0: no GroupNorm) */
    int64_t in_channels, out_channels;
    int64_t sample_size;                     /* the latent side the config names (0: none) */
    int64_t groups;                          /* norm_num_groups */
    int64_t time_embed_dim;                  /* 0: 4 x block_out_channels[0] */
    int64_t num_class_embeds;                /* nn.Embedding class labels (0: none) */
    int64_t addition_time_embed_dim;         /* addition_embed_type "text_time" (SDXL), 0: none */
    int64_t addition_input_dim;              /* its projection_class_embeddings_input_dim */
    int conv_in_kernel, conv_out_kernel;
    int downsample_padding;
    bool linear_projection;                  /* use_linear_projection */
    bool scale_shift;                        /* resnet_time_scale_shift "scale_shift" */
    double dropout;                          /* the ResNets' dropout */
} UNetConfig;

/* The constructor's defaults (UNet2DModel's or UNet2DConditionModel's). */
void diffusers_defaults(UNetConfig *c, bool conditional);

/* The UNet of a known checkpoint (`NAME`, the unet subfolder of a pipeline
 * repository or a UNet repository): its published config.json. */
bool diffusers_known(const char *name, UNetConfig *out);
/* Whether NAME's UNet lives in its "unet" subfolder (a pipeline repository). */
bool diffusers_in_subfolder(const char *name);
/* The names known, for listings. */
const char *const *diffusers_names(size_t *n);

/* Why diffusers would not build or run this configuration on
 * (height, width) samples (a sentence), or NULL. height 0 checks the
 * configuration alone. */
const char *diffusers_refusal(Arena *a, const UNetConfig *c, int64_t height, int64_t width);

/* The cross_attention_dim encoder_hidden_states must have (0: the
 * configuration has no cross-attention). */
int64_t diffusers_cross_dim(const UNetConfig *c);

/* What the forward reads; a tensor left 0 is made here with the shape the
 * configuration implies (the sample (batch, in_channels, height, width),
 * encoder_hidden_states (batch, text_len, cross_attention_dim), SDXL's
 * text_embeds and time_ids, the class labels). */
typedef struct UNetInputs {
    int64_t batch, height, width;
    int64_t text_len;                        /* encoder_hidden_states' length (77 when made here) */
    TId sample, encoder, text_embeds, time_ids, class_labels;
    bool grad_ckpt;                          /* enable_gradient_checkpointing() */
} UNetInputs;

/* Records the forward into tr; *out gets the (batch, out_channels, height,
 * width) sample. False (nothing sensible recorded) when diffusers_refusal
 * refuses. */
bool diffusers_build(Trace *tr, const UNetConfig *c, const UNetInputs *x, TId *out);

#endif
