/* The rule table and the pass manager. */
#include "analysis.h"
#include "explain.h"
#include <string.h>

static const RuleInfo rules[] = {
#define RULE(id, code, name, sev, on, summary) \
    {code, name, sev, on, summary, EXPLAIN_##id, rule_##id},
#include "rules.def"
#undef RULE
};

const RuleInfo *rules_all(size_t *n)
{
    *n = sizeof rules / sizeof rules[0];
    return rules;
}

const RuleInfo *rule_by_code(const char *code)
{
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (strcmp(rules[i].code, code) == 0)
            return &rules[i];
    return NULL;
}

Finding *rule_report(RuleCtx *c, uint32_t node, Severity sev, const char *msg, const char *help)
{
    const Node *n = &c->S->nodes[node];
    Finding f = {c->rule->code, c->rule->name, sev, node_start(c->S, n), node_end(c->S, n),
                 msg, help, NULL};
    /* the same span reached through two call sites is one finding */
    for (uint32_t i = 0; i < c->out->n; i++)
        if (c->out->v[i].code == f.code && c->out->v[i].start == f.start &&
            c->out->v[i].end == f.end)
            return NULL;
    VEC_PUSH(c->A, *c->out, f);
    return &c->out->v[c->out->n - 1];
}

/* The identifiers through which code that imports no training library can
 * still reach a premise: what makes a value a module by use or by base
 * (docs/ir.md, "Modules recognised by base and by use"), a loss (backward),
 * an optimizer (step, zero_grad), a loader, a grad mode, and the names the
 * rules themselves start from (TG005's softmax, TG305's dropout, TG304's bare
 * methods, the PEFT, distributed and Trainer entry points). Only identifiers
 * count (the lexer interns NAME tokens), so a word in a comment or a string
 * does not. tests/gate.sh checks the list against the rule fixtures with their
 * imports removed. */
static const char *const training_names[] = {
    /* modules by base and by use */
    "forward", "eval", "train", "parameters", "named_parameters", "modules", "named_modules",
    "children", "named_children", "buffers", "named_buffers", "register_forward_hook",
    "register_forward_pre_hook", "state_dict", "load_state_dict", "requires_grad",
    "requires_grad_", "cuda",
    /* losses, optimizers, grad modes */
    "backward", "step", "zero_grad", "no_grad", "inference_mode", "set_grad_enabled",
    "enable_grad", "detach",
    /* loaders and samplers */
    "DataLoader", "num_workers", "set_epoch", "DistributedSampler",
    /* what the rules start from */
    "softmax", "log_softmax", "Softmax", "LogSoftmax", "dropout", "get_peft_model",
    "LoraConfig", "init_process_group", "DistributedDataParallel", "convert_sync_batchnorm",
    "Trainer", "fit", "torch"};

bool passes_names_training(const Syntax *S)
{
    for (size_t i = 0; i < sizeof training_names / sizeof training_names[0]; i++)
        if (intern_lookup(&S->names, training_names[i], (uint32_t)strlen(training_names[i])))
            return true;
    return false;
}

void passes_run(Syntax *S, const Ir *ir, FindingVec *out)
{
    Analysis an;
    analysis_init(&an, S, ir);
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        RuleCtx c = {S, ir, S->arena, &rules[i], out, &an};
        rules[i].check(&c);
    }
}
