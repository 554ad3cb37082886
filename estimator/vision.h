/* torchvision's classification models recorded into a Trace (see trace.h).
 *
 * Each builder follows torchvision 0.26's module structure: the same layers in
 * the same order, the same parameters (counts equal torchvision's published
 * num_params), BatchNorm after each conv without a conv bias where torchvision
 * has bias=False, in-place activations where torchvision uses inplace=True,
 * dropout and stochastic depth in training, squeeze-excitation blocks, and
 * ViT's encoder as nn.MultiheadAttention runs it in training
 * (F.multi_head_attention_forward with need_weights=False: packed in-projection,
 * scaled_dot_product_attention, out-projection); MaxViT's partition
 * attention as its einsums run (bmm on reshaped copies, explicit softmax).
 *
 * The caller sets tr->weight_dtype, autocast, training and no_grad first; the
 * builders only record. */
#ifndef PFC_VISION_H
#define PFC_VISION_H
#include "trace.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Records torchvision model `name` (e.g. "resnet50", "densenet121", "efficientnet_b0",
 * "mobilenet_v3_large", "vit_b_16") on a (batch, 3, image, image) input into tr: fp32, or
 * the weights' 16-bit dtype when the model is converted without autocast.
 * Returns false for an unknown name (or an image vision_image_refusal refuses);
 * *logits gets the (batch, num_classes) output. */
bool vision_build(Trace *tr, const char *name, int64_t batch, int64_t image, int64_t num_classes,
                  TId *logits);

/* Why torchvision model `name` does not run on image x image inputs (a
 * sentence naming the constraint: a ViT's patch size, MaxViT's fixed
 * partition grids), or NULL when it does or when the name is unknown. */
const char *vision_image_refusal(const char *name, int64_t image);

/* Where torchvision model `name` keeps its classifier head, the nn.Linear
 * a fine-tuning script replaces (`model.fc = nn.Linear(model.fc.in_features,
 * 2)`): the attribute of the model (`fc`), the index in it when it is an
 * nn.Sequential (`classifier[6]`, else -1) or the attribute in it (`heads.head`,
 * else NULL), and the head's in_features. False for the families whose head
 * is not one Linear (SqueezeNet's conv) or not modelled here (RegNet). */
typedef struct VisionHead {
    const char *attr;
    int index;
    const char *sub;
    int64_t in_features;
} VisionHead;
bool vision_head(const char *name, VisionHead *out);

/* The names known, for listings (torchvision's spelling, sorted by family). */
const char *const *vision_names(size_t *n);

#endif
