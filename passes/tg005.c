/* TG005 double-softmax: a loss that normalises its input itself receives
 * probabilities. CrossEntropyLoss applies log_softmax; fed softmax outputs its
 * gradients shrink and training stalls. */
#include "analysis.h"
#include "fixes.h"
#include <string.h>

typedef enum LossKind { LOSS_OTHER, LOSS_CE, LOSS_NLL, LOSS_BCE_LOGITS } LossKind;

static LossKind loss_kind(const Analysis *an, uint32_t qual)
{
    if (an_qual_is(an, qual, "torch.nn.functional.cross_entropy") ||
        an_qual_is(an, qual, "torch.nn.CrossEntropyLoss"))
        return LOSS_CE;
    if (an_qual_is(an, qual, "torch.nn.functional.nll_loss") ||
        an_qual_is(an, qual, "torch.nn.NLLLoss"))
        return LOSS_NLL;
    if (an_qual_is(an, qual, "torch.nn.functional.binary_cross_entropy_with_logits") ||
        an_qual_is(an, qual, "torch.nn.BCEWithLogitsLoss"))
        return LOSS_BCE_LOGITS;
    return LOSS_OTHER;
}

/* The loss a call computes: F.cross_entropy(...) or crit(...) with crit built
 * by nn.CrossEntropyLoss() (its constructor is remembered in `qual` of the
 * loss-module value's callee). */
static LossKind call_loss_kind(const Analysis *an, const IrFunction *f, const IrValue *v)
{
    const IrValue *callee = &f->values.v[v->args[0]];
    if (callee->qual)
        return loss_kind(an, callee->qual);
    /* crit(...) where crit = nn.CrossEntropyLoss(): a local, a global, self.crit
     * or a parameter, as remembered by the constructor fact */
    return callee->roles & ROLE_LOSS_FN ? loss_kind(an, callee->ctor) : LOSS_OTHER;
}

/* Pass the logits: `F.softmax(x, dim=1)` or `x.softmax(1)` as the loss's
 * argument becomes `x`. A softmax applied elsewhere (a forward, an earlier
 * statement) is left to the author: no fix. */
static void drop_softmax_fix(RuleCtx *c, Finding *fd, const IrFunction *f, const IrValue *in,
                             uint32_t arg)
{
    if (!fd || arg == UINT32_MAX || in->op != IR_CALL || in->node != arg || !in->nargs ||
        !fix_allowed_in(c, f))
        return;
    const IrValue *callee = &f->values.v[in->args[0]];
    const Node *callee_node = node_kid(c->S, &c->S->nodes[arg], 0);
    if (callee->op != IR_ATTR || !callee_node || callee_node->kind != N_ATTRIBUTE)
        return;
    uint32_t logits;
    if (callee->qual) {   /* F.softmax(x, ...) / torch.sigmoid(x) */
        logits = an_call_arg_node(c->S, arg, 0);
        NodeKind k = (NodeKind)c->S->nodes[logits].kind;
        if (logits == arg || k == N_KEYWORD || k == N_STARRED || k == N_DOUBLE_STARRED ||
            k == N_GENERATOR)
            return;   /* softmax(*args) is not one tensor to pass on */
    } else {              /* x.softmax(-1) */
        logits = node_kid_id(c->S, callee_node, 0);
    }
    Fix *fx = fix_new(c, FIX_UNSAFE, "pass the logits: drop the softmax");
    fix_edit(c, fx, fd->start, fd->end, fix_text(c, logits));
    fd->fix = fx;
}

void rule_tg005(RuleCtx *c)
{
    const Analysis *an = c->an;
    for (uint32_t fi = 0; fi < c->ir->funcs.n; fi++) {
        const IrFunction *f = &c->ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = &f->values.v[i];
            if (v->op != IR_CALL || v->nargs < 2 || !(v->roles & ROLE_LOSS))
                continue;
            LossKind k = call_loss_kind(an, f, v);
            const IrValue *in = &f->values.v[v->args[1]];
            uint32_t at = an_call_arg_node(c->S, v->node, 0);
            Finding *fd = NULL;
            if (k == LOSS_CE && (in->roles & ROLE_SOFTMAX))
                fd = rule_report(c, at, SEV_ERROR,
                            "cross_entropy receives softmax probabilities: it applies "
                            "log_softmax itself, so the model is normalised twice, gradients "
                            "shrink and training stalls",
                            "pass the logits: drop the softmax before the loss (keep it for "
                            "inference only)");
            else if (k == LOSS_NLL && (in->roles & ROLE_SOFTMAX))
                fd = rule_report(c, at, SEV_ERROR,
                            "nll_loss expects log-probabilities but receives softmax "
                            "probabilities: the loss is wrong and training stalls",
                            "use log_softmax instead of softmax, or pass logits to "
                            "cross_entropy");
            else if (k == LOSS_BCE_LOGITS && (in->roles & ROLE_SIGMOID))
                fd = rule_report(c, at, SEV_ERROR,
                            "BCEWithLogitsLoss receives sigmoid outputs: it applies sigmoid "
                            "itself, so the output is squashed twice and gradients vanish",
                            "pass the logits: drop the sigmoid before the loss");
            if (k == LOSS_CE || k == LOSS_BCE_LOGITS)   /* nll_loss wants log_softmax instead */
                drop_softmax_fix(c, fd, f, in, at);
        }
    }
}
