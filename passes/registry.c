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
 * does not. tests/gate.sh checks the lists against the rule fixtures with
 * their imports removed. */
static const char *const training_names[] = {
    "forward", "requires_grad", "no_grad", "inference_mode", "set_grad_enabled", "enable_grad",
    "DataLoader", "num_workers", "DistributedSampler", "softmax", "log_softmax", "Softmax",
    "LogSoftmax", "dropout", "get_peft_model", "LoraConfig", "init_process_group",
    "DistributedDataParallel", "convert_sync_batchnorm", "Trainer", "torch"};

/* Methods: they count as an attribute (`x.eval`), since the builtin `eval(s)`
 * or `sys.modules` (no call: an attribute, but named `modules` by the
 * standard library everywhere) would let most files in. A premise starts
 * from the method: `.eval()`, `.parameters()` make a module by use,
 * `.backward()` a loss, `.step()`/`.zero_grad()` an optimizer; TG304 reads
 * the attribute uncalled. */
static const char *const training_methods[] = {
    "eval", "train", "parameters", "named_parameters", "modules", "named_modules", "children",
    "named_children", "buffers", "named_buffers", "register_forward_hook",
    "register_forward_pre_hook", "state_dict", "load_state_dict", "requires_grad_", "cuda",
    "backward", "step", "zero_grad", "detach", "set_epoch", "fit"};

enum { MAX_METHODS = sizeof training_methods / sizeof training_methods[0] };

static uint32_t name_id(const Syntax *S, const char *s)
{
    return intern_lookup(&S->names, s, (uint32_t)strlen(s));
}

bool passes_names_training(const Syntax *S)
{
    for (size_t i = 0; i < sizeof training_names / sizeof training_names[0]; i++)
        if (name_id(S, training_names[i]))
            return true;
    uint32_t ids[MAX_METHODS], n = 0;
    for (size_t i = 0; i < MAX_METHODS; i++)
        if ((ids[n] = name_id(S, training_methods[i])))
            n++;
    for (uint32_t t = 1; n && t < S->toks.n; t++)   /* a method name written after a dot */
        if (S->toks.v[t].kind == T_NAME && S->toks.v[t - 1].kind == T_DOT)
            for (uint32_t k = 0; k < n; k++)
                if (S->toks.v[t].name == ids[k])
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
