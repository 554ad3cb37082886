/* nn.Module's parameters as PyTorch lists them (parameters(),
 * named_parameters()), freezing (requires_grad_, `p.requires_grad = False`)
 * and the parameters an optimizer is given.
 *
 * Why it matters: autograd makes a .grad only for a leaf that requires grad,
 * an optimizer keeps state only for the parameters it holds that received
 * one, and an op saves its input for a weight's gradient only when the weight
 * trains. A fine-tuning script that freezes a backbone and counts it as
 * trainable gets gradients, state and saved activations that never exist.
 *
 * Names follow named_parameters(): the attribute path of each submodule
 * joined by dots ("layer1.0.conv1.weight"), a Sequential's or ModuleList's
 * index, a ModuleDict's key, a shared (tied) parameter listed once under its
 * first name. A library model (Hugging Face, torchvision, diffusers) records
 * its parameters when it runs, so before that it stands in the list as one
 * placeholder (an AV_PARAM with no trace parameter, `self` the model); after
 * it ran, its parameters are the range it recorded. Layers whose weights pfc
 * keeps as one handle per layer (LSTM, attention, Transformer) have no
 * PyTorch name: they are listed with an unknown name, so a condition on it
 * cannot be decided and says so. */
#include "torchlib.h"

typedef struct ParamWalk {
    Interp *in;
    bool named;
    bool *seen;          /* per trace parameter: listed already (tied weights) */
    ARENA_VEC(Obj *) libs;
    ARENA_VEC(AVal *) out;
} ParamWalk;

static const char *joined(Interp *in, const char *prefix, const char *name)
{
    return prefix && *prefix ? arena_printf(in->a, "%s.%s", prefix, name) : name;
}

static AVal *placeholder(Interp *in, AVal *lib)
{
    AVal *p = av_new(in, AV_PARAM);
    p->param = 0;
    p->self = lib;
    return p;
}

/* Appends p (named: the pair (name, p); a NULL name is unknown). */
static void emit(ParamWalk *w, const char *name, AVal *p)
{
    if (!w->named) {
        VEC_PUSH(w->in->a, w->out, p);
        return;
    }
    AVal *pair = av_seq(w->in, 2);
    pair->items[0] = name ? av_str(w->in, name) : av_unknown(w->in);
    pair->items[1] = p;
    VEC_PUSH(w->in->a, w->out, pair);
}

static void emit_param(ParamWalk *w, const char *name, uint32_t param)
{
    if (!param || param > w->in->tr->params.n || w->seen[param])
        return;
    w->seen[param] = true;
    AVal *p = av_new(w->in, AV_PARAM);
    p->param = param;
    emit(w, name, p);
}

static bool is_library_model(const Obj *o)
{
    return o->nn == NN_HF || o->nn == NN_VISION || o->nn == NN_DIFFUSERS;
}

/* A library model: the parameters it recorded when it ran, else its placeholder. */
static void emit_library(ParamWalk *w, const char *prefix, AVal *m)
{
    Obj *o = m->obj;
    for (uint32_t i = 0; i < w->libs.n; i++)
        if (w->libs.v[i] == o)
            return;
    VEC_PUSH(w->in->a, w->libs, o);
    if (o->params_to <= o->params_from) {
        emit(w, NULL, placeholder(w->in, m));
        return;
    }
    (void)prefix;   /* the library's own names are not known: each is listed without one */
    for (uint32_t p = o->params_from + 1; p <= o->params_to; p++)
        emit_param(w, NULL, p);
}

static void walk(ParamWalk *w, AVal *m, const char *prefix, int depth);

/* The attributes PyTorch registers: submodules, nn.Parameters, a
 * ModuleList's items and a ModuleDict's entries (plain lists and dicts of
 * modules are not registered, so their parameters are not the module's). */
static void walk_attrs(ParamWalk *w, Obj *o, const char *prefix, int depth)
{
    Interp *in = w->in;
    for (uint32_t i = 0; i < o->nattr; i++) {
        const char *n = o->names[i];
        AVal *v = o->vals[i];
        if (strcmp(n, LIBRARY_BASE) == 0) {
            walk(w, v, prefix, depth + 1);
        } else if (strcmp(n, "__items__") == 0 && v->k == AV_SEQ) {
            for (uint32_t k = 0; k < v->n; k++)
                walk(w, v->items[k], joined(in, prefix, arena_printf(in->a, "%u", k)), depth + 1);
        } else if (strcmp(n, "__dict__") == 0 && v->k == AV_DICT && o->nn == NN_MODULEDICT) {
            for (uint32_t k = 0; k < v->n; k++)
                walk(w, v->items[k], joined(in, prefix, v->keys[k]), depth + 1);
        } else if (n[0] == '_' && n[1] == '_') {
            continue;
        } else if (v->k == AV_PARAM && v->param) {
            emit_param(w, joined(in, prefix, n), v->param);
        } else if (v->k == AV_OBJECT && v->obj->is_module) {
            walk(w, v, joined(in, prefix, n), depth + 1);
        }
    }
}

static void walk(ParamWalk *w, AVal *m, const char *prefix, int depth)
{
    if (m->k != AV_OBJECT || !m->obj->is_module || depth > 64)
        return;
    Obj *o = m->obj;
    if (is_library_model(o))
        emit_library(w, prefix, m);
    emit_param(w, joined(w->in, prefix, "weight"), o->w);
    emit_param(w, joined(w->in, prefix, "bias"), o->bias);
    for (uint32_t i = 0; i < o->nwall; i++)
        emit_param(w, NULL, o->wall[i]);
    walk_attrs(w, o, prefix, depth);
}

AVal *module_parameters(Interp *in, AVal *m, bool named, const char *prefix)
{
    ParamWalk w = {in, named, arena_zalloc(in->a, in->tr->params.n + 2), {0}, {0}};
    walk(&w, m, prefix ? prefix : "", 0);
    AVal *s = av_seq(in, w.out.n);
    if (w.out.n)
        memcpy(s->items, w.out.v, w.out.n * sizeof *s->items);
    return s;
}

/* ---- requires_grad ------------------------------------------------------------------------ */

static void set_param(Interp *in, AVal *p, bool trains)
{
    if (p->param && p->param <= in->tr->params.n) {
        if (!in->tr->params.v[p->param - 1].bits)   /* a quantized weight never trains */
            in->tr->params.v[p->param - 1].trainable = trains;
        return;
    }
    if (p->self && p->self->k == AV_OBJECT) {
        Obj *o = p->self->obj;
        o->frozen = !trains;   /* applied when it records its parameters */
        for (uint32_t q = o->params_from; q < o->params_to && q < in->tr->params.n; q++)
            if (!in->tr->params.v[q].bits)
                in->tr->params.v[q].trainable = trains;
    }
}

void set_requires_grad(Interp *in, AVal *target, bool trains)
{
    if (target->k == AV_PARAM) {
        set_param(in, target, trains);
        return;
    }
    AVal *ps = target->k == AV_OBJECT ? module_parameters(in, target, false, NULL) : target;
    for (uint32_t i = 0; ps->k == AV_SEQ && i < ps->n; i++)
        if (ps->items[i]->k == AV_PARAM)
            set_param(in, ps->items[i], trains);
}

/* `module.requires_grad_(flag)`, flag True when absent; an unreadable flag is
 * not applied (the parameters keep what they had), said with the line. */
AVal *requires_grad_call(Interp *in, AVal *self, Args *a)
{
    AVal *f = arg(a, 0, "requires_grad");
    bool known = true, trains = f ? av_truth(f, &known) : true;
    if (!known)
        interp_note(in, in->cur_node, "requires_grad_ is given a value pfc cannot read: the parameters keep "
                                      "the requires_grad they had (trainable unless frozen before)");
    else
        set_requires_grad(in, self, trains);
    return self;
}

/* p.requires_grad: the parameter's flag; a library model's placeholder is
 * known only when the whole model was frozen (a PEFT model mixes both). */
AVal *param_requires_grad(Interp *in, AVal *p)
{
    if (p->param && p->param <= in->tr->params.n)
        return av_bool(in, in->tr->params.v[p->param - 1].trainable);
    if (p->self && p->self->k == AV_OBJECT && p->self->obj->frozen)
        return av_bool(in, false);
    return av_unknown(in);
}

/* ---- the optimizer's parameters ----------------------------------------------------------- */

/* Marks what an optimizer's `params` argument holds: parameters, modules'
 * parameters, and parameter groups (dicts with "params"). Returns false
 * when some part of it is not something pfc can follow. */
static bool mark_held(Interp *in, AVal *v, bool *held, int depth)
{
    if (depth > 8)
        return false;
    if (v->k == AV_PARAM) {
        if (v->param && v->param <= in->tr->params.n) {
            held[v->param - 1] = true;
            return true;
        }
        Obj *o = v->self && v->self->k == AV_OBJECT ? v->self->obj : NULL;
        for (uint32_t q = o ? o->params_from : 0; o && q < o->params_to && q < in->tr->params.n; q++)
            held[q] = true;
        return o && o->params_to > o->params_from;
    }
    if (v->k == AV_OBJECT && v->obj->is_module) {   /* one whose parameters pfc does not have: not followed */
        AVal *ps = module_parameters(in, v, false, NULL);
        return ps->n && mark_held(in, ps, held, depth + 1);
    }
    if (v->k == AV_DICT) {
        for (uint32_t i = 0; i < v->n; i++)
            if (strcmp(v->keys[i], "params") == 0)
                return mark_held(in, v->items[i], held, depth + 1);
        return false;
    }
    if (v->k != AV_SEQ || !v->n)   /* an empty list: what it was built from pfc may not know */
        return false;
    bool ok = true;
    for (uint32_t i = 0; i < v->n; i++)
        ok = mark_held(in, v->items[i], held, depth + 1) && ok;
    return ok;
}

bool optimizer_holds(Interp *in, AVal *params, bool *held)
{
    return params && mark_held(in, params, held, 0);
}

/* filter(f, items): the items f keeps; an item whose answer pfc cannot
 * read is kept (the optimizer then counts its state: never fewer bytes than
 * the script could need). */
AVal *filter_items(Interp *in, AVal *f, AVal *items)
{
    AVal *s = av_seq(in, items->n);
    uint32_t unread = 0;
    s->n = 0;
    for (uint32_t i = 0; i < items->n; i++) {
        bool known = true, keep;
        if (f->k == AV_NONE) {
            keep = av_truth(items->items[i], &known);
        } else {
            Args a = {{items->items[i]}, {NULL}, 1};
            keep = av_truth(call_value(in, f, &a), &known);
        }
        if (keep || !known)
            s->items[s->n++] = items->items[i];
        unread += !known;
    }
    if (unread)
        interp_note(in, in->cur_node, "filter's test cannot be read for some items: they are kept (an "
                                      "optimizer given them counts their state)");
    return s;
}
