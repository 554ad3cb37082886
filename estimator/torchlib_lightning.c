/* Lightning: the Trainer's fit loop, one step of it as Lightning runs it
 * with automatic optimization, and LightningCLI, which builds the model,
 * the datamodule and the Trainer from the command line and a config file
 * (jsonargparse's mapping: `--model.X` / `model:` are the model class's
 * __init__ arguments, `--data.X` the datamodule's, `--trainer.X` the
 * Trainer's). */
#include "torchlib.h"

static AVal *call_method(Interp *in, AVal *self, const char *method, AVal *arg0, bool *found)
{
    Args a = {{arg0}, {NULL}, arg0 ? 1u : 0u};
    return run_method(in, self, method, &a, found);
}

/* Trainer(precision=...) as Lightning reads it: "16-mixed" / 16 / "16" and
 * "bf16-mixed" / "bf16" autocast the step; "16-true" / "bf16-true" keep the
 * weights in 16 bits. *weights gets that dtype (DT_F32 when fp32). */
static bool precision_autocast(AVal *p, DType *autocast, DType *weights)
{
    *weights = DT_F32;
    const char *s = p && p->k == AV_STR ? p->s : NULL;
    int64_t n = 0;
    if (!s && p && av_int_of(p, &n))
        s = n == 16 ? "16" : "32";
    if (!s)
        return false;
    if (eq(s, "16-true") || eq(s, "bf16-true")) {
        *weights = s[0] == 'b' ? DT_BF16 : DT_F16;
        return false;
    }
    *autocast = s[0] == 'b' ? DT_BF16 : DT_F16;
    return eq(s, "16") || eq(s, "16-mixed") || eq(s, "bf16") || eq(s, "bf16-mixed");
}

/* A Trainer: its settings are attributes. A 16-bit "true" precision makes
 * the parameters created from here on 16-bit (Lightning converts the
 * module); the script's own Trainer(...) call is also read beforehand
 * (estimate.c), so that a model built first is converted too. */
static AVal *trainer(Interp *in, AVal *settings)
{
    AVal *t = av_obj(in, NN_OPAQUE);
    t->obj->a = OPAQUE_PL_TRAINER;
    for (uint32_t i = 0; settings && settings->k == AV_DICT && i < settings->n; i++)
        obj_set(in, t->obj, settings->keys[i], settings->items[i]);
    DType ac, w;
    precision_autocast(obj_get(t->obj, "precision"), &ac, &w);
    if (w != DT_F32 && !in->no_autocast && !in->force_autocast)   /* --precision fp32 / amp: fp32 weights */
        in->tr->weight_dtype = w;
    int64_t acc;
    if (av_int_of(obj_get(t->obj, "accumulate_grad_batches"), &acc) && acc > 1)
        in->accumulation = acc;
    return t;
}

AVal *lightning_trainer(Interp *in, Args *a)
{
    AVal *d = av_new(in, AV_DICT);
    d->items = arena_alloc(in->a, (a->n + 1) * sizeof *d->items);
    d->keys = arena_alloc(in->a, (a->n + 1) * sizeof *d->keys);
    for (uint32_t i = 0; i < a->n; i++)
        if (a->kw[i]) {
            d->keys[d->n] = a->kw[i];
            d->items[d->n++] = a->v[i];
        }
    return trainer(in, d);
}

/* The optimizer configure_optimizers() returns: the optimizer, the first
 * of a list or of ([optimizers], [schedulers]), or a dict's "optimizer". */
static Obj *first_optimizer(AVal *v, int depth)
{
    if (!v || depth > 3)
        return NULL;
    if (v->k == AV_OBJECT && v->obj->nn == NN_OPTIMIZER)
        return v->obj;
    if (v->k == AV_DICT) {
        for (uint32_t i = 0; i < v->n; i++)
            if (eq(v->keys[i], "optimizer"))
                return first_optimizer(v->items[i], depth + 1);
        return NULL;
    }
    return v->k == AV_SEQ && v->n ? first_optimizer(v->items[0], depth + 1) : NULL;
}

/* A batch as Lightning hands it to training_step: moved to the GPU. */
static AVal *to_gpu(Interp *in, AVal *b, int depth)
{
    if (b->k == AV_TENSOR && !b->gpu) {
        Args none = {{0}, {0}, 0};
        return method_call(in, b, "cuda", &none);
    }
    if ((b->k == AV_SEQ || b->k == AV_DICT) && depth < 8) {
        AVal *c = av_new(in, (AKind)b->k);
        *c = *b;
        c->items = arena_alloc(in->a, (b->n + 1) * sizeof *c->items);
        for (uint32_t i = 0; i < b->n; i++)
            c->items[i] = to_gpu(in, b->items[i], depth + 1);
        return c;
    }
    return b;
}

/* The loader of the fit: the one given, else the datamodule's (after its
 * prepare_data() and setup("fit")), else the model's train_dataloader(). */
static AVal *train_loader(Interp *in, AVal *model, AVal *loader, AVal *dm)
{
    bool found;
    if (loader && loader->k == AV_OBJECT && loader->obj->nn == NN_LOADER)
        return loader;
    AVal *owner = dm && dm->k == AV_OBJECT && dm->obj->cls >= 0 ? dm : model;
    if (owner == dm) {
        call_method(in, dm, "prepare_data", NULL, &found);
        call_method(in, dm, "setup", av_str(in, "fit"), &found);
    }
    AVal *l = call_method(in, owner, "train_dataloader", NULL, &found);
    return found ? l : av_unknown(in);
}

/* The loss training_step returns: a tensor, or a dict's "loss". */
static AVal *step_loss(Interp *in, AVal *out)
{
    if (out->k == AV_DICT) {
        for (uint32_t i = 0; i < out->n; i++)
            if (eq(out->keys[i], "loss"))
                return out->items[i];
        return av_unknown(in);
    }
    return out;
}

/* One step of trainer.fit(model, loader | datamodule=dm) with automatic
 * optimization: the model's setup("fit") and configure_optimizers() (its
 * optimizer is the step's: Interp.step_optimizer), a batch of the train
 * loader on the GPU, training_step(batch, 0) in train mode under the
 * precision's autocast; returns the loss Lightning calls backward() on. */
static AVal *fit_step(Interp *in, Obj *tr_obj, AVal *model, AVal *loader, AVal *dm)
{
    bool found;
    if (!model || model->k != AV_OBJECT || model->obj->cls < 0) {
        refuse(in, "trainer.fit()'s model is not a LightningModule pfc could follow");
        return av_unknown(in);
    }
    call_method(in, model, "setup", av_str(in, "fit"), &found);
    call_method(in, model, "configure_model", NULL, &found);
    in->step_optimizer = first_optimizer(call_method(in, model, "configure_optimizers", NULL, &found), 0);
    AVal *l = train_loader(in, model, loader, dm);
    if (l->k == AV_OBJECT && l->obj->nn == NN_LOADER && in->batch_override)
        obj_set(in, l->obj, "batch_size", av_int(in, in->batch_override));
    AVal *batch = l->k == AV_OBJECT && l->obj->nn == NN_LOADER ? to_gpu(in, loader_batch(in, l), 0) : av_unknown(in);
    if (batch->k == AV_UNKNOWN)
        interp_lost_here(in, "the fit's batch could not be read (its train_dataloader() is not a DataLoader "
                             "pfc follows)");
    AVal *first = batch->k == AV_SEQ && batch->n ? batch->items[0] : batch;
    if (first->k == AV_TENSOR && first->nd && !in->seen_batch)
        in->seen_batch = first->dim[0];
    DType ac = DT_BF16, w;
    bool autocast = precision_autocast(obj_get(tr_obj, "precision"), &ac, &w) && !in->no_autocast;
    if (in->force_autocast) {   /* --precision amp, Accelerate's mixed precision */
        autocast = true;
        ac = in->force_autocast_dtype;
    }
    Trace *tr = in->tr;
    bool was_training = tr->training, was_on = tr->autocast_on;
    DType was_dt = tr->autocast;
    tr->training = true;
    if (autocast) {
        tr->autocast_on = true;
        tr->autocast = ac;
    }
    step_model(in, model);
    Args a = {{batch, av_int(in, 0)}, {NULL, NULL}, 2};
    AVal *out = run_method(in, model, "training_step", &a, &found);
    tr->training = was_training;
    tr->autocast_on = was_on;
    tr->autocast = was_dt;
    if (!found)
        refuse(in, "the LightningModule has no training_step() pfc could find");
    return step_loss(in, out);
}

/* trainer.fit(model, train_dataloaders=None, val_dataloaders=None,
 * datamodule=None): a second argument with train_dataloader() is a
 * datamodule, as Lightning tells them apart. */
AVal *lightning_trainer_method(Interp *in, Obj *t, const char *name, Args *a)
{
    if (!eq(name, "fit"))
        return av_unknown(in);
    AVal *model = arg(a, 0, "model"), *data = arg(a, 1, "train_dataloaders"), *dm = arg(a, -1, "datamodule");
    if (!dm && data && data->k == AV_OBJECT && data->obj->cls >= 0)
        dm = data;
    return fit_step(in, t, model, data, dm);
}

/* Class cls built with the settings as keyword arguments (its __init__'s
 * defaults for the rest). */
static AVal *build(Interp *in, AVal *cls, AVal *settings)
{
    Args a = {{0}, {0}, 0};
    for (uint32_t i = 0; settings && settings->k == AV_DICT && i < settings->n && a.n < ARGS_MAX; i++) {
        a.kw[a.n] = settings->keys[i];
        a.v[a.n++] = settings->items[i];
    }
    return call_value(in, cls, &a);
}

/* LightningCLI(model_class, datamodule_class, trainer_defaults=, run=True):
 * the Trainer first (its precision decides the weights' dtype), then the
 * model and the datamodule from their sections, then `fit` runs a step. */
AVal *lightning_cli(Interp *in, Args *a)
{
    AVal *model_cls = arg(a, 0, "model_class"), *data_cls = arg(a, 1, "datamodule_class");
    bool run = bool_or(a, -1, "run", true);
    AVal *list = arg(a, -1, "args");
    Words w = {in->script_args, in->nscript_args, "the command line"};
    if (list && list->k == AV_SEQ) {
        const char **v = arena_alloc(in->a, (list->n + 1) * sizeof *v);
        uint32_t n = 0;
        for (uint32_t i = 0; i < list->n; i++)
            if (list->items[i]->k == AV_STR)
                v[n++] = list->items[i]->s;
        w = (Words){v, n, "LightningCLI's args="};
    }
    const char *command;
    AVal *s = lightning_settings(in, w, run, &command);
    if (interp_error(in))
        return av_unknown(in);
    const char *script = in->script_path ? in->script_path : "SCRIPT";
    bool known = eq(command, "fit") || eq(command, "validate") || eq(command, "test") || eq(command, "predict");
    if (command && !known) {
        refuse(in, arena_printf(in->a, "'%s' is not a LightningCLI sub-command (fit, validate, test, predict): "
                                       "`pfc estimate %s -- fit ...` estimates the training step", command, script));
        return av_unknown(in);
    }
    if (command && !eq(command, "fit")) {
        refuse(in, arena_printf(in->a, "LightningCLI runs '%s', which trains nothing: pfc estimates the "
                                       "training step of `pfc estimate %s -- fit ...`", command, script));
        return av_unknown(in);
    }
    if (!model_cls || (model_cls->k != AV_CLASS && model_cls->k != AV_FUNC)) {
        refuse(in, "LightningCLI's model class is chosen on the command line (subclass mode): "
                   "pfc follows LightningCLI(ModelClass, ...)");
        return av_unknown(in);
    }
    AVal *cli = av_obj(in, NN_OPAQUE);
    cli->obj->a = OPAQUE_PL_CLI;
    AVal *t = trainer(in, settings_merged(in, arg(a, -1, "trainer_defaults"), dict_value(s, "trainer")));
    AVal *model = build(in, model_cls, init_args_of(in, dict_value(s, "model")));
    AVal *dm = data_cls && data_cls->k == AV_CLASS ? build(in, data_cls, init_args_of(in, dict_value(s, "data")))
                                                   : av_none(in);
    obj_set(in, cli->obj, "trainer", t);
    obj_set(in, cli->obj, "model", model);
    obj_set(in, cli->obj, "datamodule", dm);
    if (run && !interp_error(in))
        obj_set(in, cli->obj, "__loss__", fit_step(in, t->obj, model, NULL, dm));
    return cli;
}
