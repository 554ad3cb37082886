/* ir/modules: per in-file nn.Module class, the attributes __init__ registers
 * (submodules, nn.Parameter, buffers) and which of them forward reaches,
 * directly or through the methods and nested functions it calls. A question
 * pfc cannot answer from the source (a computed getattr, self.children(),
 * hooks, self handed to unknown code) marks the class `escapes`: the rules
 * stay silent on it. */
#include "modules.h"
#include <string.h>

typedef struct Scan {
    const Ir *ir;
    const Syntax *S;
    Arena *A;
    int *owner;        /* per function: the class of the method it is (or is nested in), -1 */
    uint8_t *role;     /* per function, for the class being scanned: ROLE_* below */
    ModClass *mc;
    uint32_t cap;
    uint32_t trained_cap;   /* of mc->trained */
} Scan;

enum { FN_INIT = 1, FN_FORWARD = 2, FN_OTHER = 4,
       FN_FORWARD_GRAD = 8 /* ...reached from forward on a path with grad enabled */ };

static const IrValue *val(const IrFunction *f, ValueId v) { return &f->values.v[v]; }

static bool name_is(const Scan *s, uint32_t id, const char *str)
{
    return id && intern_is(&s->S->names, id, str);
}

static int method_named(const Scan *s, int cls, const char *name)
{
    uint32_t id = intern_lookup(&s->S->names, name, (uint32_t)strlen(name));
    return id ? ir_class_method(s->ir, (uint32_t)cls, id) : -1;
}

static bool is_method_name(const Scan *s, int cls, uint32_t name)
{
    return ir_class_method(s->ir, (uint32_t)cls, name) >= 0;
}

/* Is x `self` in function fi: the first parameter of a method of the class,
 * or the free name `self` in a function nested in one. */
static bool is_self(const Scan *s, int fi, ValueId x)
{
    const IrFunction *f = &s->ir->funcs.v[fi];
    const IrValue *v = val(f, ir_resolve(f, x));
    if (v->op == IR_PARAM)
        return f->class_index >= 0 && v->index == 0 && name_is(s, v->name, "self");
    return v->op == IR_GLOBAL && name_is(s, v->name, "self") && f->class_index < 0;
}

/* The text of a string constant between its quotes, or NULL. */
static const char *string_body(const Scan *s, const IrFunction *f, ValueId v, uint32_t *len)
{
    const IrValue *x = val(f, v);
    if (x->op != IR_CONST || !x->node)
        return NULL;
    const Node *n = &s->S->nodes[x->node];
    if (n->kind != N_STRING)   /* an f-string or a concatenation: computed */
        return NULL;
    uint32_t a = node_start(s->S, n), b = node_end(s->S, n);
    while (a < b && s->S->src[a] != '"' && s->S->src[a] != '\'')
        a++;
    uint32_t q = 1;
    if (b - a >= 6 && s->S->src[a + 1] == s->S->src[a] && s->S->src[a + 2] == s->S->src[a])
        q = 3;
    if (b - a < 2 * q)
        return NULL;
    *len = b - a - 2 * q;
    return s->S->src + a + q;
}

static bool ident_char(char c)
{
    return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Does a string name the attribute: "head", "head.weight", "blocks.0"? */
static bool string_names(const char *b, uint32_t len, const char *name, uint32_t nlen)
{
    for (uint32_t i = 0; i + nlen <= len; i++)
        if (memcmp(b + i, name, nlen) == 0 && (i == 0 || !ident_char(b[i - 1])) &&
            (i + nlen == len || !ident_char(b[i + nlen])))
            return true;
    return false;
}

/* ---- registrations -------------------------------------------------------------------- */

static ModAttr *attr_of(Scan *s, uint32_t name)
{
    for (uint32_t i = 0; i < s->mc->nattrs; i++)
        if (s->mc->attrs[i].name == name)
            return &s->mc->attrs[i];
    return NULL;
}

static void add_attr(Scan *s, uint32_t name, uint32_t node, ModAttrKind kind, uint8_t flags,
                     int of_class)
{
    if (attr_of(s, name))
        return;
    if (s->mc->nattrs == s->cap) {
        uint32_t cap = s->cap ? 2 * s->cap : 8;
        ModAttr *n = arena_alloc(s->A, cap * sizeof *n);
        if (s->mc->nattrs)
            memcpy(n, s->mc->attrs, s->mc->nattrs * sizeof *n);
        s->mc->attrs = n, s->cap = cap;
    }
    s->mc->attrs[s->mc->nattrs++] = (ModAttr){name, node, (uint8_t)kind, flags, of_class, 0};
}

/* torch.nn layers that hold no parameters: dead ones cost nothing. */
static bool parameterless(const Scan *s, uint32_t qual)
{
    static const char *const names[] = {
        "ReLU", "ReLU6", "GELU", "SiLU", "Tanh", "Sigmoid", "LeakyReLU", "ELU", "Mish",
        "Hardswish", "Hardsigmoid", "Softplus", "Softmax", "LogSoftmax", "Identity",
        "Flatten", "Unflatten", "Upsample", "MaxPool1d", "MaxPool2d", "MaxPool3d",
        "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
        "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "Dropout",
        "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "PixelShuffle", "GLU",
    };
    uint32_t len;
    const char *q = intern_str(&s->S->names, qual, &len);
    if (len < 9 || memcmp(q, "torch.nn.", 9) != 0)
        return false;
    uint32_t dot = len;
    while (dot > 0 && q[dot - 1] != '.')
        dot--;
    const char *last = q + dot;
    uint32_t ll = len - dot;
    if (ll >= 4 && memcmp(last + ll - 4, "Loss", 4) == 0)
        return true;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strlen(names[i]) == ll && memcmp(names[i], last, ll) == 0)
            return true;
    return false;
}

static bool is_container(const Scan *s, uint32_t qual)
{
    return name_is(s, qual, "torch.nn.ModuleList") || name_is(s, qual, "torch.nn.ModuleDict") ||
           name_is(s, qual, "torch.nn.Sequential") || name_is(s, qual, "torch.nn.ParameterList") ||
           name_is(s, qual, "torch.nn.ParameterDict");
}

static bool frozen_flag(const Scan *s, const IrFunction *f, ValueId v)
{
    const IrValue *x = val(f, v);
    if (x->op != IR_CONST || !x->node)
        return false;
    const Node *n = &s->S->nodes[x->node];
    uint32_t b = node_start(s->S, n);
    return node_end(s->S, n) - b == 5 && memcmp(s->S->src + b, "False", 5) == 0;
}

/* nn.Parameter(t, requires_grad=False) (or False as second positional). */
static bool frozen_parameter(const Scan *s, const IrFunction *f, const IrValue *call)
{
    for (uint32_t a = 2; a < call->nargs; a++) {
        bool kw = ir_kwname(call, a);
        if (kw && !name_is(s, ir_kwname(call, a), "requires_grad"))
            continue;
        return frozen_flag(s, f, call->args[a]);
    }
    return false;
}

/* What `self.x = value` registers: an nn.Parameter, a module built here (a
 * torch.nn layer, an in-file module class, a library model), or nothing pfc
 * can vouch for (a value passed in, a tensor, a number). */
static bool registered_kind(const Scan *s, const IrFunction *f, ValueId v, ModAttrKind *kind,
                            uint8_t *flags, int *of_class)
{
    const IrValue *x = val(f, ir_resolve(f, v));
    *of_class = -1;
    if (x->op != IR_CALL || !x->nargs)
        return false;
    uint32_t q = val(f, x->args[0])->qual;
    *flags = 0;
    if (name_is(s, q, "torch.nn.Parameter") || name_is(s, q, "torch.nn.parameter.Parameter")) {
        *kind = MA_PARAMETER;
        if (frozen_parameter(s, f, x))
            *flags = MA_NO_PARAMS;   /* requires_grad=False: DDP and the optimizer skip it */
        return true;
    }
    bool in_file = x->cls && s->ir->classes.v[x->cls - 1].is_module;
    if (!in_file && !((x->roles & ROLE_MODEL) && !(x->roles & ROLE_LOSS_FN) && q))
        return false;
    *kind = MA_SUBMODULE;
    if (in_file)
        *of_class = (int)x->cls - 1;
    else if (parameterless(s, q) || (x->nargs == 1 && is_container(s, q)))
        *flags = MA_NO_PARAMS;   /* an empty ModuleList may be filled later: init_uses */
    return true;
}

/* `self.register_buffer("n", t)`, `self.register_parameter("n", p)`,
 * `self.add_module("n", m)` / `register_module`: the named registrations. */
static void named_registration(Scan *s, int fi, const IrValue *v)
{
    const IrFunction *f = &s->ir->funcs.v[fi];
    const IrValue *c = val(f, v->args[0]);
    if (c->op != IR_ATTR || !c->nargs || !is_self(s, fi, c->args[0]) || v->nargs < 3)
        return;
    ModAttrKind kind;
    if (name_is(s, c->name, "register_buffer"))
        kind = MA_BUFFER;
    else if (name_is(s, c->name, "register_parameter"))
        kind = MA_PARAMETER;
    else if (name_is(s, c->name, "add_module") || name_is(s, c->name, "register_module"))
        kind = MA_SUBMODULE;
    else
        return;
    uint32_t len;
    const char *b = string_body(s, f, v->args[1], &len);
    if (!b) {   /* a computed name: nothing pfc sees can name it */
        s->mc->escapes = true;
        return;
    }
    uint32_t name = intern((Interner *)&s->S->names, b, len);
    add_attr(s, name, v->node, kind, 0, -1);
    ModAttr *a = attr_of(s, name);
    if (!a->name_node)
        a->name_node = f->values.v[v->args[1]].node;
}

/* Is the block avoidable: does some path from f's entry reach an exit (a
 * block without successors) without passing through a block in `mark`? */
static bool avoidable(Arena *A, const IrFunction *f, const uint8_t *mark)
{
    uint32_t n = f->blocks.n;
    uint8_t *seen = arena_zalloc(A, n);
    BlockId *stack = arena_alloc(A, (n + 1) * sizeof *stack);
    uint32_t sp = 0;
    if (mark[0])
        return false;
    stack[sp++] = 0, seen[0] = 1;
    while (sp) {
        const IrBlock *b = &f->blocks.v[stack[--sp]];
        if (!b->succs.n)
            return true;
        for (uint32_t i = 0; i < b->succs.n; i++) {
            BlockId t = b->succs.v[i];
            if (!seen[t] && !mark[t])
                seen[t] = 1, stack[sp++] = t;
        }
    }
    return false;
}

static void scan_registrations(Scan *s, int fi)
{
    const IrFunction *f = &s->ir->funcs.v[fi];
    for (uint32_t i = 1; i < f->values.n; i++) {
        const IrValue *v = val(f, i);
        if (v->op == IR_CALL && v->nargs)
            named_registration(s, fi, v);
        ModAttrKind kind;
        uint8_t flags;
        int of_class;
        if (v->op != IR_STORE_ATTR || v->nargs < 2 || !is_self(s, fi, v->args[0]) ||
            !registered_kind(s, f, v->args[1], &kind, &flags, &of_class))
            continue;
        uint8_t *mark = arena_zalloc(s->A, f->blocks.n);
        mark[v->block] = 1;
        if (avoidable(s->A, f, mark))
            flags |= MA_CONDITIONAL;
        add_attr(s, v->name, v->node, kind, flags, of_class);
    }
}

/* ---- uses ----------------------------------------------------------------------------- */

/* Methods whose call on self (or whose handing self out) leaves what forward
 * reaches unknown. */
static bool enumerates_self(const Scan *s, uint32_t name)
{
    static const char *const names[] = {
        "children", "named_children", "modules", "named_modules", "parameters",
        "named_parameters", "buffers", "named_buffers", "state_dict", "get_submodule",
        "get_parameter", "_modules", "_parameters", "_buffers", "__dict__",
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (name_is(s, name, names[i]))
            return true;
    return false;
}

/* What optimizers, checkpoints and logging read outside forward: no sign
 * that another method runs the submodules it lists. */
static bool lists_parameters(const Scan *s, uint32_t name)
{
    return name_is(s, name, "parameters") || name_is(s, name, "named_parameters") ||
           name_is(s, name, "buffers") || name_is(s, name, "named_buffers") ||
           name_is(s, name, "state_dict");
}

static bool is_hook(const Scan *s, uint32_t name)
{
    uint32_t len;
    const char *m = intern_str(&s->S->names, name, &len);
    return len > 13 && memcmp(m, "register_", 9) == 0 && memcmp(m + len - 4, "hook", 4) == 0;
}

/* Calls that may take self without reading its attributes behind pfc's back. */
static bool harmless_taker(const Scan *s, const IrFunction *f, const IrValue *call)
{
    uint32_t q = val(f, call->args[0])->qual;
    return name_is(s, q, "builtins.super") || name_is(s, q, "builtins.isinstance") ||
           name_is(s, q, "builtins.type") || name_is(s, q, "builtins.id") ||
           name_is(s, q, "builtins.print") || name_is(s, q, "builtins.repr");
}

static void mark_use(Scan *s, uint32_t name, uint8_t flag)
{
    ModAttr *a = attr_of(s, name);
    if (a)
        a->flags |= flag;
}

/* getattr(self, name) / hasattr / setattr / delattr: a constant name is a
 * use of that attribute, a computed one could be any. */
static void reflective_use(Scan *s, int fi, const IrValue *v, uint8_t flag)
{
    const IrFunction *f = &s->ir->funcs.v[fi];
    uint32_t len;
    const char *b = v->nargs >= 3 ? string_body(s, f, v->args[2], &len) : NULL;
    if (!b) {
        s->mc->escapes = true;
        return;
    }
    for (uint32_t i = 0; i < s->mc->nattrs; i++) {
        uint32_t nl;
        const char *n = intern_str(&s->S->names, s->mc->attrs[i].name, &nl);
        if (nl == len && memcmp(n, b, len) == 0)
            s->mc->attrs[i].flags |= flag;
    }
}

static bool is_reflection(const Scan *s, uint32_t qual)
{
    return name_is(s, qual, "builtins.getattr") || name_is(s, qual, "builtins.hasattr") ||
           name_is(s, qual, "builtins.setattr") || name_is(s, qual, "builtins.delattr") ||
           name_is(s, qual, "builtins.vars");
}

/* `self.layers.append(block)`, `self.heads["k"] = m`: an empty container
 * filled after its registration holds what is put in it. */
static void filled(Scan *s, const IrFunction *f, const IrValue *v, uint32_t name)
{
    ModAttr *a = attr_of(s, name);
    if (!a || !(a->flags & MA_NO_PARAMS))
        return;
    if (v->op == IR_STORE_SUBSCR) {
        a->flags &= ~MA_NO_PARAMS;
        return;
    }
    const IrValue *callee = val(f, v->args[0]);
    if (callee->op == IR_ATTR && !name_is(s, callee->name, "to") &&
        !name_is(s, callee->name, "apply") && !name_is(s, callee->name, "__len__"))
        a->flags &= ~MA_NO_PARAMS;   /* append, extend, insert, update, add_module, ... */
}

/* `self.encoder.requires_grad_(False)`: a frozen submodule gets no gradient
 * by design, and DDP skips it. */
static void frozen(Scan *s, const IrFunction *f, const IrValue *v, uint32_t name)
{
    ModAttr *a = attr_of(s, name);
    const IrValue *callee = val(f, v->args[0]);
    if (!a || callee->op != IR_ATTR || !name_is(s, callee->name, "requires_grad_") ||
        v->nargs != 2 || !frozen_flag(s, f, v->args[1]))
        return;
    a->flags |= MA_NO_PARAMS;
}

/* In __init__ (and the builders it calls) reading self.x is a use only when
 * the module leaves: passed to a call (other than torch.nn.init), stored, put
 * in a container, returned. `self.x.weight.data.normal_()` is not one. */
static void init_uses(Scan *s, int fi, uint32_t *tag)
{
    const IrFunction *f = &s->ir->funcs.v[fi];
    for (uint32_t i = 1; i < f->values.n; i++) {
        const IrValue *v = val(f, i);
        if (v->op == IR_ATTR && tag[i])
            continue;   /* a chain link, judged by its own users */
        for (uint32_t a = 0; a < v->nargs; a++) {
            uint32_t t = tag[v->args[a]];
            if (!t)
                continue;
            if (v->op == IR_CALL && a == 0) {   /* calling a method of it or running it */
                filled(s, f, v, t);
                frozen(s, f, v, t);
                continue;
            }
            if (v->op == IR_CALL && intern_has_prefix(&s->S->names, val(f, v->args[0])->qual, "torch.nn.init."))
                continue;
            if ((v->op == IR_STORE_ATTR || v->op == IR_STORE_SUBSCR) && a == 0) {
                filled(s, f, v, t);   /* self.x.weight = ..., self.layers["k"] = ... */
                continue;
            }
            mark_use(s, t, MA_ELSEWHERE);
        }
    }
}

/* forward's reach reads self.<name> with grad enabled: its parameters train. */
static void note_trained(Scan *s, uint32_t name)
{
    ModClass *mc = s->mc;
    for (uint32_t i = 0; i < mc->ntrained; i++)
        if (mc->trained[i] == name)
            return;
    if (mc->ntrained == s->trained_cap) {
        uint32_t cap = s->trained_cap ? 2 * s->trained_cap : 8;
        uint32_t *grown = arena_alloc(s->A, cap * sizeof *grown);
        if (mc->ntrained)
            memcpy(grown, mc->trained, mc->ntrained * sizeof *grown);
        mc->trained = grown;
        s->trained_cap = cap;
    }
    mc->trained[mc->ntrained++] = name;
}

/* Reads of self's attributes in function fi, which plays `role` for the class. */
static void scan_uses(Scan *s, int fi, uint8_t role)
{
    const IrFunction *f = &s->ir->funcs.v[fi];
    uint8_t flag = role & FN_FORWARD ? MA_IN_FORWARD : MA_ELSEWHERE;
    uint32_t *tag = arena_zalloc(s->A, f->values.n * sizeof *tag);
    for (uint32_t i = 1; i < f->values.n; i++) {
        const IrValue *v = val(f, i);
        if (v->op == IR_ATTR && v->nargs && is_self(s, fi, v->args[0])) {
            if (is_hook(s, v->name) || (enumerates_self(s, v->name) && role != FN_INIT &&
                                        (role & FN_FORWARD || !lists_parameters(s, v->name))))
                s->mc->escapes = true;
            if (is_method_name(s, s->mc->cls, v->name))
                continue;
            if (role & FN_FORWARD_GRAD && v->grad != GRAD_DISABLED)
                note_trained(s, v->name);
            tag[i] = v->name;
            if (role != FN_INIT)
                mark_use(s, v->name, flag);
            if (role & FN_INIT && role != FN_INIT)
                mark_use(s, v->name, MA_ELSEWHERE);
            continue;
        }
        if (v->op == IR_ATTR && v->nargs && tag[v->args[0]]) {
            tag[i] = tag[v->args[0]];
            if (is_hook(s, v->name))
                s->mc->escapes = true;
            continue;
        }
        bool call = v->op == IR_CALL && v->nargs;
        if (call && v->nargs >= 2 && is_self(s, fi, v->args[1]) &&
            is_reflection(s, val(f, v->args[0])->qual)) {
            reflective_use(s, fi, v, role == FN_INIT ? MA_ELSEWHERE : flag);
            continue;
        }
        if (call && harmless_taker(s, f, v))
            continue;
        for (uint32_t a = call ? 1 : 0; a < v->nargs; a++)
            if (is_self(s, fi, v->args[a]) && !(v->op == IR_STORE_ATTR && a == 0) &&
                v->op != IR_ATTR && v->op != IR_PHI && v->op != IR_RETURN)
                s->mc->escapes = true;   /* self handed to code that may read anything */
    }
    if (role == FN_INIT)
        init_uses(s, fi, tag);
}

/* The method a read `self.m` in function fi names, or -1. */
static int self_method(const Scan *s, int fi, const IrValue *v)
{
    if (v->op != IR_ATTR || !v->nargs || !is_self(s, fi, v->args[0]))
        return -1;
    const IrClass *k = &s->ir->classes.v[s->mc->cls];
    for (uint32_t m = 0; m < k->methods.n; m++)
        if (s->ir->funcs.v[k->methods.v[m]].name == v->name)
            return k->methods.v[m];
    return -1;
}

/* Roles of the class's functions: __init__ and what it calls are FN_INIT,
 * forward (__call__) and what it reaches FN_FORWARD, the rest FN_OTHER; a
 * nested function plays its parent's role. */
static void assign_roles(Scan *s)
{
    const Ir *ir = s->ir;
    int cls = s->mc->cls;
    memset(s->role, 0, ir->funcs.n);
    if (s->mc->init >= 0)
        s->role[s->mc->init] = FN_INIT;
    if (s->mc->forward >= 0)
        s->role[s->mc->forward] |= FN_FORWARD | FN_FORWARD_GRAD;
    int call = method_named(s, cls, "__call__");
    if (call >= 0)
        s->role[call] |= FN_FORWARD | FN_FORWARD_GRAD;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t fi = 0; fi < ir->funcs.n; fi++) {
            if (s->owner[fi] != cls)
                continue;
            const IrFunction *f = &ir->funcs.v[fi];
            uint8_t r = s->role[fi];
            if (f->class_index < 0 && f->parent >= 0)
                r |= s->role[f->parent];
            if (r != s->role[fi])
                s->role[fi] = r, changed = true;
            if (!r)
                continue;
            for (uint32_t i = 1; i < f->values.n; i++) {
                int m = self_method(s, (int)fi, val(f, i));
                uint8_t give = val(f, i)->grad == GRAD_DISABLED ? r & ~FN_FORWARD_GRAD : r;
                if (m >= 0 && (s->role[m] | give) != s->role[m])
                    s->role[m] |= give, changed = true;
            }
        }
    }
    for (uint32_t fi = 0; fi < ir->funcs.n; fi++)
        if (s->owner[fi] == cls && !s->role[fi])
            s->role[fi] = FN_OTHER;
}

/* A forward that returns nothing (`raise NotImplementedError`, `pass`) is an
 * abstract base's: subclasses decide what runs. */
static bool abstract_forward(const Ir *ir, int fwd)
{
    const IrFunction *f = &ir->funcs.v[fwd];
    for (uint32_t i = 0; i < f->returns.n; i++)
        if (f->values.v[f->returns.v[i]].nargs)
            return false;
    return true;
}

static void scan_class(Scan *s, int cls)
{
    s->mc->cls = cls;
    s->mc->init = method_named(s, cls, "__init__");
    s->mc->forward = method_named(s, cls, "forward");
    s->cap = 0;
    s->trained_cap = 0;
    if (s->mc->forward >= 0 && abstract_forward(s->ir, s->mc->forward))
        s->mc->escapes = true;
    assign_roles(s);
    for (uint32_t fi = 0; fi < s->ir->funcs.n; fi++)
        if (s->owner[fi] == cls && s->role[fi] & FN_INIT)
            scan_registrations(s, (int)fi);
    for (uint32_t fi = 0; fi < s->ir->funcs.n; fi++)
        if (s->owner[fi] == cls)
            scan_uses(s, (int)fi, s->role[fi]);
}

/* The class whose method function fi is, or is nested in; -1 if none. */
static int owner_class(const Ir *ir, int fi)
{
    for (int guard = 0; fi >= 0 && guard < 64; guard++) {
        const IrFunction *f = &ir->funcs.v[fi];
        if (f->class_index >= 0)
            return f->class_index;
        fi = f->parent;
    }
    return -1;
}

/* Attributes nothing in the class uses: does code outside the class read an
 * attribute of that name (`model.aux_head(h)`), or a string name it
 * (`get_submodule("head")`, `"head" in name`)? Asked only of the few
 * candidates, so the file is scanned once per candidate. */
static void outside_uses(Scan *s, ModAttr *a)
{
    uint32_t nl;
    const char *name = intern_str(&s->S->names, a->name, &nl);
    for (uint32_t fi = 0; fi < s->ir->funcs.n && !(a->flags & MA_ELSEWHERE); fi++) {
        const IrFunction *f = &s->ir->funcs.v[fi];
        bool inside = s->owner[fi] == s->mc->cls;
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = val(f, i);
            uint32_t len;
            const char *b;
            if ((v->op == IR_ATTR && v->name == a->name && !inside) ||
                (v->op == IR_CONST && v->node != a->name_node &&
                 (b = string_body(s, f, i, &len)) &&
                 string_names(b, len, name, nl))) {
                a->flags |= MA_ELSEWHERE;
                break;
            }
        }
    }
}

/* `if __name__ == "__main__":` at module level: the file is run, not imported. */
static bool is_script(const Scan *s)
{
    const IrFunction *m = &s->ir->funcs.v[0];
    for (uint32_t i = 1; i < m->values.n; i++) {
        const IrValue *v = val(m, i);
        if (v->op == IR_COMPARE)
            for (uint32_t a = 0; a < v->nargs; a++)
                if (val(m, v->args[a])->op == IR_GLOBAL &&
                    name_is(s, val(m, v->args[a])->name, "__name__"))
                    return true;
    }
    return false;
}

/* Marks the classes some call in the file instantiates (`Block(dim)`). */
static void mark_built(const Scan *s, uint8_t *built)
{
    for (uint32_t fi = 0; fi < s->ir->funcs.n; fi++) {
        const IrFunction *f = &s->ir->funcs.v[fi];
        for (uint32_t i = 1; i < f->values.n; i++) {
            const IrValue *v = val(f, i);
            if (v->op != IR_CALL || !v->nargs || !v->cls)
                continue;
            uint8_t op = val(f, ir_resolve(f, v->args[0]))->op;
            if (op == IR_CLASS || op == IR_GLOBAL)
                built[v->cls - 1] = 1;
        }
    }
}

void ir_modules(const Ir *ir, Arena *A, ModuleFacts *out)
{
    memset(out, 0, sizeof *out);
    uint32_t n = 0;
    for (uint32_t k = 0; k < ir->classes.n; k++)
        n += ir->classes.v[k].is_module;
    if (!n)
        return;
    Scan s = {ir, ir->syn, A, NULL, NULL, NULL, 0, 0};
    s.owner = arena_alloc(A, ir->funcs.n * sizeof *s.owner);
    s.role = arena_alloc(A, ir->funcs.n);
    for (uint32_t fi = 0; fi < ir->funcs.n; fi++)
        s.owner[fi] = owner_class(ir, (int)fi);
    out->v = arena_zalloc(A, n * sizeof *out->v);
    uint8_t *built = arena_zalloc(A, ir->classes.n);
    mark_built(&s, built);
    bool script = is_script(&s);
    for (uint32_t k = 0; k < ir->classes.n; k++) {
        if (!ir->classes.v[k].is_module)
            continue;
        s.mc = &out->v[out->n++];
        scan_class(&s, (int)k);
        s.mc->local = script || built[k];
        for (uint32_t i = 0; i < s.mc->nattrs; i++)
            if (!(s.mc->attrs[i].flags & (MA_IN_FORWARD | MA_ELSEWHERE)) && !s.mc->escapes)
                outside_uses(&s, &s.mc->attrs[i]);
    }
}

bool ir_forward_trains(const ModuleFacts *mf, int cls, uint32_t attr)
{
    for (uint32_t k = 0; k < mf->n; k++) {
        if (mf->v[k].cls != cls)
            continue;
        for (uint32_t i = 0; i < mf->v[k].ntrained; i++)
            if (mf->v[k].trained[i] == attr)
                return true;
        return false;
    }
    return false;
}

/* ---- functional dropout --------------------------------------------------------------- */

static bool dropout_callee(const Ir *ir, uint32_t qual)
{
    static const char *const names[] = {
        "torch.nn.functional.dropout", "torch.nn.functional.dropout1d",
        "torch.nn.functional.dropout2d", "torch.nn.functional.dropout3d",
        "torch.nn.functional.alpha_dropout", "torch.nn.functional.feature_alpha_dropout",
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (intern_is(&ir->syn->names, qual, names[i]))
            return true;
    return false;
}

DropoutMode ir_dropout_mode(const Ir *ir, const IrFunction *f, const IrValue *v)
{
    (void)f;
    if (v->op != IR_CALL || !v->nargs || !dropout_callee(ir, f->values.v[v->args[0]].qual))
        return DROPOUT_NONE;
    const Syntax *S = ir->syn;
    const Node *call = &S->nodes[v->node];
    const Node *args = call->kind == N_CALL ? node_kid(S, call, 1) : NULL;
    uint32_t positional = 0;
    if (args) FOR_EACH_KID(args, k) {
        const Node *a = &S->nodes[k];
        if (a->kind == N_STARRED || a->kind == N_DOUBLE_STARRED)
            return DROPOUT_UNKNOWN;
        if (a->kind != N_KEYWORD) {
            positional++;
            continue;
        }
        const Node *kw = node_kid(S, a, 0);
        uint32_t s0 = node_start(S, kw), e0 = node_end(S, kw);
        if (e0 - s0 == 8 && memcmp(S->src + s0, "training", 8) == 0)
            return DROPOUT_EXPLICIT;
    }
    return positional >= 3 ? DROPOUT_EXPLICIT : DROPOUT_DEFAULT;
}
