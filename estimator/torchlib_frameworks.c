/* The training stack around the model: autocast and grad contexts,
 * checkpointing, wrappers (DDP, FSDP, torch.compile), Accelerate, DeepSpeed,
 * the Hugging Face Trainer and configs, models known by name. */
#include "torchlib.h"
#include <math.h>
#include <stdlib.h>

static AVal *context(Interp *in, int kind, bool enabled, DType dt)
{
    AVal *c = av_obj(in, NN_OPAQUE);
    c->obj->a = kind;
    c->obj->b = enabled;
    c->obj->c = dt;
    return c;
}

static AVal *autocast(Interp *in, Args *a)
{
    DType dt = DT_F16;   /* CUDA autocast's default */
    AVal *d = arg(a, -1, "dtype");
    if (d)
        dtype_of(d, &dt);
    AVal *dev = arg(a, 0, "device_type");
    bool cuda = !dev || dev->k != AV_STR || strncmp(dev->s, "cuda", 4) == 0;
    return context(in, OPAQUE_AUTOCAST, cuda && bool_or(a, -1, "enabled", true), dt);
}

static AVal *checkpoint(Interp *in, Args *a)
{
    AVal *fn = arg(a, 0, "function");
    if (!fn || a->n < 2)
        return av_unknown(in);
    Args rest = {{0}, {0}, 0};
    for (uint32_t i = 1; i < a->n; i++)
        if (!a->kw[i]) {
            rest.v[rest.n] = a->v[i];
            rest.kw[rest.n++] = NULL;
        }
    TId x = rest.n ? av_gpu(in, rest.v[0]) : 0;
    if (x)
        tr_ckpt_begin(in->tr, x);
    AVal *r = call_value(in, fn, &rest);
    if (x)
        tr_ckpt_end(in->tr);
    return r;
}

/* A model the host recognises by name (a Hugging Face or torchvision
 * constructor), built from its configuration; NULL when none. */
AVal *library_model(Interp *in, const char *q, Args *a)
{
    if (!in->hooks.library_model)
        return NULL;
    Obj o;
    memset(&o, 0, sizeof o);
    o.cls = -1;
    if (!in->hooks.library_model(in->hooks.ctx, in, q, a->v, a->kw, a->n, &o))
        return NULL;
    AVal *m = av_obj(in, o.nn);
    *m->obj = o;
    m->obj->is_module = true;
    return m;
}

/* The environment the script runs in: os.environ, the device, grad mode,
 * autocast, activation checkpointing. */
AVal *runtime_call(Interp *in, const char *q, Args *a)
{
    if (eq(q, "os.environ.get") || eq(q, "os.getenv")) {
        AVal *name = arg(a, 0, "key");
        if (name && name->k == AV_STR)
            interp_note(in, 0, arena_printf(in->a, "environment variable %s: its default in the script", name->s));
        return arg(a, 1, "default") ? arg(a, 1, "default") : av_none(in);
    }
    if (eq(q, "torch.device")) {
        AVal *d = av_new(in, AV_DEVICE);
        d->i = device_is_gpu(arg(a, 0, "type"));
        return d;
    }
    if (eq(q, "torch.cuda.is_available"))
        return av_bool(in, true);
    if (eq(q, "torch.cuda.device_count"))
        return av_int(in, 1);
    if (eq(q, "torch.no_grad") || eq(q, "torch.inference_mode"))
        return context(in, OPAQUE_NO_GRAD, true, DT_F32);
    if (eq(q, "torch.enable_grad"))
        return context(in, OPAQUE_ENABLE_GRAD, true, DT_F32);
    if (eq(q, "torch.autocast") || eq(q, "torch.cuda.amp.autocast") || eq(q, "torch.amp.autocast") ||
        eq(q, "torch.cpu.amp.autocast"))
        return autocast(in, a);
    if (eq(q, "torch.utils.checkpoint.checkpoint"))
        return checkpoint(in, a);
    return NULL;
}

/* Wrappers that run the same module (or iterate the same loader): the
 * result is their first argument. */
AVal *wrapper_call(Interp *in, const char *q, Args *a)
{
    /* torch.compile: estimated as eager (estimate.c says so in an assumption line) */
    if (ends(q, "get_peft_model") || ends(q, "prepare_model_for_kbit_training") || eq(q, "torch.compile") ||
        strstr(q, "DistributedDataParallel") || strstr(q, "FullyShardedDataParallel") ||
        ends(q, "DataParallel") || ends(q, "fully_shard") || eq(q, "tqdm.tqdm") || eq(q, "tqdm.auto.tqdm") ||
        eq(q, "tqdm") || eq(q, "torch.jit.script"))
        return arg(a, 0, NULL) ? arg(a, 0, NULL) : av_unknown(in);
    return NULL;
}

static AVal *deepspeed_initialize(Interp *in, Args *a)
{
    /* (engine, optimizer, loader, scheduler): the engine runs the model */
    AVal *s = av_seq(in, 4);
    AVal *model = arg(a, -1, "model");
    s->items[0] = model ? model : av_unknown(in);
    s->items[1] = arg(a, -1, "optimizer") ? arg(a, -1, "optimizer") : av_obj(in, NN_OPTIMIZER);
    s->items[2] = arg(a, -1, "training_data") ? arg(a, -1, "training_data") : av_none(in);
    s->items[3] = av_none(in);
    return s;
}

static AVal *accelerator(Interp *in, Args *a)
{
    AVal *o = av_obj(in, NN_OPAQUE);
    o->obj->a = OPAQUE_ACCELERATOR;
    AVal *mp = arg(a, -1, "mixed_precision");
    if (mp && mp->k == AV_STR)
        obj_set(in, o->obj, "mixed_precision", mp);
    return o;
}

/* TrainingArguments, SFTConfig, Trainer, SFTTrainer: keyword arguments
 * become attributes; the Trainer's train() runs a step. */
static AVal *trainer_object(Interp *in, const char *q, Args *a)
{
    AVal *o = av_obj(in, NN_OPAQUE);
    o->obj->a = strstr(q, "Trainer") ? OPAQUE_TRAINER : OPAQUE_ARGS;
    for (uint32_t i = 0; i < a->n; i++)
        if (a->kw[i])
            obj_set(in, o->obj, a->kw[i], a->v[i]);
    if (o->obj->a == OPAQUE_TRAINER && !obj_get(o->obj, "model") && arg(a, 0, NULL))
        obj_set(in, o->obj, "model", arg(a, 0, NULL));
    return o;
}

/* Objects that hold the run's configuration: argparse, deepspeed,
 * Accelerate, the Hugging Face Trainer. */
AVal *config_call(Interp *in, const char *q, Args *a)
{
    if (eq(q, "argparse.ArgumentParser")) {
        AVal *p = av_obj(in, NN_OPAQUE);
        p->obj->a = OPAQUE_ARGPARSER;
        return p;
    }
    if (eq(q, "deepspeed.initialize"))
        return deepspeed_initialize(in, a);
    if (eq(q, "accelerate.Accelerator"))
        return accelerator(in, a);
    if (eq(q, "transformers.TrainingArguments") || eq(q, "trl.SFTConfig") ||
        eq(q, "transformers.Trainer") || eq(q, "trl.SFTTrainer"))
        return trainer_object(in, q, a);
    return NULL;
}

/* ---- the Hugging Face Trainer ----------------------------------------------------------- */

/* One training step as the Trainer runs it: a batch of
 * per_device_train_batch_size items from train_dataset, the model in train
 * mode, under autocast with bf16=True / fp16=True; returns the loss. */
AVal *trainer_step(Interp *in, Obj *trainer)
{
    AVal *model = obj_get(trainer, "model");
    AVal *args = obj_get(trainer, "args");
    AVal *ds = obj_get(trainer, "train_dataset");
    if (!model || model->k != AV_OBJECT || !ds)
        return av_unknown(in);
    AVal *bs = args && args->k == AV_OBJECT ? obj_get(args->obj, "per_device_train_batch_size") : NULL;
    in->trainer_batch = 8;   /* TrainingArguments' default */
    av_int_of(bs, &in->trainer_batch);
    Args la = {{ds, bs ? bs : av_int(in, 8)}, {NULL, "batch_size"}, 2};
    AVal *loader = data_loader(in, &la);
    AVal *batch = loader_batch(in, loader);
    Args ma = {{0}, {0}, 0};
    if (batch->k == AV_DICT) {
        for (uint32_t i = 0; i < batch->n && i < ARGS_MAX; i++) {
            ma.kw[ma.n] = batch->keys[i];
            ma.v[ma.n++] = batch->items[i];
        }
    } else {
        ma.v[ma.n++] = batch;
    }
    bool ac = false, fp16 = false, known;
    AVal *v = args && args->k == AV_OBJECT ? obj_get(args->obj, "bf16") : NULL;
    ac = v && av_truth(v, &known);
    v = args && args->k == AV_OBJECT ? obj_get(args->obj, "fp16") : NULL;
    fp16 = v && av_truth(v, &known);
    Trace *tr = in->tr;
    bool was_training = tr->training, was_on = tr->autocast_on;
    DType was_dt = tr->autocast;
    tr->training = true;
    if ((ac || fp16) && !in->no_autocast) {
        tr->autocast_on = true;
        tr->autocast = fp16 ? DT_F16 : DT_BF16;
    }
    in->model_called = true;
    in->in_trainer = true;
    AVal *out = call_value(in, model, &ma);
    in->in_trainer = false;
    tr->training = was_training;
    tr->autocast_on = was_on;
    tr->autocast = was_dt;
    return attr_of_value(in, out, "loss");
}

AVal *accelerator_method(Interp *in, Obj *acc, const char *name, Args *a)
{
    if (eq(name, "prepare")) {
        /* returns what it was given, wrapped: the same module, optimizer, loader */
        if (a->n == 1)
            return a->v[0];
        AVal *s = av_seq(in, a->n);
        for (uint32_t i = 0; i < a->n; i++)
            s->items[i] = a->v[i];
        return s;
    }
    if (eq(name, "autocast")) {
        AVal *mp = obj_get(acc, "mixed_precision");
        bool on = mp && mp->k == AV_STR && (strcmp(mp->s, "bf16") == 0 || strcmp(mp->s, "fp16") == 0);
        return context(in, OPAQUE_AUTOCAST, on, on && strcmp(mp->s, "fp16") == 0 ? DT_F16 : DT_BF16);
    }
    if (eq(name, "unwrap_model") || eq(name, "prepare_model"))
        return arg(a, 0, NULL) ? arg(a, 0, NULL) : av_unknown(in);
    return av_none(in);
}
