/* timm.create_model names over the torchvision builders: every name's
 * parameter total against timm's (derived from the architecture in the
 * comments), num_classes changing the head, and the names pfc refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "../../base/arena.h"
#include "../../estimator/timm.h"
#include "../../estimator/trace.h"
#include "../../estimator/vision.h"

/* The parameter total of timm model `name` with `classes` outputs; 0 when unknown. */
static uint64_t params_of(const char *name, int64_t classes)
{
    const char *vision = timm_vision_name(name);
    if (!vision)
        return 0;
    Arena a;
    arena_init(&a);
    Trace tr;
    tr_init(&tr, &a);
    tr.training = true;
    TId logits = 0;
    uint64_t total = 0;
    if (vision_build(&tr, vision, 2, 224, classes, &logits) && tr_dim(&tr, logits, 1) == classes) {
        ParamTotals pt;
        tr_param_totals(&tr, &pt);
        total = pt.total;
    }
    arena_free(&a);
    return total;
}

/* ViT, pre-norm, patch 16 at 224 (196 patches + class token), width d,
 * MLP 4d, 12 or 24 blocks: each block 2 norms (4d), qkv (3d^2 + 3d),
 * proj (d^2 + d), MLP (8d^2 + 5d); plus patch conv 768d + d, class token
 * d, 197d position embeddings, final norm 2d, head (d + 1) * classes.
 *   tiny  d 192: 12 x 444,864 + 147,648 + 192 + 37,824 + 384 + 193,000 = 5,717,416
 *   small d 384: 12 x 1,774,464 + 295,296 + 384 + 75,648 + 768 + 385,000 = 22,050,664 */
static uint64_t vit_by_hand(uint64_t d, uint64_t blocks, uint64_t classes)
{
    uint64_t block = 4 * d + 3 * d * d + 3 * d + d * d + d + 8 * d * d + 5 * d;
    return blocks * block + 768 * d + d + d + 197 * d + 2 * d + (d + 1) * classes;
}

static const struct { const char *name; uint64_t total; } published[] = {
    {"resnet18", 11689512ull},  {"resnet34", 21797672ull},  {"resnet50", 25557032ull},
    {"resnet101", 44549160ull}, {"vit_tiny_patch16_224", 5717416ull},
    {"vit_small_patch16_224", 22050664ull}, {"vit_base_patch16_224", 86567656ull},
    {"vit_large_patch16_224", 304326632ull}, {"convnext_tiny", 28589128ull},
    {"convnext_small", 50223688ull}, {"convnext_base", 88591464ull},
    {"efficientnet_b0", 5288548ull}, {"efficientnet_b1", 7794184ull},
    {"efficientnet_b2", 9109994ull}, {"efficientnet_b3", 12233232ull},
};

static void test_totals(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof published / sizeof published[0]; i++) {
        uint64_t got = params_of(published[i].name, 1000);
        if (got != published[i].total)
            fail_msg("%s: %llu parameters, timm has %llu", published[i].name, (unsigned long long)got,
                     (unsigned long long)published[i].total);
    }
    assert_int_equal(vit_by_hand(192, 12, 1000), 5717416ull);
    assert_int_equal(vit_by_hand(384, 12, 1000), 22050664ull);
    assert_int_equal(vit_by_hand(768, 12, 1000), 86567656ull);
    assert_int_equal(vit_by_hand(1024, 24, 1000), 304326632ull);
}

static void test_num_classes(void **state)
{
    (void)state;
    /* the head is (width + 1) x classes: ResNet-50's 2049, ViT-B's 769 */
    assert_int_equal(params_of("resnet50", 10), 25557032ull - 2049ull * 990);
    assert_int_equal(params_of("vit_base_patch16_224", 10), 86567656ull - 769ull * 990);
    assert_int_equal(params_of("vit_tiny_patch16_224", 100), vit_by_hand(192, 12, 100));
}

static void test_names(void **state)
{
    (void)state;
    size_t n;
    const char *const *names = timm_names(&n);
    assert_true(n >= 15);
    for (size_t i = 0; i < n; i++)
        assert_true(params_of(names[i], 1000) > 0);
    /* a pretrained tag names the same architecture */
    assert_string_equal(timm_vision_name("vit_base_patch16_224.augreg_in21k"), "vit_b_16");
    assert_null(timm_vision_name("resnet51"));
    assert_null(timm_vision_name("vit_b_16"));   /* torchvision's spelling is not timm's */
    assert_null(timm_vision_name(NULL));
    /* the timm-only configurations stay out of torchvision's listing */
    const char *const *tv = vision_names(&n);
    for (size_t i = 0; i < n; i++)
        assert_null(strchr(tv[i], ':'));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_totals),
        cmocka_unit_test(test_num_classes),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
