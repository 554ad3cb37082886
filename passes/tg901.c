/* TG901 projected-oom: registered here (code, name, severity, explain text)
 * so that selection, noqa, SARIF and `pfc explain` treat it like every rule,
 * but computed by the CLI in cli/target.c. It needs the memory estimator,
 * and passes/ must not call it: the estimator interprets the whole script
 * and re-runs itself per candidate change, which every lint run would pay for
 * while only a run with a target GPU (a CLI setting) can use it. */
#include "pass.h"

void rule_tg901(RuleCtx *c) { (void)c; }
