"""One audited step: the hooks that watch it and what they saw. The checks
(checks.py) turn what was seen into findings once the step is over.

Two scopes: `watch_globally()` (pfc audit SCRIPT: every module, every
optimizer the script builds) and `watch_model(model, optimizer)` (the API)."""
import weakref

import torch
import torch.nn as nn

from . import sites
from .tensors import all_finite, alive_units, wrap_step

RELU_TYPES = (nn.ReLU, nn.ReLU6)


class StopAudit(BaseException):
    """Ends the audited script after its first step; BaseException so that the
    script's own `except Exception` does not swallow it."""


class Nonfinite:
    """The first NaN/Inf seen: where it was born and how."""

    def __init__(self, kind, module=None, parent=None, site=None, detail=""):
        self.kind, self.module, self.parent, self.site, self.detail = \
            kind, module, parent, site, detail


class Session:
    def __init__(self, stop_after_step=False):
        self.stop_after_step = stop_after_step
        self.roots = {}            # id -> top-level module called (in call order)
        self.ran = set()           # ids of modules whose forward ran
        self.stack = []            # modules whose forward is running
        self.relu = {}             # id -> [module, alive units, observations]
        self.nonfinite = None      # the first Nonfinite
        self.optimizers = []       # (optimizer, site)
        self.stepped = None        # the optimizer whose step() was audited
        self.step_site = None
        self.grads_seen = set()    # ids of parameters a gradient reached
        self.hooked = set()
        self.backwards = 0
        self.detached_backward = None   # site of a backward() on a leaf
        self.grad_snapshot = None       # per parameter id: grad norm before step
        self.zero_params = None         # ids of parameters all zero before the step
        self.bad_grads = []             # parameter ids with a non-finite grad
        self.bad_params = []            # parameter ids non-finite after step
        self.module_sites = weakref.WeakKeyDictionary()
        self.optimizer_sites = weakref.WeakKeyDictionary()
        self._undo = []
        self.done = False

    # ---- installing and removing the hooks ------------------------------------------

    def watch_globally(self):
        mm = torch.nn.modules.module
        self._undo.append(mm.register_module_forward_pre_hook(self._pre).remove)
        self._undo.append(mm.register_module_forward_hook(self._post).remove)
        self._patch_module_init()
        self._patch_optimizer_init()
        self._patch_backward()

    def watch_model(self, model, optimizer=None):
        self.roots[id(model)] = model
        for m in model.modules():
            self._undo.append(m.register_forward_pre_hook(self._pre).remove)
            self._undo.append(m.register_forward_hook(self._post).remove)
        if optimizer is not None:
            self.add_optimizer(optimizer, sites.class_site(optimizer))
        self._patch_backward()

    def close(self):
        self.done = True
        while self._undo:
            self._undo.pop()()

    def _patch(self, owner, name, make):
        old = getattr(owner, name)
        had = name in vars(owner)
        setattr(owner, name, make(old))
        self._undo.append(lambda: setattr(owner, name, old) if had else delattr(owner, name))

    def _patch_module_init(self):
        session = self

        def make(old):
            def __init__(module, *a, **k):
                old(module, *a, **k)
                if not session.done and module not in session.module_sites:
                    site = sites.user_site(2, constructing=module)
                    if site:
                        session.module_sites[module] = site
            return __init__
        self._patch(nn.Module, "__init__", make)

    def _patch_optimizer_init(self):
        session = self

        def make(old):
            def __init__(opt, *a, **k):
                old(opt, *a, **k)
                if not session.done and opt not in session.optimizer_sites:
                    session.add_optimizer(opt, sites.user_site(2, constructing=opt))
            return __init__
        self._patch(torch.optim.Optimizer, "__init__", make)

    def _patch_backward(self):
        session = self

        def make(old):
            def backward(tensors, *a, **k):
                if not session.done:
                    session._before_backward(tensors)
                result = old(tensors, *a, **k)
                if not session.done:
                    session._after_backward()
                return result
            return backward
        self._patch(torch.autograd, "backward", make)

    # ---- optimizers -----------------------------------------------------------------

    def add_optimizer(self, opt, site):
        self.optimizer_sites[opt] = site
        self.optimizers.append(opt)
        self._undo.append(wrap_step(opt, self._before_step, self._after_step))

    def optimizer_params(self, opt=None):
        opts = [opt] if opt is not None else self.optimizers
        return {id(p) for o in opts for g in o.param_groups for p in g["params"]}

    def _before_step(self, opt):
        if self.done or self.stepped is not None or self.step_site is not None:
            return False   # an optimizer stepping another (ZeRO) is one step
        self.step_site = sites.user_site(3) or ("", 0)
        snapshot, self.zero_params = {}, set()
        for g in opt.param_groups:
            for p in g["params"]:
                if bool((p.detach() == 0).all()):
                    self.zero_params.add(id(p))
                if p.grad is None:
                    continue
                grad = p.grad.detach()
                if not bool(torch.isfinite(grad).all()):
                    self.bad_grads.append(id(p))
                snapshot[id(p)] = (float(grad.float().norm()), bool((grad == 0).all()))
        self.grad_snapshot = snapshot
        return True

    def _after_step(self, opt):
        self.stepped = opt
        for g in opt.param_groups:
            for p in g["params"]:
                if not bool(torch.isfinite(p.detach()).all()):
                    self.bad_params.append(id(p))
        if self.stop_after_step:
            raise StopAudit()

    # ---- backward -------------------------------------------------------------------

    def _before_backward(self, tensors):
        ts = [tensors] if isinstance(tensors, torch.Tensor) else list(tensors)
        for t in ts:
            if t.requires_grad and t.grad_fn is None and self.detached_backward is None:
                self.detached_backward = sites.user_site(3)
            if self.nonfinite is None and not all_finite(t):
                self.nonfinite = Nonfinite("loss", site=sites.user_site(3))

    def _after_backward(self):
        self.backwards += 1
        if self.stop_after_step and not self.optimizers:
            raise StopAudit()   # no optimizer: what one backward() shows

    # ---- forward --------------------------------------------------------------------

    def _pre(self, module, inputs):
        if self.done:
            return
        if not self.stack and (not self.roots or id(module) in self.roots
                               or self.stop_after_step):
            if id(module) not in self.roots:
                self.roots[id(module)] = module
            self._hook_params(module)
            if self.nonfinite is None and not all_finite(inputs):
                self.nonfinite = Nonfinite("input", module)
        self.stack.append(module)

    def _post(self, module, inputs, output):
        if self.done:
            return
        if self.stack and self.stack[-1] is module:
            self.stack.pop()
        self.ran.add(id(module))
        if self.nonfinite is None and not all_finite(output):
            parent = self.stack[-1] if self.stack else None
            kind = "module" if all_finite(inputs) else "between"
            self.nonfinite = Nonfinite(kind, module, parent)
        if isinstance(module, RELU_TYPES):
            self._count_relu(module, output)

    def _count_relu(self, module, output):
        alive, obs = alive_units(output)
        if alive is None:
            return
        entry = self.relu.get(id(module))
        if entry is None or entry[1].shape != alive.shape:
            self.relu[id(module)] = [module, alive, obs]
        else:
            entry[1] = entry[1] | alive
            entry[2] += obs

    def _hook_params(self, root):
        for p in root.parameters():
            if p.requires_grad and id(p) not in self.hooked:
                self.hooked.add(id(p))
                self._undo.append(p.register_hook(self._grad_hook(id(p))).remove)

    def _grad_hook(self, pid):
        seen = self.grads_seen

        def hook(grad):
            seen.add(pid)
        return hook
