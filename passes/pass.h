/* passes: the rule registry and the API a rule is written against. A rule is
 * one file passes/<id>.c defining `void rule_<id>(RuleCtx *)` plus one line in
 * rules.def. Rules read the IR and its facts, report through rule_report, and
 * never print. */
#ifndef PFC_PASS_H
#define PFC_PASS_H
#include "../base/finding.h"
#include "../ir/ir.h"
#include <stdbool.h>

typedef struct RuleCtx RuleCtx;

typedef struct RuleInfo {
    const char *code, *name;
    Severity severity;          /* the rule's usual severity; a finding may differ */
    bool default_on;
    const char *summary;
    const char *explain;        /* docs: what, why silent, cost, fix, example */
    void (*check)(RuleCtx *);
} RuleInfo;

struct RuleCtx {
    Syntax *S;
    const Ir *ir;
    Arena *A;
    const RuleInfo *rule;
    FindingVec *out;
    struct Analysis *an;        /* shared facts computed once per file (analysis.c) */
};

const RuleInfo *rules_all(size_t *n);
const RuleInfo *rule_by_code(const char *code);

/* Whether a rule could fire on a file by what it names: every premise starts
 * from a model, a loss, an optimizer, a loader or a library object, and a file
 * that imports no training library (the caller asks the project that) can
 * only make one by use, through the names listed in registry.c. False means
 * no rule can fire, so the file need not be lowered. */
bool passes_names_training(const Syntax *S);

/* Runs every rule over a parsed file (without syntax errors). */
void passes_run(Syntax *S, const Ir *ir, FindingVec *out);

/* Reports a finding of the running rule over a CST node's span; returns it
 * (to attach a fix), or NULL when the same span was already reported. */
Finding *rule_report(RuleCtx *c, uint32_t node, Severity sev, const char *msg, const char *help);

/* Per function of the IR (in Ir.funcs order): its code context (CodeContext,
 * passes/analysis.h) and whether a fix may edit it (fix_allowed_in). For
 * `pfc debug-context`, which the fix-safety tests read. Arena-allocated. */
typedef struct FixContext { uint8_t context; bool fixable; } FixContext;
FixContext *passes_fix_contexts(Syntax *S, const Ir *ir);

#define RULE(id, code, name, sev, on, summary) void rule_##id(RuleCtx *c);
#include "rules.def"
#undef RULE

#endif
