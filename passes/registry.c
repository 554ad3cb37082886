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

void passes_run(Syntax *S, const Ir *ir, FindingVec *out)
{
    Analysis an;
    analysis_init(&an, S, ir);
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        RuleCtx c = {S, ir, S->arena, &rules[i], out, &an};
        rules[i].check(&c);
    }
}
