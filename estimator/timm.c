/* timm names over the torchvision builders (see timm.h).
 *
 * Why the parameters agree: timm's ResNet (resnet.py, default stem and
 * BasicBlock/Bottleneck) is torchvision's; its ViT (vision_transformer.py:
 * patch conv with bias, class token, 197 position embeddings, pre-norm blocks
 * with a biased qkv, final norm, token pooling, head) holds the same tensors
 * as torchvision's ViT (vit_base_patch16_224 = vit_b_16 = 86,567,656);
 * ConvNeXt (layer scale, 7x7 depthwise, LayerNorm2d) and EfficientNet
 * (round_channels to 8 with the 0.9 rule, ceil'd depth, 4x last conv) are
 * the same trees. The two ViTs torchvision lacks are vision.c's "timm:"
 * configurations (tiny: width 192, 3 heads; small: width 384, 6 heads).
 *
 * Where the activations differ (documented, not modelled): timm's attention
 * reshapes the fused qkv without nn.MultiheadAttention's transposed copies,
 * and its default drop_path_rate is 0 where torchvision's ConvNeXt and
 * EfficientNet use stochastic depth (a per-sample mask, a few bytes). */
#include "timm.h"
#include <string.h>

#define TIMM_MODELS(X) \
    X("resnet18", "resnet18") \
    X("resnet34", "resnet34") \
    X("resnet50", "resnet50") \
    X("resnet101", "resnet101") \
    X("resnet152", "resnet152") \
    X("vit_tiny_patch16_224", "timm:vit_tiny_patch16_224") \
    X("vit_small_patch16_224", "timm:vit_small_patch16_224") \
    X("vit_base_patch16_224", "vit_b_16") \
    X("vit_base_patch32_224", "vit_b_32") \
    X("vit_large_patch16_224", "vit_l_16") \
    X("convnext_tiny", "convnext_tiny") \
    X("convnext_small", "convnext_small") \
    X("convnext_base", "convnext_base") \
    X("convnext_large", "convnext_large") \
    X("efficientnet_b0", "efficientnet_b0") \
    X("efficientnet_b1", "efficientnet_b1") \
    X("efficientnet_b2", "efficientnet_b2") \
    X("efficientnet_b3", "efficientnet_b3")

#define AS_TIMM(timm, vision) timm,
#define AS_VISION(timm, vision) vision,
static const char *const timm_list[] = {TIMM_MODELS(AS_TIMM)};
static const char *const vision_list[] = {TIMM_MODELS(AS_VISION)};
#define NTIMM (sizeof timm_list / sizeof timm_list[0])

const char *timm_vision_name(const char *name)
{
    /* timm accepts a pretrained tag: "vit_base_patch16_224.augreg_in21k" */
    size_t len = name ? strcspn(name, ".") : 0;
    for (size_t i = 0; i < NTIMM && name; i++)
        if (strlen(timm_list[i]) == len && strncmp(timm_list[i], name, len) == 0)
            return vision_list[i];
    return NULL;
}

const char *const *timm_names(size_t *n)
{
    *n = NTIMM;
    return timm_list;
}
