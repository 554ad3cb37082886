"""Small helpers over tensors and the pytrees modules return."""
import types

import torch


def leaves(obj, depth=0):
    """The tensors inside a module's input or output: tensors, tuples and lists
    (named tuples too), dicts (Hugging Face ModelOutput is one)."""
    if isinstance(obj, torch.Tensor):
        yield obj
    elif depth < 8 and isinstance(obj, (tuple, list)):
        for x in obj:
            yield from leaves(x, depth + 1)
    elif depth < 8 and isinstance(obj, dict):
        for x in obj.values():
            yield from leaves(x, depth + 1)


def all_finite(obj):
    """False when a floating-point tensor in obj holds a NaN or an Inf."""
    for t in leaves(obj):
        if (t.is_floating_point() or t.is_complex()) and t.numel() \
                and not bool(torch.isfinite(t.detach()).all()):
            return False
    return True


def alive_units(out):
    """Per unit (channel for 4-D and up, last dimension otherwise): whether any
    element of the batch is positive; and the observations per unit."""
    if not isinstance(out, torch.Tensor) or not out.is_floating_point() or out.dim() < 2:
        return None, 0
    unit_dim = 1 if out.dim() >= 4 else out.dim() - 1
    units = out.shape[unit_dim]
    if units == 0 or out.numel() == 0:
        return None, 0
    pos = out.detach().gt(0).transpose(unit_dim, -1).reshape(-1, units)
    return pos.any(0), pos.shape[0]


def grad_norm(p):
    return float(p.grad.detach().float().norm()) if p.grad is not None else 0.0


def wrap_step(opt, before, after=None):
    """Wraps opt.step() on the instance: before(opt) runs first and says whether
    to watch this call; after(opt) follows a watched one. The wrapper is a bound
    method because LR schedulers rewrap `optimizer.step` through its __func__.
    Returns the undo."""
    original = opt.step

    def step(self_opt, *a, **k):
        watched = before(self_opt)
        result = original(*a, **k)
        if watched and after is not None:
            after(self_opt)
        return result
    opt.step = types.MethodType(step, opt)
    return lambda: opt.__dict__.pop("step", None)
