/* Models known by name as interpreter hooks (see library.h): a library
 * constructor makes an opaque module; calling it records the model's
 * forward through hf.c, vision.c or diffusers.c (library_diffusers.c) on
 * the shapes the script passes. */
#include "checked.h"
#include "library.h"
#include "hf.h"
#include "interp_int.h"
#include "timm.h"
#include "vision.h"
#include <string.h>

static bool known_vision(const char *name)
{
    size_t n;
    const char *const *names = vision_names(&n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return true;
    return false;
}

static const char *after(const char *q, const char *prefix)
{
    size_t n = strlen(prefix);
    return strncmp(q, prefix, n) == 0 ? q + n : NULL;
}


/* The head a from_pretrained class loads: AutoModelForX / FamilyForX /
 * FamilyModel / AutoModel. */
static int head_of(const char *qual)
{
    static const struct { const char *part; HfHead head; } heads[] = {
        {"ForCausalLM", HF_HEAD_CAUSAL_LM}, {"LMHeadModel", HF_HEAD_CAUSAL_LM},
        {"ForMaskedLM", HF_HEAD_MASKED_LM}, {"ForSequenceClassification", HF_HEAD_SEQ_CLS},
        {"ForTokenClassification", HF_HEAD_TOKEN_CLS}, {"ForQuestionAnswering", HF_HEAD_QA},
        {"ForSeq2SeqLM", HF_HEAD_SEQ2SEQ_LM}, {"ForConditionalGeneration", HF_HEAD_SEQ2SEQ_LM},
    };
    for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++)
        if (strstr(qual, heads[i].part))
            return heads[i].head;
    const char *cls = strrchr(qual, '.');
    /* ".../AutoModel.from_pretrained", "...BertModel.from_pretrained" */
    for (const char *p = qual; p && p < cls; p = strchr(p + 1, '.')) {
        const char *next = strchr(p + 1, '.');
        if (next == cls && next - p > 5 && strncmp(next - 5, "Model", 5) == 0)
            return HF_HEAD_BASE;
    }
    return HF_HEAD_DEFAULT;
}

/* num_classes=N (default 1000) of a vision model */
static int64_t num_classes_of(AVal **args, const char **kw, uint32_t n)
{
    int64_t nc = 1000;
    for (uint32_t i = 0; i < n; i++)
        if (kw[i] && strcmp(kw[i], "num_classes") == 0)
            av_int_of(args[i], &nc);
    return nc;
}

/* timm.create_model(name, pretrained=..., num_classes=...): the torchvision
 * builder with timm's parameter tree (timm.c). */
static bool timm_model(LibraryCtx *lc, Interp *in, AVal **args, const char **kw, uint32_t n, Obj *out)
{
    AVal *name = library_kwarg(args, kw, n, "model_name", 0);
    if (!name || name->k != AV_STR) {
        lc->error = "timm.create_model's model name is not a literal or a constant pfc can read";
        return false;
    }
    const char *vision = timm_vision_name(name->s);
    if (!vision) {
        lc->error = arena_printf(in->a, "timm model '%s' is not one pfc models (ResNet, ViT, ConvNeXt, "
                                        "EfficientNet B0-B3)", name->s);
        return false;
    }
    out->nn = NN_VISION;
    out->arch = vision;
    out->a = num_classes_of(args, kw, n);
    lc->model_name = name->s;
    interp_note(in, 0, arena_printf(in->a, "timm's %s is modelled with torchvision's layer order (the same "
                                           "parameters; timm's attention reshapes and drop-path defaults "
                                           "differ slightly)", name->s));
    return true;
}

/* The refusal for a model name the configuration leaves empty or
 * unset: what the name is, and the words that give it. */
static const char *name_missing(Interp *in, const AVal *name)
{
    if (name->k != AV_STR)
        return arena_printf(in->a, "%s or `--model NAME`", missing_config(in, "from_pretrained's model name", name));
    const char *from = arena_printf(in->a, "empty ('' from %s)", name->origin ? name->origin : "the script");
    AVal why = *name;
    why.origin = from;
    return name->cli ? arena_printf(in->a, "%s or `--model NAME`", missing_config(in, "from_pretrained's model name", &why))
                     : arena_printf(in->a, "from_pretrained's model name is %s: give it with `--model NAME`", from);
}

/* from_pretrained's name: the script's value (noted with where a
 * configuration gave it), else --model NAME; NULL with lc->error. */
const char *library_model_name(LibraryCtx *lc, Interp *in, AVal **args, const char **kw, uint32_t n)
{
    AVal *name = NULL;
    for (uint32_t i = 0; i < n && !name; i++)
        if (!kw[i] || strcmp(kw[i], "pretrained_model_name_or_path") == 0)
            name = args[i];
    if (name && name->k == AV_STR && *name->s) {
        if (name->origin && strcmp(name->origin, "the command line") != 0)   /* noted when read */
            interp_note(in, 0, arena_printf(in->a, "model name '%s' (%s)", name->s, name->origin));
        return name->s;
    }
    if (lc->cfg->model_override) {
        interp_note(in, 0, arena_printf(in->a, "model name '%s' (--model)", lc->cfg->model_override));
        return lc->cfg->model_override;
    }
    if (name && (name->k == AV_STR || (name->k == AV_UNKNOWN && name->origin)))
        lc->error = name_missing(in, name);
    else
        lc->error = "from_pretrained's model name is not a literal or a constant pfc can read "
                    "(--model NAME gives it)";
    return NULL;
}

/* maxvit_t(input_size=...): its partition grids are computed from input_size
 * at construction; pfc models the default (224, 224), which the weights
 * impose (torchvision raises on another with weights). */
static bool maxvit_default_input_size(AVal **args, const char **kw, uint32_t n)
{
    AVal *size = library_kwarg(args, kw, n, "input_size", -1);
    int64_t h = 0, w = 0;
    return !size || (size->k == AV_SEQ && size->n == 2 && av_int_of(size->items[0], &h) &&
                     av_int_of(size->items[1], &w) && h == 224 && w == 224);
}

static bool library_model(void *ctx, Interp *in, const char *qual, AVal **args, const char **kw,
                          uint32_t n, Obj *out)
{
    LibraryCtx *lc = ctx;
    int diffusers = library_diffusers_model(lc, in, qual, args, kw, n, out);
    if (diffusers)
        return diffusers > 0;
    if (strcmp(qual, "timm.create_model") == 0 || strcmp(qual, "timm.models.create_model") == 0)
        return timm_model(lc, in, args, kw, n, out);
    const char *name = after(qual, "torchvision.models.");
    if (name && strcmp(name, "get_model") == 0) {   /* get_model("resnet50", weights=...) */
        AVal *chosen = library_kwarg(args, kw, n, "name", 0);
        if (!chosen || chosen->k != AV_STR) {
            lc->error = "torchvision.models.get_model's name is not a literal or a constant pfc can read";
            return false;
        }
        name = chosen->s;
        if (!known_vision(name)) {
            lc->error = arena_printf(in->a, "torchvision.models.get_model('%s'): not a torchvision "
                                            "classification model pfc knows", name);
            return false;
        }
    }
    if (name && known_vision(name)) {
        if (strcmp(name, "maxvit_t") == 0 && !maxvit_default_input_size(args, kw, n)) {
            lc->error = "maxvit_t's input_size is not (224, 224), or not a value pfc can read: pfc "
                        "models MaxViT's partition grids for its default 224 x 224 images only";
            return false;
        }
        out->nn = NN_VISION;
        out->arch = name;
        out->a = num_classes_of(args, kw, n);
        lc->model_name = name;
        return true;
    }
    if (strstr(qual, ".from_pretrained") && (after(qual, "transformers.") || after(qual, "peft."))) {
        const char *model = library_model_name(lc, in, args, kw, n);
        if (!model)
            return false;
        const Arch *a = arch_find(model);
        if (!a) {
            lc->error = arena_printf(in->a, "model '%s' is not in the architecture snapshot (pfc archs "
                                            "lists it)", model);
            return false;
        }
        out->nn = NN_HF;
        out->arch = a;
        out->b = head_of(qual);
        out->c = 0;
        for (uint32_t i = 0; i < n; i++)
            if (kw[i] && strcmp(kw[i], "num_labels") == 0)
                av_int_of(args[i], &out->c);
        if (!hf_head_supported(a, (HfHead)out->b)) {
            lc->error = arena_printf(in->a, "%s has no %s in transformers", a->name, qual);
            return false;
        }
        lc->model_name = a->name;
        return true;
    }
    return false;
}

void library_release(Interp *in, AVal *x)
{
    if (x && x->k == AV_TENSOR && x->gpu)
        in->tr->t.v[x->t].kept = false;
}

static AVal *call_vision(LibraryCtx *lc, Interp *in, Obj *m, AVal **args, uint32_t n)
{
    AVal *x = n ? args[0] : NULL;
    if ((!x || x->k != AV_TENSOR || x->nd != 4) && lc->cfg->batch) {
        /* the data pipeline is opaque but the user gave the batch */
        int64_t dim[4] = {lc->cfg->batch, 3, 224, 224};
        x = av_tensor_new(in, DT_F32, 4, dim, true);
        interp_note(in, 0, "the model's input could not be read: --batch images of 3 x 224 x 224 assumed");
    }
    if (!x || x->k != AV_TENSOR || x->nd != 4) {
        lc->error = "the torchvision model's input shape could not be read from the script "
                    "(--batch N gives it)";
        return av_unknown(in);
    }
    library_release(in, x);
    lc->batch = x->dim[0];
    lc->image = x->dim[2];
    TId logits;
    vision_apply_head(in, m);
    if (m->a <= 0 || m->a > CK_DIM_MAX) {
        lc->error = arena_printf(in->tr->arena, "the torchvision model's num_classes is %lld, %s", (long long)m->a,
                                 m->a <= 0 ? "not a positive integer" : "too large to estimate");
        return av_unknown(in);
    }
    if (!vision_build(in->tr, (const char *)m->arch, x->dim[0], x->dim[2], m->a, &logits)) {
        const char *why = vision_image_refusal((const char *)m->arch, x->dim[2]);
        lc->error = why ? arena_printf(in->tr->arena, "the torchvision model does not take %lld x %lld images: %s",
                                       (long long)x->dim[2], (long long)x->dim[3], why)
                        : "the torchvision model does not take that image size";
        return av_unknown(in);
    }
    lc->logits = logits;
    lc->head_op = in->tr->ops.n + 1;
    return av_tensor_of(in, logits);
}

AVal *library_kwarg(AVal **args, const char **kw, uint32_t n, const char *name, int pos)
{
    for (uint32_t i = 0; i < n; i++)
        if (kw[i] && strcmp(kw[i], name) == 0)
            return args[i];
    int seen = 0;
    for (uint32_t i = 0; pos >= 0 && i < n; i++)
        if (!kw[i] && seen++ == pos)
            return args[i];
    return NULL;
}

/* A Hugging Face model called on token ids: its forward (and loss, with
 * labels) from the snapshot; the output object holds loss and logits. */
/* Encoder-decoders run the decoder on decoder_input_ids, else on the labels
 * shifted right: their length, when the script gives either (0: the
 * encoder's). */
static int64_t decoder_length(AVal **args, const char **kw, uint32_t n, const AVal *labels)
{
    const AVal *dec = library_kwarg(args, kw, n, "decoder_input_ids", -1);
    if (dec && dec->k == AV_TENSOR && dec->nd == 2)
        return dec->dim[1];
    return labels && labels->k == AV_TENSOR && labels->nd == 2 ? labels->dim[1] : 0;
}

static AVal *call_hf_with(LibraryCtx *lc, Interp *in, Obj *m, AVal **args, const char **kw,
                          uint32_t n, const HfOptions *o);

/* Whisper: input_features (b, mels, 3000) and labels (b, tokens); with an
 * opaque pipeline, --batch and --seq (the labels' length) give them. */
static AVal *call_whisper(LibraryCtx *lc, Interp *in, Obj *m, AVal **args, const char **kw,
                          uint32_t n)
{
    const EstimateConfig *cfg = lc->cfg;
    AVal *feats = library_kwarg(args, kw, n, "input_features", 0);
    AVal *labels = library_kwarg(args, kw, n, "labels", -1);
    HfOptions o;
    memset(&o, 0, sizeof o);
    int64_t batch = cfg->batch ? cfg->batch : in->in_trainer ? in->trainer_batch : 0;
    if (feats && feats->k == AV_TENSOR && feats->nd == 3) {
        library_release(in, feats);
        o.batch = feats->dim[0];
        o.mels = feats->dim[1];
        o.seq = feats->dim[2];
    } else if (batch) {
        o.batch = batch;
        o.seq = 2 * WHISPER_ENCODER_POSITIONS;
        interp_note(in, 0, "the model's input_features could not be read: batch x mel bins x 3000 "
                           "frames assumed");
    }
    o.dec_seq = decoder_length(args, kw, n, labels);
    if (labels && labels->k == AV_TENSOR)
        library_release(in, labels);
    if (!o.dec_seq && cfg->seq) {
        o.dec_seq = cfg->seq;
        interp_note(in, 0, "the labels' length could not be read: --seq decoder tokens assumed");
    }
    if (!o.batch) {
        lc->error = "Whisper's input_features shape (batch, mel bins, 3000) could not be read from "
                    "the script (--batch N --seq N give it)";
        return av_unknown(in);
    }
    o.labels = (labels && labels->k != AV_NONE) || in->in_trainer || (!feats && lc->training_target);
    return call_hf_with(lc, in, m, args, kw, n, &o);
}

static AVal *call_hf(LibraryCtx *lc, Interp *in, Obj *m, AVal **args, const char **kw, uint32_t n)
{
    const EstimateConfig *cfg = lc->cfg;
    if (((const Arch *)m->arch)->family == FAM_WHISPER)
        return call_whisper(lc, in, m, args, kw, n);
    AVal *ids = library_kwarg(args, kw, n, "input_ids", 0);
    AVal *labels = library_kwarg(args, kw, n, "labels", -1);
    int64_t batch = cfg->batch ? cfg->batch : in->in_trainer ? in->trainer_batch : 0;
    if ((!ids || ids->k != AV_TENSOR || ids->nd != 2) && batch && cfg->seq) {
        /* the data pipeline is opaque (a hub dataset, a tokenizer) but the
         * user gave the shape: token ids, and labels for a training step */
        int64_t dim[2] = {batch, cfg->seq};
        ids = av_tensor_new(in, DT_I64, 2, dim, true);
        if (!labels || labels->k != AV_TENSOR)
            labels = in->in_trainer || lc->training_target ? ids : labels;
        interp_note(in, 0, cfg->batch ? "the model's inputs could not be read: --batch x --seq token ids "
                                        "assumed (with labels in a training step)"
                                      : "the model's inputs could not be read: the Trainer's batch x --seq "
                                        "token ids assumed, with labels");
    }
    if (!ids || ids->k != AV_TENSOR || ids->nd != 2) {
        lc->error = in->in_trainer ? "the sequence length of the Trainer's dataset could not be read "
                                     "from the script (--seq N gives it)"
                                   : "the model's input_ids shape (batch, sequence) could not be read "
                                     "from the script (--batch N --seq N give it)";
        return av_unknown(in);
    }
    library_release(in, ids);
    if (labels && labels->k == AV_TENSOR)
        library_release(in, labels);
    HfOptions o;
    memset(&o, 0, sizeof o);
    o.batch = ids->dim[0];
    o.seq = ids->dim[1];
    o.dec_seq = decoder_length(args, kw, n, labels);
    o.labels = labels && labels->k != AV_NONE;
    return call_hf_with(lc, in, m, args, kw, n, &o);
}

/* The model's forward on the input sizes in *o (batch, lengths, labels),
 * with the run's options. */
static AVal *call_hf_with(LibraryCtx *lc, Interp *in, Obj *m, AVal **args, const char **kw,
                          uint32_t n, const HfOptions *o_in)
{
    const EstimateConfig *cfg = lc->cfg;
    const Arch *a = m->arch;
    HfOptions o = *o_in;
    lc->batch = o.batch;
    lc->seq = o.seq;
    Trace *tr = in->tr;
    if (!in->in_trainer) {
        tr->training = cfg->train_called;   /* from_pretrained leaves the model in eval() */
        if (!tr->training && !tr->no_grad)
            interp_note(in, 0, "no model.train() call: the model stays in eval() as from_pretrained leaves "
                               "it (dropout off)");
    }
    o.grad_ckpt = cfg->grad_checkpointing && tr->training && !tr->no_grad;
    o.eager_attention = cfg->eager_attention;
    /* the v5 Trainer turns the cache off; checkpointing in training does too;
     * so do model(..., use_cache=False) and model.config.use_cache = False */
    AVal *uc = library_kwarg(args, kw, n, "use_cache", -1);
    bool known, cache_arg = uc ? av_truth(uc, &known) : (known = false, true);
    o.use_cache = !in->in_trainer && !o.grad_ckpt && !cfg->cache_off && (!known || cache_arg);
    o.lora_r = cfg->lora_r;
    /* PEFT's default targets per model type: the fused qkv projection where
     * the family has one (GPT-2 c_attn, GPT-NeoX/Falcon query_key_value,
     * Phi-3 qkv_proj), else the query and value projections */
    o.lora_targets = cfg->lora_targets ? cfg->lora_targets
                     : a->family == FAM_GPT2 || a->family == FAM_NEOX || a->family == FAM_FALCON ||
                               a->family == FAM_PHI3 || a->family == FAM_BLOOM
                           ? LORA_C_ATTN
                           : (LORA_Q | LORA_V);
    o.lora_dropout = cfg->lora_dropout;
    o.quant_bits = cfg->quant_bits;
    o.quant_double = cfg->quant_double;
    if (cfg->quant_bits == 4)
        tr->quant_compute = cfg->quant_compute >= 0 ? (DType)cfg->quant_compute : DT_F32;
    o.head = (HfHead)m->b;
    o.fused_ce = cfg->chunked_ce;
    o.num_labels = m->c;
    TId logits = 0, loss = 0;
    const char *length_error = hf_length_error(a, &o);
    if (length_error) {
        lc->error = length_error;
        return av_unknown(in);
    }
    if (!hf_build(tr, a, &o, &logits, &loss)) {
        lc->error = arena_printf(in->a, "the %s family has no forward description for training "
                                        "estimates yet", arch_family_name(a->family));
        return av_unknown(in);
    }
    tr->layers = a->layers;
    lc->logits = logits;
    lc->hf = true;
    if (in->model_call_named && logits)
        tr_keep(tr, logits);   /* `out = model(...)` holds the logits until it is reassigned */
    AVal *out = av_obj(in, NN_OUTPUT);
    out->obj->is_module = false;
    obj_set(in, out->obj, "logits", logits ? av_tensor_of(in, logits) : av_unknown(in));
    if (o.head == HF_HEAD_BASE)   /* a *Model's output: its last hidden state */
        obj_set(in, out->obj, "last_hidden_state", logits ? av_tensor_of(in, logits) : av_unknown(in));
    obj_set(in, out->obj, "loss", loss ? av_tensor_of(in, loss) : av_none(in));
    return out;
}

static AVal *call_model(void *ctx, Interp *in, Obj *model, AVal **args, const char **kw, uint32_t n)
{
    LibraryCtx *lc = ctx;
    if (model->nn == NN_VISION)
        return call_vision(lc, in, model, args, n);
    if (model->nn == NN_HF)
        return call_hf(lc, in, model, args, kw, n);
    if (model->nn == NN_DIFFUSERS)
        return library_call_diffusers(lc, in, model, args, kw, n);
    return av_unknown(in);
}

void library_hooks(LibraryCtx *ctx, InterpHooks *out)
{
    memset(out, 0, sizeof *out);
    out->ctx = ctx;
    out->library_model = library_model;
    out->call_model = call_model;
}
