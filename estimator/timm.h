/* timm.create_model for the families pfc models (ResNet, ViT, ConvNeXt,
 * EfficientNet): each name maps to the torchvision builder (vision.c) whose
 * module tree has the same parameters, so the totals are exact; the
 * activations follow torchvision's layer order (see timm.c for where timm's
 * forward differs). */
#ifndef PFC_TIMM_H
#define PFC_TIMM_H
#include <stddef.h>

/* The vision_build name for timm model `name` ("resnet50",
 * "vit_base_patch16_224", ...), or NULL when pfc does not model it. */
const char *timm_vision_name(const char *name);

/* The timm names known, for listings. */
const char *const *timm_names(size_t *n);

#endif
