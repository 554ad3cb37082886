/* TG306 unused-submodule: a submodule or nn.Parameter registered in a
 * model's __init__ that its forward never reaches (directly or through the
 * methods it calls), and nothing else in the class or the file uses. Its
 * parameters never get a gradient, the optimizer carries dead state, and DDP
 * without find_unused_parameters=True raises at the first step. */
#include "analysis.h"

static void report(RuleCtx *c, const ModClass *mc, const ModAttr *a)
{
    uint32_t nl, cl;
    const char *name = intern_str(&c->S->names, a->name, &nl);
    const char *cls = intern_str(&c->S->names, c->ir->classes.v[mc->cls].name, &cl);
    const char *what = a->kind == MA_PARAMETER ? "parameter" : "submodule";
    rule_report(c, a->node, SEV_WARNING,
                arena_printf(c->A,
                             "%s `self.%.*s` is registered in %.*s.__init__ but forward never "
                             "uses it: its parameters never get a gradient, the optimizer "
                             "carries them for nothing, and DistributedDataParallel without "
                             "find_unused_parameters=True fails at the first step",
                             what, (int)nl, name, (int)cl, cls),
                arena_printf(c->A, "use `self.%.*s` in forward, or remove it from __init__",
                             (int)nl, name));
}

void rule_tg306(RuleCtx *c)
{
    const ModuleFacts *mf = &c->an->modules;
    for (uint32_t k = 0; k < mf->n; k++) {
        const ModClass *mc = &mf->v[k];
        if (mc->forward < 0 || mc->escapes || !mc->local)
            continue;
        for (uint32_t i = 0; i < mc->nattrs; i++) {
            const ModAttr *a = &mc->attrs[i];
            if (a->kind == MA_BUFFER ||
                (a->flags & (MA_IN_FORWARD | MA_ELSEWHERE | MA_NO_PARAMS)))
                continue;
            report(c, mc, a);
        }
    }
}
