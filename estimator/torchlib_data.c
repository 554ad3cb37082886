/* torch.utils.data and torchvision data: datasets, DataLoader, collation
 * of a batch, transforms. */
#include "torchlib.h"
#include <math.h>
#include <stdlib.h>

static AVal *transform(Interp *in, const char *name, Args *a);
static AVal *vision_dataset(Interp *in, const char *name, Args *a);
AVal *data_loader(Interp *in, Args *a)
{
    AVal *m = av_obj(in, NN_LOADER);
    AVal *ds = arg(a, 0, "dataset");
    obj_set(in, m->obj, "dataset", ds ? ds : av_unknown(in));
    AVal *bs = arg(a, 1, "batch_size");
    obj_set(in, m->obj, "batch_size", bs ? bs : av_int(in, 1));
    return m;
}

static AVal *tensor_dataset(Interp *in, Args *a)
{
    AVal *d = av_obj(in, NN_OPAQUE);
    AVal *s = av_seq(in, a->n);
    for (uint32_t i = 0; i < a->n; i++)
        s->items[i] = a->v[i];
    obj_set(in, d->obj, "__tensors__", s);
    return d;
}

/* An optimizer keeps its class and keyword arguments: a framework that
 * builds it while the step runs (Lightning's configure_optimizers) names
 * the step's optimizer this way (Interp.step_optimizer). */
static AVal *optimizer(Interp *in, const char *q, Args *a)
{
    AVal *o = av_obj(in, NN_OPTIMIZER);
    obj_set(in, o->obj, "__class__", av_str(in, q));
    for (uint32_t i = 0; i < a->n; i++)
        if (a->kw[i])
            obj_set(in, o->obj, a->kw[i], a->v[i]);
    return o;
}

/* Datasets, loaders, transforms and the optimizer. */
AVal *data_call(Interp *in, const char *q, Args *a)
{
    if (eq(q, "torch.utils.data.DataLoader") || eq(q, "torch.utils.data.dataloader.DataLoader"))
        return data_loader(in, a);
    if (eq(q, "torch.utils.data.TensorDataset"))
        return tensor_dataset(in, a);
    if (strncmp(q, "torch.optim.", 12) == 0 || strncmp(q, "bitsandbytes.optim.", 19) == 0)
        return optimizer(in, q, a);
    if (strncmp(q, "torchvision.transforms.", 23) == 0)
        return transform(in, leaf(q), a);
    if (strncmp(q, "torchvision.datasets.", 21) == 0)
        return vision_dataset(in, leaf(q), a);
    if (eq(q, "torch.utils.data.random_split")) {
        /* the splits yield the dataset's items */
        AVal *ds = arg(a, 0, "dataset"), *lens = arg(a, 1, "lengths");
        uint32_t n = lens && lens->k == AV_SEQ ? lens->n : 2;
        AVal *s = av_seq(in, n);
        for (uint32_t i = 0; i < n; i++)
            s->items[i] = ds ? ds : av_unknown(in);
        return s;
    }
    if (eq(q, "torch.utils.data.Subset"))
        return arg(a, 0, "dataset") ? arg(a, 0, "dataset") : av_unknown(in);
    return NULL;
}

/* ---- data ------------------------------------------------------------------------------- */

/* The batch a DataLoader yields: the dataset's item, stacked batch_size times. */
static AVal *collate(Interp *in, AVal *item, int64_t batch)
{
    switch (item->k) {
    case AV_TENSOR: {
        int64_t dim[TR_MAXDIM];
        int nd = item->nd < TR_MAXDIM ? item->nd : TR_MAXDIM - 1;
        dim[0] = batch;
        memcpy(dim + 1, item->dim, (size_t)nd * sizeof *dim);
        return av_tensor_new(in, (DType)item->dtype, nd + 1, dim, false);
    }
    case AV_INT: case AV_BOOL: case AV_FLOAT:
        return av_tensor_new(in, item->k == AV_FLOAT ? DT_F32 : DT_I64, 1, &batch, false);
    case AV_SEQ: {
        AVal *s = av_seq(in, item->n);
        for (uint32_t i = 0; i < item->n; i++)
            s->items[i] = collate(in, item->items[i], batch);
        return s;
    }
    case AV_DICT: {
        AVal *d = av_new(in, AV_DICT);
        d->n = item->n;
        d->keys = item->keys;
        d->items = arena_zalloc(in->a, (item->n + 1) * sizeof *d->items);
        for (uint32_t i = 0; i < item->n; i++)
            d->items[i] = collate(in, item->items[i], batch);
        return d;
    }
    default:
        return av_unknown(in);
    }
}

AVal *loader_batch(Interp *in, AVal *loader)
{
    AVal *cached = obj_get(loader->obj, "__batch__");
    if (cached)
        return cached;
    AVal *ds = obj_get(loader->obj, "dataset");
    int64_t batch = 1;
    av_int_of(obj_get(loader->obj, "batch_size"), &batch);
    AVal *item = av_unknown(in);
    if (ds && ds->k == AV_OBJECT && ds->obj->cls >= 0) {
        Args one = {{av_int(in, 0)}, {NULL}, 1};
        bool found;
        item = run_method(in, ds, "__getitem__", &one, &found);
    } else if (ds && ds->k == AV_OBJECT && obj_get(ds->obj, "__item__")) {
        item = obj_get(ds->obj, "__item__");
    } else if (ds && ds->k == AV_OBJECT && obj_get(ds->obj, "__tensors__")) {
        AVal *ts = obj_get(ds->obj, "__tensors__");
        AVal *s = av_seq(in, ts->n);
        for (uint32_t i = 0; i < ts->n; i++)
            s->items[i] = tensor_subscript(in, ts->items[i], av_int(in, 0));
        item = s;
    }
    AVal *b = collate(in, item, batch);
    obj_set(in, loader->obj, "__batch__", b);
    return b;
}

/* ---- torchvision datasets and transforms ------------------------------------------------------ */

/* A transform: the ones that set the image size keep it ("__size__");
 * Compose keeps its list. */
static AVal *transform(Interp *in, const char *name, Args *a)
{
    AVal *t = av_obj(in, NN_OPAQUE);
    t->obj->a = OPAQUE_TRANSFORM;
    if (eq(name, "Compose")) {
        AVal *list = arg(a, 0, "transforms");
        obj_set(in, t->obj, "__list__", list ? list : av_seq(in, 0));
    } else if (eq(name, "Resize") || eq(name, "CenterCrop") || eq(name, "RandomResizedCrop") ||
               eq(name, "RandomCrop")) {
        AVal *size = arg(a, 0, "size");
        if (size)
            obj_set(in, t->obj, "__size__", size);
    }
    return t;
}

/* The (height, width) the transform pipeline ends with, if it sets one. */
static bool transform_size(AVal *t, int64_t *h, int64_t *w)
{
    if (!t || t->k != AV_OBJECT || t->obj->a != OPAQUE_TRANSFORM)
        return false;
    AVal *list = obj_get(t->obj, "__list__");
    bool found = false;
    for (uint32_t i = 0; list && list->k == AV_SEQ && i < list->n; i++)
        found |= transform_size(list->items[i], h, w);
    AVal *size = obj_get(t->obj, "__size__");
    if (size && av_int_of(size, h)) {
        *w = *h;
        return true;
    }
    if (size && size->k == AV_SEQ && size->n == 2 && av_int_of(size->items[0], h) && av_int_of(size->items[1], w))
        return true;
    return found;
}

/* torchvision's datasets yield (image tensor, class index); the image's
 * channels and size are the dataset's, or what its transform makes them. */
static AVal *vision_dataset(Interp *in, const char *name, Args *a)
{
    static const struct { const char *name; int c, size; } known[] = {
        {"MNIST", 1, 28}, {"FashionMNIST", 1, 28}, {"KMNIST", 1, 28}, {"EMNIST", 1, 28},
        {"QMNIST", 1, 28}, {"CIFAR10", 3, 32}, {"CIFAR100", 3, 32}, {"SVHN", 3, 32},
        {"STL10", 3, 96}, {"ImageFolder", 3, 224}, {"ImageNet", 3, 224}, {"FakeData", 3, 224},
        {"LSUN", 3, 224}, {"CelebA", 3, 224}, {"Food101", 3, 224}, {"Flowers102", 3, 224},
        {"OxfordIIITPet", 3, 224}, {"StanfordCars", 3, 224}, {"Caltech101", 3, 224},
        {"Places365", 3, 224}, {"DatasetFolder", 3, 224},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        if (!eq(name, known[i].name))
            continue;
        int64_t h = known[i].size, w = known[i].size;
        AVal *tf = arg(a, -1, "transform");
        bool sized = transform_size(tf, &h, &w);
        AVal *img = arg(a, -1, "image_size");
        if (img && img->k == AV_SEQ && img->n == 3) {
            av_int_of(img->items[1], &h);
            av_int_of(img->items[2], &w);
            sized = true;
        }
        if (!sized && known[i].size == 224)
            interp_note(in, 0, arena_printf(in->a, "%s: images assumed 224 x 224 (no size in its transform)", name));
        int64_t dim[3] = {known[i].c, h, w};
        AVal *item = av_seq(in, 2);
        item->items[0] = av_tensor_new(in, DT_F32, 3, dim, false);
        item->items[1] = av_int(in, 0);
        AVal *ds = av_obj(in, NN_OPAQUE);
        obj_set(in, ds->obj, "__item__", item);
        return ds;
    }
    return av_unknown(in);
}
