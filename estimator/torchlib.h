/* The interpreter's library, internal to estimator/torchlib*.c: what torch,
 * torch.nn, torch.nn.functional, tensor methods, torch.utils.data, Python's
 * builtins and the training frameworks do to abstract values. Tensor ops go
 * through the trace (trace.c), which knows what autograd saves. One file per
 * group, as PyTorch groups them; the entry points (lib_call, method_call,
 * attr_of_value, tensor_binop, ...) are declared in interp_int.h. */
#ifndef PFC_ESTIMATOR_TORCHLIB_H
#define PFC_ESTIMATOR_TORCHLIB_H
#include "checked.h"
#include "interp_int.h"
#include <string.h>

static inline bool eq(const char *a, const char *b) { return a && strcmp(a, b) == 0; }
static inline AVal *arg(const Args *a, int pos, const char *kw) { return args_get(a, pos, kw); }
static inline AVal *tensor_result(Interp *in, TId t) { return t ? av_tensor_of(in, t) : av_unknown(in); }

/* torchlib.c */
bool ends(const char *s, const char *suffix);
const char *leaf(const char *q);
bool int_arg(const Args *a, int pos, const char *kw, int64_t *out);
int64_t int_or(const Args *a, int pos, const char *kw, int64_t dflt);
/* " (the script's text of the argument)", or "" when the call does not show it. */
const char *arg_shown(Interp *in, int pos, const char *kw);
void refuse_unread(Interp *in, const AVal *v, int pos, const char *kw, const char *module);
int64_t size_arg(Interp *in, const Args *a, int pos, const char *kw, int64_t dflt, const char *module);
int64_t count_arg(Interp *in, const Args *a, int pos, const char *kw, int64_t dflt, const char *module);
double num_or(const Args *a, int pos, const char *kw, double dflt);
bool bool_or(const Args *a, int pos, const char *kw, bool dflt);
/* A dropout probability: absent, PyTorch's default dflt; present but
 * unreadable, dflt with a note at the call saying so (what names the module). */
double dropout_p(Interp *in, const Args *a, int pos, const char *kw, double dflt, const char *what);
bool device_is_gpu(const AVal *v);
AVal *copy_shaped(Interp *in, AVal *x, int nd, const int64_t *dim);
AVal *assumed_op(Interp *in, AVal *x, const char *what);
int shape_args(const Args *a, int from, int64_t *dim);
AVal *shape_value(Interp *in, const AVal *x);
uint64_t numel_of(const AVal *x);
AVal *reshape(Interp *in, AVal *x, int nd, int64_t *dim, bool copy_ok);
AVal *same_shape(Interp *in, AVal *x, TId t, bool transposed);
int norm_dim(const AVal *x, int64_t d);
void layout(const AVal *x, uint8_t *p);
void set_layout(AVal *r, const uint8_t *p, int nd);
bool matmul_needs_copy(const AVal *x);
AVal *transpose(Interp *in, AVal *x, int64_t d0, int64_t d1);
AVal *insert_dim(Interp *in, AVal *x, int at, int64_t size);
AVal *new_tensor_value(Interp *in, DType dt, int nd, int64_t *dim, bool gpu);

/* torchlib_torch.c */
AVal *torch_call(Interp *in, const char *f, Args *a);

/* torchlib_nn.c */
#define NN_MAX_LAYERS 4096   /* a recurrent or Transformer stack's layers */
AVal *nn_module(Interp *in, const char *name, Args *a);
AVal *nn_embedding_from_pretrained(Interp *in, Args *a);
uint32_t param4(Interp *in, int64_t a, int64_t b, int64_t c, int64_t d);
/* A flag that changes what a module registers (bias=, affine=): a value
 * pfc cannot read takes the default, and the report says so. */
bool flag_arg(Interp *in, const Args *a, int pos, const char *kw, bool dflt, const char *module);
/* Room in o->wall for a layer's n weights (zeroed). */
uint32_t *weight_slots(Interp *in, Obj *o, uint32_t n);
AVal *module_method(Interp *in, AVal *self, const char *name, Args *a);
AVal *module_attr(Interp *in, AVal *base, const char *name);

/* torchlib_transformer.c: nn.MultiheadAttention and the Transformer modules */
AVal *transformer_module(Interp *in, const char *name, Args *a);   /* NULL: not one */
AVal *transformer_module_call(Interp *in, Obj *m, Args *a);
AVal *square_subsequent_mask(Interp *in, Args *a);
bool transformer_batch_first(const Obj *m);   /* a Transformer layer, stack or nn.Transformer */

/* torchlib_conv.c: convolutions, pooling, InstanceNorm, resampling and
 * padding in 1 to 3 spatial dimensions (modules and F.* forms) */
AVal *window_module(Interp *in, const char *name, Args *a);       /* NULL: not one of them */
AVal *window_module_call(Interp *in, Obj *m, AVal *x);
AVal *window_functional(Interp *in, const char *name, Args *a);   /* NULL: not one of them */

/* torchlib_functional.c */
AVal *act(Interp *in, AVal *x, Act kind, bool inplace);
AVal *cross_entropy(Interp *in, AVal *logits, AVal *target);
AVal *nll_loss(Interp *in, AVal *logp, AVal *target);
AVal *functional(Interp *in, const char *name, Args *a);

/* torchlib_tensor.c */
AVal *tensor_method(Interp *in, AVal *x, const char *name, Args *a);
AVal *param_method(Interp *in, AVal *p, const char *name, Args *a);
AVal *tensor_attr(Interp *in, AVal *base, const char *name);
AVal *param_attr(Interp *in, AVal *p, const char *name);

/* torchlib_params.c */
AVal *requires_grad_call(Interp *in, AVal *self, Args *a);
AVal *param_requires_grad(Interp *in, AVal *p);
AVal *filter_items(Interp *in, AVal *f, AVal *items);

/* torchlib_builtins.c */
AVal *builtin(Interp *in, const char *name, Args *a);
AVal *math_call(Interp *in, const char *f, Args *a);
AVal *seq_method(Interp *in, AVal *recv, const char *name, Args *a);
AVal *dict_method(Interp *in, AVal *recv, const char *name, Args *a);
AVal *str_method(Interp *in, AVal *recv, const char *name, Args *a);

/* torchlib_frameworks.c: a YAML or JSON file (path relative to the
 * script's directory) as dicts and lists; a refusal when unreadable. */
AVal *config_file(Interp *in, AVal *path);

/* torchlib_cli.c */
/* argparse.ArgumentParser(parents=...), and the methods of a parser, an
 * argument group and add_subparsers()' object. */
AVal *new_argparser(Interp *in, Args *a);
AVal *argparse_method(Interp *in, Obj *parser, const char *name, Args *a);
/* The script's own command line (pfc estimate SCRIPT -- ARGS): the text
 * given for --key (- and _ alike; "" for a bare flag), or NULL. */
const char *script_arg(const Interp *in, const char *key);
/* Text as the value it spells: a bool, None, an int, a float or a string. */
AVal *literal_value(Interp *in, const char *text);
/* "line N" of the call being evaluated, for a value's origin. */
const char *current_line(Interp *in);

/* The words after `pfc estimate SCRIPT --` (or a list the script passes)
 * and where they come from. */
typedef struct Words {
    const char *const *v;
    uint32_t n;
    const char *source;
} Words;
/* LightningCLI's reading of the words: with run, the sub-command (fit,
 * validate, test, predict; fit assumed when none is given, said so) in
 * *command, and the settings it runs with as a nested dict: a `--config
 * FILE` before the command gives its section of that name, the words after
 * it (`--model.hidden 64`, `--trainer.precision bf16-mixed`, `--config
 * FILE`) the rest, later ones winning. */
AVal *lightning_settings(Interp *in, Words w, bool run, const char **command);
/* A class's settings as jsonargparse gives them: `init_args:` merged over
 * the rest (class_path dropped). */
AVal *init_args_of(Interp *in, AVal *section);
/* A new dict of a's settings with b's merged over them (either may be NULL). */
AVal *settings_merged(Interp *in, AVal *a, AVal *b);
/* d[key] of a dict, or NULL (also when d is not a dict). */
AVal *dict_value(AVal *d, const char *key);

/* torchlib_lightning.c */
/* lightning.Trainer(...), LightningCLI(...), and a Trainer's methods (fit
 * runs one training step). */
AVal *lightning_trainer(Interp *in, Args *a);
AVal *lightning_cli(Interp *in, Args *a);
AVal *lightning_trainer_method(Interp *in, Obj *t, const char *name, Args *a);

/* torchlib_data.c */
AVal *data_loader(Interp *in, Args *a);
AVal *data_call(Interp *in, const char *q, Args *a);

/* torchlib_frameworks.c */
AVal *library_model(Interp *in, const char *q, Args *a);
AVal *runtime_call(Interp *in, const char *q, Args *a);
AVal *wrapper_call(Interp *in, const char *q, Args *a);
AVal *config_call(Interp *in, const char *q, Args *a);
AVal *trainer_step(Interp *in, Obj *trainer);
AVal *hf_parser_method(Interp *in, Obj *parser, const char *name, Args *a);
/* diffusers' noise schedulers: DDPMScheduler(...), .from_pretrained(...) */
bool is_diffusers_scheduler(const char *q);
AVal *scheduler_method(Interp *in, Obj *s, const char *name, Args *a);
AVal *accelerator_method(Interp *in, Obj *acc, const char *name, Args *a);
AVal *fabric_method(Interp *in, Obj *fab, const char *name, Args *a);   /* Lightning's Fabric */

#endif
