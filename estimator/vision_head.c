/* A torchvision model's classifier head as a fine-tuning script sees it:
 * `model.fc.in_features` reads the head's width, and `model.fc =
 * nn.Linear(n, k)` (or `model.classifier[6] = ...`, `model.heads.head = ...`)
 * makes the model a k-class one. The builders (vision.c) record the head
 * themselves when the model runs, so the replacement's own parameters are
 * dropped there: they are the head's. */
#include "interp_int.h"
#include "vision.h"

#include <string.h>

/* Marks the Linear made here to stand for the model's own head. */
static const char own_head[] = "torchvision head";

static AVal *head_linear(Interp *in, int64_t in_features, int64_t classes)
{
    AVal *l = av_obj(in, NN_LINEAR);
    l->obj->a = in_features;
    l->obj->b = classes;
    l->obj->arch = own_head;
    return l;
}

AVal *vision_head_attr(Interp *in, AVal *model, const char *name)
{
    VisionHead h;
    Obj *m = model->obj;
    if (m->nn != NN_VISION || !vision_head((const char *)m->arch, &h) || strcmp(name, h.attr) != 0)
        return NULL;
    AVal *linear = head_linear(in, h.in_features, m->a), *container = linear;
    if (h.index >= 0) {
        container = av_obj(in, NN_SEQUENTIAL);
        AVal *items = av_seq(in, (uint32_t)h.index + 1);
        for (int i = 0; i < h.index; i++)
            items->items[i] = av_unknown(in);
        items->items[h.index] = linear;
        obj_set(in, container->obj, "__items__", items);
    } else if (h.sub) {
        container = av_obj(in, NN_SEQUENTIAL);
        obj_set(in, container->obj, h.sub, linear);
    }
    obj_set(in, m, h.attr, container);   /* reads and stores share it */
    return container;
}

/* The module standing at the head's place now, or NULL if the script left
 * it alone; *whole: the container itself was replaced. */
static AVal *head_now(Obj *m, const VisionHead *h, bool *whole)
{
    AVal *c = obj_get(m, h->attr);
    *whole = false;
    if (!c || c->k != AV_OBJECT)
        return c;
    if (h->index >= 0 || h->sub) {
        AVal *items = h->index >= 0 ? obj_get(c->obj, "__items__") : NULL;
        if (c->obj->nn != NN_SEQUENTIAL || (h->index >= 0 && (!items || items->k != AV_SEQ)))
            return *whole = true, c;
        return h->index >= 0 ? (h->index < (int)items->n ? items->items[h->index] : NULL) : obj_get(c->obj, h->sub);
    }
    return c;
}

static void drop_linear(Interp *in, Obj *l)
{
    tr_param_drop(in->tr, l->w);
    tr_param_drop(in->tr, l->bias);
    l->w = l->bias = 0;
}

void vision_apply_head(Interp *in, Obj *m)
{
    VisionHead h;
    bool whole;
    if (m->nn != NN_VISION || !vision_head((const char *)m->arch, &h))
        return;
    AVal *now = head_now(m, &h, &whole);
    if (!now || (now->k == AV_OBJECT && now->obj->arch == own_head))
        return;
    const char *where = h.index >= 0 ? arena_printf(in->a, "%s[%d]", h.attr, h.index)
                      : h.sub       ? arena_printf(in->a, "%s.%s", h.attr, h.sub)
                                    : h.attr;
    if (!whole && now->k == AV_OBJECT && now->obj->nn == NN_LINEAR && now->obj->b > 0 &&
        now->obj->a == h.in_features) {
        m->a = now->obj->b;
        uint32_t w = now->obj->w;
        bool trains = w && w <= in->tr->params.n && in->tr->params.v[w - 1].trainable;
        in->tr->head_grad = trains ? HEAD_TRAINS : HEAD_FROZEN;   /* the builder's head is this one */
        drop_linear(in, now->obj);
        interp_note(in, 0, arena_printf(in->a, "the model's %s is replaced by a Linear(%lld, %lld): %s with %lld "
                                               "classes", where, (long long)h.in_features, (long long)m->a,
                                        (const char *)m->arch, (long long)m->a));
        return;
    }
    interp_note(in, 0, arena_printf(in->a, "the model's %s is replaced by a module pfc does not fit into "
                                           "torchvision's %s: the original head is modelled, and the new "
                                           "module's parameters are counted besides it",
                                    whole ? h.attr : where, (const char *)m->arch));
}

/* After the model ran: the Linear the script put at the head stands for the
 * head the builder recorded (its own parameters were dropped), so what the
 * script does with it later (an optimizer given model.fc.parameters()) reaches
 * the parameters that exist. */
void vision_rebind_head(Interp *in, Obj *m)
{
    VisionHead h;
    bool whole;
    if (m->nn != NN_VISION || !vision_head((const char *)m->arch, &h))
        return;
    AVal *now = head_now(m, &h, &whole);
    if (whole || !now || now->k != AV_OBJECT || now->obj->nn != NN_LINEAR || now->obj->w || !in->tr->head_w)
        return;
    now->obj->w = in->tr->head_w;
    now->obj->bias = in->tr->head_b;
}
