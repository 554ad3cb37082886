/* The training stack around the model: autocast and grad contexts,
 * checkpointing, wrappers (DDP, FSDP, torch.compile), Accelerate, DeepSpeed,
 * the Hugging Face Trainer and configs, models known by name. */
#include "torchlib.h"
#include "../base/buf.h"
#include "../base/json.h"
#include "../base/yaml.h"
#include <math.h>
#include <stdio.h>
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
    /* an opaque object (a diffusers pipeline, a component pfc does not
     * model) is not the model the step calls */
    m->obj->is_module = o.nn != NN_OPAQUE;
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
    /* the run pfc estimates: one GPU, or the ranks --world-size gives;
     * scripts divide their batch by these */
    if (eq(q, "torch.cuda.device_count")) {
        interp_note(in, in->cur_node, arena_printf(in->a, "torch.cuda.device_count() taken as %lld%s",
                                                   (long long)in->local_world_size,
                                                   in->world_size > 1 ? " (the GPUs of a node)" : " (--world-size N gives more)"));
        return av_int(in, in->local_world_size);
    }
    if (eq(q, "torch.distributed.get_world_size"))
        return av_int(in, in->world_size);
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

/* torch.nn.parallel.data_parallel(module, inputs, device_ids, output_device,
 * dim, module_kwargs): module(*inputs, **module_kwargs), a tensor being one
 * input. Estimated as nn.DataParallel is, the whole batch through the one
 * model on this GPU (torch gives each of device_ids a slice of it, so the
 * activations are an upper bound), which the report says. */
static AVal *data_parallel(Interp *in, Args *a)
{
    AVal *module = arg(a, 0, "module"), *inputs = arg(a, 1, "inputs"), *kw = arg(a, 5, "module_kwargs");
    if (!module || !inputs)
        return av_unknown(in);
    Args call = {{0}, {0}, 0};
    AVal *items = inputs->k == AV_SEQ ? inputs : NULL;
    for (uint32_t i = 0; items ? i < items->n : i < 1; i++)
        if (call.n < ARGS_MAX)
            call.v[call.n++] = items ? items->items[i] : inputs;
    for (uint32_t i = 0; kw && kw->k == AV_DICT && i < kw->n; i++)
        if (call.n < ARGS_MAX) {
            call.kw[call.n] = kw->keys[i];
            call.v[call.n++] = kw->items[i];
        }
    interp_note(in, in->cur_node, "torch.nn.parallel.data_parallel: the whole batch is estimated through one "
                                  "replica on this GPU, as nn.DataParallel is (torch splits it over device_ids, so "
                                  "the activations are an upper bound)");
    return call_value(in, module, &call);
}

/* Wrappers that run the same module (or iterate the same loader): the
 * result is their first argument. */
AVal *wrapper_call(Interp *in, const char *q, Args *a)
{
    if (eq(q, "torch.nn.parallel.data_parallel") || eq(q, "torch.nn.parallel.data_parallel.data_parallel"))
        return data_parallel(in, a);
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

/* ---- configuration files (yaml.safe_load(open(p)), json.load, OmegaConf.load) -------------- */

static AVal *from_json(Interp *in, const JsonValue *j, const char *src, const char *origin)
{
    AVal *v;
    switch (json_kind(j)) {
    case JSON_BOOL: return av_bool(in, j->boolean);
    case JSON_NUMBER: return literal_value(in, arena_strndup(in->a, src + j->start, j->end - j->start));
    case JSON_STRING:
        v = av_str(in, j->str);
        v->origin = origin;
        return v;
    case JSON_ARRAY:
        v = av_seq(in, j->n);
        for (uint32_t i = 0; i < j->n; i++)
            v->items[i] = from_json(in, j->items[i], src, origin);
        return v;
    case JSON_OBJECT:
        v = av_new(in, AV_DICT);
        v->keys = arena_zalloc(in->a, (j->n + 1) * sizeof *v->keys);
        v->items = arena_zalloc(in->a, (j->n + 1) * sizeof *v->items);
        for (uint32_t i = 0; i < j->n; i++) {
            v->keys[v->n] = json_string(j->members[i].key, NULL);
            v->items[v->n++] = from_json(in, j->members[i].value, src, origin);
        }
        return v;
    default: return av_none(in);
    }
}

static AVal *from_yaml(Interp *in, const YamlValue *y, const char *origin)
{
    AVal *v;
    switch (yaml_kind(y)) {
    case YAML_SCALAR:
        v = y->quoted ? av_str(in, y->str) : literal_value(in, y->str);
        if (v->k == AV_STR)
            v->origin = origin;
        return v;
    case YAML_SEQ:
        v = av_seq(in, y->n);
        for (uint32_t i = 0; i < y->n; i++)
            v->items[i] = from_yaml(in, y->items[i], origin);
        return v;
    case YAML_MAP:
        v = av_new(in, AV_DICT);
        v->keys = arena_zalloc(in->a, (y->n + 1) * sizeof *v->keys);
        v->items = arena_zalloc(in->a, (y->n + 1) * sizeof *v->items);
        for (uint32_t i = 0; i < y->n; i++) {   /* the last of duplicate keys wins (dict_get scans forward) */
            uint32_t k = 0;
            while (k < v->n && strcmp(v->keys[k], y->keys[i]) != 0)
                k++;
            v->keys[k] = y->keys[i];
            v->items[k] = from_yaml(in, y->items[i], origin);
            v->n += k == v->n;
        }
        return v;
    default: return av_none(in);
    }
}

static char *read_whole(const char *path, Arena *a, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    Buf b = {0};
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && b.n < (16u << 20))
        buf_put(&b, chunk, n);
    fclose(f);
    char *out = arena_strndup(a, b.v ? b.v : "", b.n);
    *len = b.n;
    buf_free(&b);
    return out;
}

static AVal *config_refused(Interp *in, const char *why)
{
    tr_refuse(in->tr, why);
    interp_fail(in, why);
    return av_unknown(in);
}

/* A config file the script reads, relative to the script's directory as
 * when it is run from there; one that cannot be read is a refusal naming it. */
AVal *config_file(Interp *in, AVal *path)
{
    if (path && path->k == AV_OBJECT && path->obj->a == OPAQUE_FILE)
        path = obj_get(path->obj, "path");
    if (!path || path->k != AV_STR)
        return av_unknown(in);
    const char *dir = in->script_path ? strrchr(in->script_path, '/') : NULL;
    const char *full = path->s[0] == '/' || !dir ? path->s
                       : arena_printf(in->a, "%.*s/%s", (int)(dir - in->script_path), in->script_path, path->s);
    size_t len;
    const char *src = read_whole(full, in->a, &len);
    if (!src)
        return config_refused(in, arena_printf(in->a, "the config file %s cannot be read (give the script's "
                                                      "arguments after --, or run pfc from where the script "
                                                      "runs)", full));
    const char *origin = arena_printf(in->a, "config file %s", path->s);
    size_t n = strlen(path->s);
    bool yaml = (n > 5 && strcmp(path->s + n - 5, ".yaml") == 0) || (n > 4 && strcmp(path->s + n - 4, ".yml") == 0);
    AVal *v;
    if (yaml) {
        YamlError err;
        const YamlValue *y = yaml_parse(in->a, src, len, &err);
        if (!y)
            return config_refused(in, arena_printf(in->a, "the config file %s:%u: %s", full, err.line, err.msg));
        v = from_yaml(in, y, origin);
    } else {
        JsonError err;
        const JsonValue *j = json_parse(in->a, src, len, &err);
        if (!j)
            return config_refused(in, arena_printf(in->a, "the config file %s:%u: %s", full, err.line, err.msg));
        v = from_json(in, j, src, origin);
    }
    interp_note(in, 0, arena_printf(in->a, "read the config file %s", path->s));
    return v;
}

/* ---- HfArgumentParser / TrlParser: dataclasses are the configuration ---------------------- */

/* A field's value from a config dict or the command line; a field left
 * None or without a default names itself (--field), for the refusal. */
static void fill_field(Interp *in, Obj *o, uint32_t i, AVal *given, const char *cls)
{
    const char *name = o->names[i];
    AVal *v = NULL;
    for (uint32_t k = 0; given && given->k == AV_DICT && k < given->n && !v; k++)
        if (eq(given->keys[k], name))
            v = given->items[k];
    AVal *cl = script_value(in, name);
    if (cl)
        v = cl;
    if (v) {
        o->vals[i] = v;
    } else if (o->vals[i]->k == AV_STR && !o->vals[i]->origin) {
        o->vals[i] = config_value(in, o->vals[i], arena_printf(in->a, "%s default", cls),
                                  arena_printf(in->a, "--%s NAME", name));
    } else if (o->vals[i]->k == AV_NONE || o->vals[i]->k == AV_UNKNOWN) {
        o->vals[i] = config_value(in, av_unknown(in),
                                  arena_printf(in->a, "the required option --%s, which has no default", name),
                                  arena_printf(in->a, "--%s NAME", name));
    }
}

/* One dataclass of the parser: an in-file one with its defaults, or a
 * library one (TrainingArguments, SFTConfig, ModelConfig...) with what the
 * config and the command line give. */
static AVal *hf_dataclass(Interp *in, AVal *cls, AVal *given)
{
    Args none = {{0}, {0}, 0};
    AVal *o = call_value(in, cls, &none);
    if (o->k != AV_OBJECT)
        return o;
    if (cls->k == AV_QUAL) {
        for (uint32_t k = 0; given && given->k == AV_DICT && k < given->n; k++)
            obj_set(in, o->obj, given->keys[k], given->items[k]);
        for (uint32_t i = 0; i < in->nscript_args; i++)
            if (strncmp(in->script_args[i], "--", 2) == 0 && in->script_args[i][2]) {
                const char *key = in->script_args[i] + 2, *eqs = strchr(key, '=');
                key = eqs ? arena_strndup(in->a, key, (size_t)(eqs - key)) : key;
                obj_set(in, o->obj, key, script_value(in, key));
            }
        return o;
    }
    if (cls->k != AV_CLASS)
        return o;
    InterpModule *back = enter_module(in, cls->mod);   /* the class may be another module's */
    const char *name = in_name(in, in->ir->classes.v[cls->fn].name);
    enter_module(in, back);
    for (uint32_t i = 0; i < o->obj->nattr; i++)
        fill_field(in, o->obj, i, given, name);
    return o;
}

static AVal *hf_parse(Interp *in, Obj *parser, AVal *given)
{
    AVal *types = obj_get(parser, "types");
    AVal *list = types && types->k == AV_SEQ ? types : NULL;
    uint32_t n = list ? list->n : 1;
    AVal *out = av_seq(in, n + 1);   /* the last: return_remaining_strings' list */
    for (uint32_t i = 0; i < n; i++)
        out->items[i] = hf_dataclass(in, list ? list->items[i] : types, given);
    out->items[n] = av_seq(in, 0);
    return out;
}

AVal *hf_parser_method(Interp *in, Obj *parser, const char *name, Args *a)
{
    AVal *given = NULL;
    if (eq(name, "parse_json_file") || eq(name, "parse_yaml_file")) {
        AVal *path = arg(a, 0, eq(name, "parse_json_file") ? "json_file" : "yaml_file");
        if (path && path->k == AV_STR)
            given = config_file(in, path);
        else
            interp_note(in, 0, "the parser's config file is not named in the script: its dataclasses' "
                               "defaults and the arguments after --");
    } else if (eq(name, "parse_dict")) {
        given = arg(a, 0, "args");
    } else if (!eq(name, "parse_args_into_dataclasses") && !eq(name, "parse_args_and_config")) {
        return av_unknown(in);
    }
    if (interp_error(in))
        return av_unknown(in);
    return hf_parse(in, parser, given);
}

/* Whether q names Lightning's class cls, under any of the packages and
 * modules it is exported from (lightning.Trainer, lightning.pytorch.Trainer,
 * pytorch_lightning.trainer.trainer.Trainer, lightning.pytorch.cli.LightningCLI). */
static bool is_lightning(const char *q, const char *cls)
{
    if (strncmp(q, "lightning.", 10) != 0 && strncmp(q, "pytorch_lightning.", 18) != 0)
        return false;
    const char *last = strrchr(q, '.');
    return eq(last + 1, cls);
}

static AVal *fabric(Interp *in, Args *a);

/* deepspeed.add_config_arguments(parser) adds DeepSpeed's options to the
 * parser and gives the same parser back: --deepspeed and --deepscale (flags),
 * --deepspeed_config and --deepscale_config (paths, default None). */
static AVal *deepspeed_arguments(Interp *in, Args *a)
{
    AVal *parser = arg(a, 0, "parser");
    if (!parser || parser->k != AV_OBJECT || parser->obj->a != OPAQUE_ARGPARSER)
        return av_unknown(in);
    static const char *const flags[] = {"--deepspeed", "--deepscale"};
    static const char *const paths[] = {"--deepspeed_config", "--deepscale_config"};
    for (int i = 0; i < 2; i++) {
        Args f = {{av_str(in, flags[i]), av_str(in, "store_true")}, {NULL, "action"}, 2};
        argparse_method(in, parser->obj, "add_argument", &f);
        Args p = {{av_str(in, paths[i]), av_none(in)}, {NULL, "default"}, 2};
        argparse_method(in, parser->obj, "add_argument", &p);
    }
    return parser;
}

/* Objects that hold the run's configuration: argparse, deepspeed,
 * Accelerate, the Hugging Face Trainer and its argument parser, config
 * files. */
AVal *config_call(Interp *in, const char *q, Args *a)
{
    if (eq(q, "transformers.HfArgumentParser") || eq(q, "trl.TrlParser")) {
        AVal *p = av_obj(in, NN_OPAQUE);
        p->obj->a = OPAQUE_HFPARSER;
        AVal *types = arg(a, 0, "dataclass_types");
        obj_set(in, p->obj, "types", types ? types : av_unknown(in));
        return p;
    }
    if (eq(q, "dataclasses.field")) {
        AVal *d = arg(a, -1, "default"), *f = arg(a, -1, "default_factory");
        Args none = {{0}, {0}, 0};
        return d ? d : f ? call_value(in, f, &none) : av_new(in, AV_UNKNOWN);
    }
    if (eq(q, "builtins.open") || eq(q, "io.open")) {
        AVal *f = av_obj(in, NN_OPAQUE);
        f->obj->a = OPAQUE_FILE;
        obj_set(in, f->obj, "path", arg(a, 0, "file") ? arg(a, 0, "file") : av_unknown(in));
        return f;
    }
    if (eq(q, "yaml.safe_load") || eq(q, "yaml.load") || eq(q, "yaml.full_load") || eq(q, "json.load") ||
        eq(q, "omegaconf.OmegaConf.load"))
        return config_file(in, arg(a, 0, NULL));
    if (eq(q, "trl.ScriptArguments") || eq(q, "trl.ModelConfig"))
        return trainer_object(in, q, a);
    if (eq(q, "argparse.ArgumentParser") || eq(q, "configargparse.ArgumentParser") ||
        eq(q, "configargparse.ArgParser") || eq(q, "jsonargparse.ArgumentParser"))
        return new_argparser(in, a);
    if (is_lightning(q, "Trainer"))
        return lightning_trainer(in, a);
    if (is_lightning(q, "LightningCLI"))
        return lightning_cli(in, a);
    if (eq(q, "deepspeed.initialize"))
        return deepspeed_initialize(in, a);
    if (eq(q, "deepspeed.add_config_arguments"))
        return deepspeed_arguments(in, a);
    if (eq(q, "accelerate.Accelerator"))
        return accelerator(in, a);
    if (is_diffusers_scheduler(q)) {
        AVal *s = av_obj(in, NN_OPAQUE);
        s->obj->a = OPAQUE_SCHEDULER;
        s->obj->is_module = false;
        return s;
    }
    if (is_lightning(q, "Fabric") || eq(q, "lightning_fabric.Fabric") || eq(q, "lightning_fabric.fabric.Fabric"))
        return fabric(in, a);
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

/* diffusers.DDPMScheduler (any *Scheduler of diffusers), built or loaded:
 * "diffusers.DDPMScheduler", "diffusers.schedulers.X.from_pretrained" */
bool is_diffusers_scheduler(const char *q)
{
    if (strncmp(q, "diffusers.", 10) != 0)
        return false;
    size_t n = strlen(q);
    static const char *const loaders[] = {".from_pretrained", ".from_config"};
    for (size_t i = 0; i < 2; i++) {
        size_t m = strlen(loaders[i]);
        if (n > m && strcmp(q + n - m, loaders[i]) == 0)
            n -= m;
    }
    return n >= 9 && strncmp(q + n - 9, "Scheduler", 9) == 0;
}

/* add_noise(original_samples, noise, timesteps) and get_velocity(sample,
 * noise, timesteps): sqrt(alpha) * x + sqrt(1 - alpha) * noise, a new tensor
 * of the sample's shape outside the graph (the samples are data);
 * scale_model_input(sample, t) returns the sample. */
AVal *scheduler_method(Interp *in, Obj *s, const char *name, Args *a)
{
    (void)s;
    AVal *x = arg(a, 0, eq(name, "add_noise") ? "original_samples" : "sample");
    if (eq(name, "scale_model_input"))
        return x ? x : av_unknown(in);
    if ((eq(name, "add_noise") || eq(name, "get_velocity")) && x && x->k == AV_TENSOR) {
        int64_t dim[TR_MAXDIM];
        memcpy(dim, x->dim, sizeof dim);
        return new_tensor_value(in, (DType)x->dtype, x->nd, dim, x->gpu);
    }
    return av_unknown(in);
}

/* Lightning's Fabric(precision=...): "bf16-mixed" and "16-mixed" run the
 * model under autocast from setup() on; "-true" precisions convert the
 * weights, which pfc does not model (noted). */
static AVal *fabric(Interp *in, Args *a)
{
    AVal *o = av_obj(in, NN_OPAQUE);
    o->obj->a = OPAQUE_FABRIC;
    AVal *p = arg(a, -1, "precision"), *acc = arg(a, -1, "accelerator");
    const char *prec = p && p->k == AV_STR ? p->s : NULL;
    int64_t bits = 0;
    if (p && av_int_of(p, &bits))
        prec = bits == 16 ? "16-mixed" : NULL;
    o->obj->b = prec && (eq(prec, "bf16-mixed") || eq(prec, "bf16")) ? DT_BF16
                : prec && (eq(prec, "16-mixed") || eq(prec, "16")) ? DT_F16 : DT_F32;
    if (prec && strstr(prec, "-true") && !eq(prec, "32-true"))
        interp_note(in, in->cur_node, arena_printf(in->a, "Fabric(precision=\"%s\") converts the weights, which "
                                                          "pfc does not model: they are estimated as the script "
                                                          "builds them", prec));
    AVal *dev = av_new(in, AV_DEVICE);
    dev->i = !(acc && acc->k == AV_STR && eq(acc->s, "cpu"));
    obj_set(in, o->obj, "device", dev);
    return o;
}

/* What setup(), setup_module() and the others are given, given back: one
 * value, or a tuple of them. */
static AVal *given_back(Interp *in, Args *a)
{
    if (a->n == 1)
        return a->v[0];
    AVal *s = av_seq(in, a->n);
    for (uint32_t i = 0; i < a->n; i++)
        s->items[i] = a->v[i];
    return s;
}

AVal *fabric_method(Interp *in, Obj *fab, const char *name, Args *a)
{
    if (eq(name, "setup") || eq(name, "setup_module")) {
        if (fab->b != DT_F32 && !in->no_autocast) {   /* the wrapped forward runs under autocast */
            in->force_autocast = true;
            in->force_autocast_dtype = (DType)fab->b;
        }
        return given_back(in, a);
    }
    if (eq(name, "setup_optimizers") || eq(name, "setup_dataloaders"))
        return given_back(in, a);
    if (eq(name, "autocast"))
        return context(in, OPAQUE_AUTOCAST, fab->b != DT_F32, fab->b != DT_F32 ? (DType)fab->b : DT_BF16);
    if (eq(name, "to_device"))
        return arg(a, 0, NULL) ? arg(a, 0, NULL) : av_unknown(in);
    return av_none(in);
}

AVal *accelerator_method(Interp *in, Obj *acc, const char *name, Args *a)
{
    if (eq(name, "prepare")) {
        /* returns what it was given, wrapped: the same module, optimizer, loader */
        return given_back(in, a);
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
