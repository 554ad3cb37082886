/* pfc dump-ir: a stable text form of the SSA and its facts, for golden tests. */
#include "../base/buf.h"
#include "internal.h"
#include <string.h>

const char *ir_op_name(IrOp op)
{
    static const char *const names[] = {
#define X(id) #id,
        IR_OPS(X)
#undef X
    };
    return op < IR__COUNT ? names[op] : "?";
}

static void put_name(Buf *b, const Syntax *S, uint32_t id)
{
    uint32_t len;
    const char *s = intern_str(&S->names, id, &len);
    buf_put(b, s, len);
}

static const char *attach_name(Attach a)
{
    static const char *const n[] = {"bottom", "detached", "attached", "maybe"};
    return n[a];
}

static void put_roles(Buf *b, uint32_t roles)
{
    static const char *const n[] = {"model", "optimizer", "loss", "loader", "batch", "device",
                                    "scalar", "softmax", "sigmoid", "log_softmax", "loss_fn",
                                    "scheduler", "pynum", "cuda", "param", "mode_dep"};
    bool first = true;
    for (int i = 0; i < 16; i++)
        if (roles & (1u << i)) {
            buf_printf(b, "%s%s", first ? " roles=" : ",", n[i]);
            first = false;
        }
}

static void dump_value(const Ir *ir, const IrFunction *f, ValueId id, Buf *b)
{
    const Syntax *S = ir->syn;
    const IrValue *v = &f->values.v[id];
    uint32_t line = 0, col = 0;
    if (v->node && v->node != UINT32_MAX)
        syntax_line_col((Syntax *)S, node_start(S, &S->nodes[v->node]), &line, &col);
    buf_printf(b, "    %%%u = %s", id, ir_op_name((IrOp)v->op));
    if (v->name) {
        buf_putc(b, ' ');
        put_name(b, S, v->name);
    }
    if (v->op == IR_UNPACK)
        buf_printf(b, " #%u", v->index);
    if (v->op == IR_FUNC)
        buf_printf(b, " fn%u", v->index);
    for (uint32_t i = 0; i < v->nargs; i++) {
        buf_puts(b, i ? ", " : " (");
        if (ir_kwname(v, i)) {
            put_name(b, S, ir_kwname(v, i));
            buf_putc(b, '=');
        }
        buf_printf(b, "%%%u", v->args[i]);
        if (i + 1 == v->nargs)
            buf_putc(b, ')');
    }
    if (v->qual) {
        buf_puts(b, " qual=");
        put_name(b, S, v->qual);
    }
    buf_printf(b, "  [%s", attach_name((Attach)v->attach));
    put_roles(b, v->roles);
    if (v->cls)
        buf_printf(b, " class=%u", v->cls - 1);
    if (v->origin)   /* the allocation site: the object this value is (facts.c) */
        buf_printf(b, " object=fn%u%%%u", ir_site_function(v->origin), ir_site_value(v->origin));
    if (v->grad == GRAD_DISABLED)
        buf_puts(b, " no_grad");
    buf_puts(b, "]");
    if (line)
        buf_printf(b, " @%u:%u", line, col);
    buf_putc(b, '\n');
}

static void dump_function(const Ir *ir, int fi, IrDumpNote *note, const void *ctx, Buf *b)
{
    static const char *const kinds[] = {"module", "function", "lambda", "comprehension", "class"};
    const IrFunction *f = &ir->funcs.v[fi];
    buf_printf(b, "fn%d ", fi);
    if (f->name)
        put_name(b, ir->syn, f->name);
    else
        buf_puts(b, fi == 0 ? "<module>" : "<lambda>");
    buf_printf(b, " (%s", kinds[f->kind]);
    if (f->class_index >= 0)
        buf_printf(b, ", method of class %d", f->class_index);
    if (f->entry_grad == GRAD_DISABLED)
        buf_puts(b, ", no_grad");
    buf_puts(b, ")");
    if (note)
        note(ctx, fi, b);
    buf_putc(b, '\n');
    for (uint32_t bi = 0; bi < f->blocks.n; bi++) {
        const IrBlock *blk = &f->blocks.v[bi];
        if (bi && !blk->preds.n && !blk->values.n)
            continue;   /* an empty unreachable block */
        buf_printf(b, "  b%u", bi);
        for (uint32_t i = 0; i < blk->preds.n; i++)
            buf_printf(b, "%sb%u", i ? "," : " <- ", blk->preds.v[i]);
        if (blk->loop_header)
            buf_printf(b, "  (loop b%u)", blk->loop_header);
        buf_putc(b, '\n');
        for (uint32_t i = 0; i < blk->values.n; i++) {
            ValueId v = blk->values.v[i];
            if (f->values.v[v].op == IR_PHI && f->values.v[v].index)
                continue;   /* trivial phi, forwarded */
            dump_value(ir, f, v, b);
        }
    }
}

void ir_dump(const Ir *ir, const char *only, Buf *out)
{
    ir_dump_noted(ir, only, NULL, NULL, out);
}

void ir_dump_noted(const Ir *ir, const char *only, IrDumpNote *note, const void *ctx, Buf *out)
{
    for (uint32_t c = 0; c < ir->classes.n; c++) {
        const IrClass *k = &ir->classes.v[c];
        buf_printf(out, "class %u ", c);
        put_name(out, ir->syn, k->name);
        buf_puts(out, k->is_module ? " (nn.Module)" : "");
        for (uint32_t i = 0; i < k->bases.n; i++) {
            buf_puts(out, i ? ", " : " bases: ");
            put_name(out, ir->syn, k->bases.v[i]);
        }
        buf_putc(out, '\n');
    }
    for (uint32_t i = 0; i < ir->funcs.n; i++) {
        const IrFunction *f = &ir->funcs.v[i];
        if (only) {
            uint32_t len;
            const char *s = intern_str(&ir->syn->names, f->name, &len);
            if (!f->name || strlen(only) != len || memcmp(only, s, len) != 0)
                continue;
        }
        dump_function(ir, (int)i, note, ctx, out);
    }
}
