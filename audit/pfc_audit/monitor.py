"""monitor(): a cheap watch on NaN/Inf for the first steps of a real run.

Each module's forward hook keeps one on-device flag (no synchronisation); the
flags are read once per forward of the model, in the order the modules
finished, so the first module that produced a NaN/Inf is named without a
GPU sync per module."""
import warnings

import torch

from .report import AuditError, Finding
from .tensors import leaves, wrap_step


class _Undo:
    """A hook handle for an undo function."""

    def __init__(self, undo):
        self.remove = undo


class Monitor:
    def __init__(self, model, on_nonfinite="raise", optimizer=None, max_steps=None):
        if on_nonfinite not in ("raise", "warn", "record"):
            raise ValueError("on_nonfinite: 'raise', 'warn' or 'record'")
        self.model, self.on_nonfinite, self.max_steps = model, on_nonfinite, max_steps
        self.steps = 0
        self.findings = []
        self._flags = []
        self._names = {id(m): n or type(m).__name__ for n, m in model.named_modules()}
        self._handles = [m.register_forward_hook(self._post) for m in model.modules()
                         if m is not model]
        self._handles.append(model.register_forward_hook(self._model_done))
        if optimizer is not None:
            self._handles.append(_Undo(wrap_step(optimizer, self._check_grads)))

    def _post(self, module, inputs, output):
        ok = None
        for t in leaves(output):
            if t.is_floating_point() and t.numel():
                f = torch.isfinite(t.detach()).all()
                ok = f if ok is None else ok & f
        if ok is not None:
            self._flags.append((module, ok))

    def _model_done(self, module, inputs, output):
        self._post(module, inputs, output)
        flags, self._flags = self._flags, []
        if not flags:
            return
        oks = torch.stack([ok for _, ok in flags]).cpu()   # the one sync
        if bool(oks.all()):
            return self._count()
        first = flags[int((~oks).nonzero()[0])][0]
        self._report("NaN/Inf first produced by module %s (%s) in forward %d" % (
            self._names.get(id(first), "?"), type(first).__name__, self.steps + 1))
        self._count()

    def _check_grads(self, opt):
        grads = [p.grad for g in opt.param_groups for p in g["params"] if p.grad is not None]
        if grads and not bool(torch.isfinite(
                torch.stack([g.detach().float().norm() for g in grads])).all()):
            self._report("a gradient holds NaN/Inf before optimizer step %d" % (self.steps + 1))
        return False

    def _count(self):
        self.steps += 1
        if self.max_steps is not None and self.steps >= self.max_steps:
            self.remove()

    def _report(self, message):
        f = Finding("TG402", "nonfinite", message)
        self.findings.append(f)
        if self.on_nonfinite == "raise":
            raise AuditError("pfc monitor: " + message, [f])
        if self.on_nonfinite == "warn":
            warnings.warn("pfc monitor: " + message, RuntimeWarning, stacklevel=3)

    def remove(self):
        for h in self._handles:
            h.remove()
        self._handles = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def monitor(model, on_nonfinite="raise", optimizer=None, max_steps=None):
    """Watches `model`'s forward passes (and `optimizer`'s gradients) for NaN/Inf.
    on_nonfinite: 'raise' (AuditError naming the module), 'warn' or 'record'
    (in .findings). max_steps: remove the hooks after that many forwards."""
    return Monitor(model, on_nonfinite, optimizer, max_steps)
