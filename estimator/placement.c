/* Whether a script puts its model or its tensors on a GPU at all. The
 * interpreter takes every tensor a layer receives onto the GPU (a CPU
 * batch is data the script moves there), which is right for a GPU script
 * and wrong for one that never moves anything: that one trains on the CPU,
 * and its GPU peak is nothing. So before an estimate stands, the IR of the
 * script and of the project modules it imported is scanned for a placement:
 * a CUDA device ("cuda", .cuda(), torch.device("cuda" if ... else "cpu")),
 * a .to(X) or device=X whose X may be a GPU (a value pfc cannot read counts:
 * `device` from a configuration), or a framework that places the model
 * itself (Trainer, Accelerate, Lightning, DeepSpeed, DataParallel). */
#include "estimate.h"
#include <string.h>

/* A library callable (or base class) that puts the model on the GPU itself. */
static bool placing_library(Syntax *s, uint32_t qual)
{
    static const char *const prefixes[] = {
        "accelerate.", "lightning.", "pytorch_lightning.", "lightning_fabric.", "deepspeed.",
        "torch.set_default_device", "torch.set_default_tensor_type", "torch.cuda.set_device",
        "torch.nn.DataParallel", "torch.nn.parallel.", "torch.distributed.fsdp.",
    };
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (intern_has_prefix(&s->names, qual, prefixes[i]))
            return true;
    /* Hugging Face's Trainer and its kin (Seq2SeqTrainer, trl's SFTTrainer) */
    return (intern_has_prefix(&s->names, qual, "transformers.") || intern_has_prefix(&s->names, qual, "trl.")) &&
           intern_contains(&s->names, qual, "Trainer");
}

static bool is_number(Syntax *s, const IrValue *x)
{
    return x->node && s->toks.v[s->nodes[x->node].first_tok].kind == T_NUMBER;
}

/* torch.float16, x.dtype, a name with dtype in it: .to() given a dtype. */
static bool names_a_dtype(const Interner *n, const IrValue *x)
{
    static const char *const dtypes[] = {"torch.float", "torch.bfloat", "torch.int", "torch.half", "torch.bool"};
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (intern_has_prefix(n, x->qual, dtypes[i]))
            return true;
    return intern_contains(n, x->name, "dtype");
}

/* Whether value v, given as a device, may be a GPU: a CUDA string or
 * device, a device index, or a value pfc cannot read (args.device, a
 * parameter, another tensor's .device); not "cpu", None, torch.device("cpu")
 * or a dtype (torch.float16, x.dtype, a name with dtype in it). */
static bool may_be_gpu(Syntax *s, const IrFunction *f, ValueId v, int depth)
{
    const IrValue *x = &f->values.v[ir_resolve(f, v)];
    if (x->roles & ROLE_CUDA)
        return true;
    if (x->op == IR_CONST)
        return is_number(s, x);   /* .to(0), device=1 */
    if (names_a_dtype(&s->names, x))
        return false;
    if ((x->op == IR_PHI || x->op == IR_BOOLOP) && depth < 4) {   /* "mps" if ... else "cpu": either */
        for (uint32_t i = 0; i < x->nargs; i++)
            if (may_be_gpu(s, f, x->args[i], depth + 1))
                return true;
        return false;
    }
    if (x->op == IR_CALL && x->nargs > 1 && intern_is(&s->names, f->values.v[x->args[0]].qual, "torch.device"))
        return depth < 4 && may_be_gpu(s, f, x->args[1], depth + 1);   /* torch.device(args.device) */
    return !(x->roles & ROLE_DEVICE);   /* a device without CUDA in it is the CPU */
}

/* A call that places something: .cuda(), .to(GPU), device=GPU, device_map=,
 * or a placing framework. */
static bool placing_call(Syntax *s, const IrFunction *f, const IrValue *v)
{
    const IrValue *callee = &f->values.v[v->args[0]];
    if (placing_library(s, callee->qual))
        return true;
    bool to = callee->op == IR_ATTR && intern_is(&s->names, callee->name, "to");
    if (callee->op == IR_ATTR && intern_is(&s->names, callee->name, "cuda"))
        return true;
    for (uint32_t i = 1; i < v->nargs; i++) {
        uint32_t kw = ir_kwname(v, i);
        bool device = kw ? intern_is(&s->names, kw, "device") || intern_is(&s->names, kw, "device_ids") ||
                               intern_is(&s->names, kw, "output_device")
                         : to;
        if (kw && intern_is(&s->names, kw, "device_map"))
            return true;
        if (device && may_be_gpu(s, f, v->args[i], 0))
            return true;
    }
    return false;
}

bool estimate_places_on_gpu(Syntax *s, const Ir *ir)
{
    for (uint32_t c = 0; c < ir->classes.n; c++)   /* class MyTrainer(Trainer), a LightningModule */
        for (uint32_t b = 0; b < ir->classes.v[c].bases.n; b++)
            if (placing_library(s, ir->classes.v[c].bases.v[b]))
                return true;
    for (uint32_t fi = 0; fi < ir->funcs.n; fi++) {
        const IrFunction *f = &ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = &f->values.v[i];
            if ((v->roles & ROLE_CUDA) || (v->op == IR_CALL && v->nargs && placing_call(s, f, v)))
                return true;
        }
    }
    return false;
}
