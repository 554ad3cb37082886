"""What a watched step showed, as findings. Each check_* reads the Session
(session.py) and returns findings; `run_checks` runs them in catalog order."""
import math
import re

import torch

from . import sites
from .report import Finding

LORA = re.compile(r"(^|\.)lora_(embedding_)?[AB](\.|$)")
DEFAULTS = {"grad_norm_max": 1e3, "grad_norm_min": 1e-8, "dead_relu_fraction": 0.5,
            "dead_relu_min_obs": 4, "lora_fraction": (1e-4, 0.10)}


def _names_list(names, limit=5):
    shown = ", ".join(names[:limit])
    return shown + (" and %d more" % (len(names) - limit) if len(names) > limit else "")


class View:
    """The session's roots seen as named parameters and modules."""

    def __init__(self, session):
        self.s = session
        self.params, self.pname, self.owner, self.mname = {}, {}, {}, {}
        self.root_of = {}
        roots = [r for r in session.roots.values() if any(True for _ in r.parameters())]
        self.roots = roots
        for r in roots:
            prefix = type(r).__name__ + ":" if len(roots) > 1 else ""
            for mn, m in r.named_modules():
                self.mname.setdefault(id(m), prefix + (mn or type(m).__name__))
                for pn, p in m.named_parameters(recurse=False):
                    if id(p) in self.params:
                        continue
                    self.params[id(p)] = p
                    self.pname[id(p)] = prefix + (mn + "." if mn else "") + pn
                    self.owner[id(p)] = m
                    self.root_of[id(p)] = r

    def got_grad(self, pid):
        if pid in self.s.hooked:
            return pid in self.s.grads_seen
        return self.params[pid].grad is not None

    def trained_roots(self):
        return [r for r in self.roots
                if any(self.got_grad(id(p)) for p in r.parameters() if id(p) in self.params)]

    def trainable(self, root=None):
        return [pid for pid, p in self.params.items()
                if p.requires_grad and (root is None or self.root_of[pid] is root)]

    def site_of_module(self, m):
        return self.s.module_sites.get(m) or sites.class_site(m)

    def site_of_param(self, pid):
        return self.site_of_module(self.owner[pid])

    def optimizer_site(self, opt=None):
        opt = opt or (self.s.optimizers[0] if self.s.optimizers else None)
        return self.s.optimizer_sites.get(opt) if opt is not None else None

    def is_lora(self, pid):
        return bool(LORA.search(self.pname[pid]))


# ---- wiring: what trains, what the optimizer holds -------------------------------------

def check_detached_loss(v, th):
    if v.s.detached_backward is None:
        return []
    none = not any(v.got_grad(pid) for pid in v.params)
    return [Finding("TG301", "detached_loss",
                    "backward() ran on a tensor with no autograd graph (a leaf that requires "
                    "grad)%s" % (": no parameter got a gradient" if none else ""),
                    "backpropagate the loss the model computed, not a tensor rebuilt from "
                    ".item() or .detach()", v.s.detached_backward)]


def _lora_base_weights(v, root):
    """The weights of the layers LoRA wraps: siblings of a lora_A child."""
    out = []
    for m in root.modules():
        if not hasattr(m, "lora_A"):
            continue
        base = getattr(m, "base_layer", m)
        w = getattr(base, "weight", None)
        if isinstance(w, torch.Tensor) and id(w) in v.params:
            out.append(id(w))
    return out


def check_trainable(v, th):
    found = []
    if v.roots and not v.trainable():
        r = v.roots[0]
        found.append(Finding("TG103", "nothing_trains",
                             "no parameter of %s requires grad: nothing trains" % type(r).__name__,
                             "unfreeze the parameters meant to train (the adapters under LoRA)",
                             v.site_of_module(r)))
    for r in v.roots:
        pids = [id(p) for p in r.parameters() if id(p) in v.params]
        if not any(v.is_lora(pid) for pid in pids):
            continue
        trainable = [pid for pid in pids if v.params[pid].requires_grad]
        if not trainable and v.trainable():
            found.append(Finding("TG103", "nothing_trains",
                                 "every parameter of the LoRA model %s is frozen, adapters "
                                 "included" % type(r).__name__, None, v.site_of_module(r)))
            continue
        base = [pid for pid in _lora_base_weights(v, r) if v.params[pid].requires_grad]
        if base:
            found.append(Finding("TG102", "base_not_frozen",
                                 "%d of the weights LoRA wraps stay trainable (%s): a full "
                                 "fine-tune at LoRA's learning rate" % (
                                     len(base), _names_list([v.pname[p] for p in base], 3)),
                                 "freeze the base: requires_grad_(False) on every non-LoRA "
                                 "parameter", v.site_of_module(r)))
            continue
        total = sum(v.params[pid].numel() for pid in pids)
        share = sum(v.params[pid].numel() for pid in trainable) / max(total, 1)
        lo, hi = th["lora_fraction"]
        if trainable and not lo <= share <= hi:
            found.append(Finding("TG105", "trainable_fraction",
                                 "%.4g%% of the LoRA model's parameters train (usual: %.2g%% to "
                                 "%.3g%%)" % (100 * share, 100 * lo, 100 * hi),
                                 None, v.site_of_module(r)))
    return found


def check_optimizer_coverage(v, th):
    if not v.s.optimizers:
        return []
    held = v.s.optimizer_params()
    trained = set(map(id, v.trained_roots()))
    missing = [pid for pid in v.trainable() if pid not in held and id(v.root_of[pid]) in trained]
    if not missing:
        return []
    names = _names_list([v.pname[p] for p in missing])
    if any(v.is_lora(pid) for pid in missing):
        return [Finding("TG101", "optimizer_coverage",
                        "the optimizer does not hold %d trainable LoRA parameter(s) (%s): it was "
                        "built before the adapters were added" % (len(missing), names),
                        "build the optimizer after get_peft_model / adding the adapters",
                        v.optimizer_site())]
    return [Finding("TG302", "optimizer_coverage",
                    "%d trainable parameter(s) are in no optimizer and never change: %s" % (
                        len(missing), names),
                    "build the optimizer from model.parameters() after the model is complete",
                    v.optimizer_site())]


# ---- gradients -----------------------------------------------------------------------

def _checked_params(v):
    """The parameters this step should have updated: those of the optimizer that
    stepped (a GAN's other optimizer steps later), else every trainable one of
    a model that got a gradient."""
    s = v.s
    if s.stepped is not None:
        held = s.optimizer_params(s.stepped)
        return [pid for pid in v.params if pid in held and v.params[pid].requires_grad]
    trained = set(map(id, v.trained_roots()))
    return [pid for pid in v.trainable() if id(v.root_of[pid]) in trained]


def _ddp_without_unused(root):
    ddp = torch.nn.parallel.DistributedDataParallel
    return isinstance(root, ddp) and not getattr(root, "find_unused_parameters", False)


def check_no_gradient(v, th):
    if not v.s.backwards:
        return []
    missing = [pid for pid in _checked_params(v) if not v.got_grad(pid)]
    if not missing or v.s.detached_backward and not any(map(v.got_grad, v.params)):
        return []   # nothing got a gradient from a detached loss: that is TG301
    ddp = [pid for pid in missing if _ddp_without_unused(v.root_of[pid])]
    if ddp:
        return [Finding("TG406", "ddp_unused",
                        "%d parameter(s) of the DDP model got no gradient (%s): DDP without "
                        "find_unused_parameters=True raises at the next step" % (
                            len(ddp), _names_list([v.pname[p] for p in ddp])),
                        "use every parameter in forward, or pass find_unused_parameters=True",
                        v.site_of_module(v.root_of[ddp[0]]))]
    if any(getattr(m, "gradient_checkpointing", False) is True for r in v.roots
           for m in r.modules()) and all(v.is_lora(p) for p in missing):
        return [Finding("TG104", "no_gradient",
                        "no gradient reached the LoRA adapters under gradient checkpointing "
                        "(%s)" % _names_list([v.pname[p] for p in missing]),
                        "call model.enable_input_require_grads() or use use_reentrant=False",
                        v.site_of_module(v.root_of[missing[0]]))]
    return _unused_modules(v, missing) + _no_gradient(v, missing)


def _unused_modules(v, missing):
    mods = {}
    for pid in missing:
        m = v.owner[pid]
        if id(m) not in v.s.ran:
            mods.setdefault(id(m), m)
    return [Finding("TG306", "no_gradient",
                    "submodule %s never ran in the step: its %d parameter(s) got no gradient" % (
                        v.mname[id(m)], sum(1 for _ in m.parameters(recurse=False))),
                    "call it in forward or remove it", v.site_of_module(m))
            for m in mods.values()]


def _no_gradient(v, missing):
    ran = [pid for pid in missing if id(v.owner[pid]) in v.s.ran]
    if not ran:
        return []
    return [Finding("TG401", "no_gradient",
                    "%d trainable parameter(s) got no gradient in the step: %s" % (
                        len(ran), _names_list([v.pname[p] for p in ran])),
                    "their output does not reach the loss (detached, unused, or under no_grad)",
                    v.site_of_param(ran[0]))]


def _grad_norms(v):
    """{pid: (norm, all zero)} of the checked parameters' gradients."""
    snap = v.s.grad_snapshot
    out = {}
    for pid in _checked_params(v):
        if snap is not None:
            if pid in snap:
                out[pid] = snap[pid]
        else:
            g = v.params[pid].grad
            if g is not None:
                out[pid] = (float(g.detach().float().norm()), bool((g == 0).all()))
    return out


def _lora_a_expected_zero(v, pid):
    """LoRA initialises B to zero, so A's first gradient is zero."""
    name = v.pname[pid]
    if not LORA.search(name) or "lora_A" not in name and "lora_embedding_A" not in name:
        return False
    partner = name.replace("lora_A", "lora_B").replace("lora_embedding_A", "lora_embedding_B")
    for qid, qname in v.pname.items():
        if qname == partner:
            if v.s.zero_params is not None:   # B as it was before the step
                return qid in v.s.zero_params
            return bool((v.params[qid].detach() == 0).all())
    return False


def check_grad_norms(v, th, stats):
    norms = _grad_norms(v)
    if not norms:
        return []
    total = math.sqrt(sum(n * n for n, _ in norms.values()))
    per_module = {}
    for pid, (n, _) in norms.items():
        key = v.mname[id(v.owner[pid])]
        per_module[key] = per_module.get(key, 0.0) + n * n
    top = sorted(((math.sqrt(x), k) for k, x in per_module.items()), reverse=True)
    stats["total_grad_norm"] = total
    stats["module_grad_norms"] = {k: n for n, k in top[:10]}
    found = []
    if total > th["grad_norm_max"]:
        found.append(Finding("TG404", "grad_norms",
                             "the total gradient norm is %.3g (threshold %.3g); largest: %s" % (
                                 total, th["grad_norm_max"],
                                 ", ".join("%s %.3g" % (k, n) for n, k in top[:3])),
                             "check the loss scale, the initialisation and the input "
                             "normalisation; clip with torch.nn.utils.clip_grad_norm_",
                             v.step_site()))
    elif total < th["grad_norm_min"]:
        found.append(Finding("TG405", "grad_norms",
                             "the total gradient norm is %.3g (threshold %.3g)" % (
                                 total, th["grad_norm_min"]),
                             "check for saturated activations, a detached path or a loss "
                             "scaled to zero", v.step_site()))
    zero = [pid for pid, (_, z) in norms.items() if z and not _lora_a_expected_zero(v, pid)]
    if zero and total >= th["grad_norm_min"]:
        found.append(Finding("TG405", "grad_norms",
                             "%d parameter(s) got an all-zero gradient: %s" % (
                                 len(zero), _names_list([v.pname[p] for p in zero])),
                             "a dead activation or a zero weight in front of them stops the "
                             "gradient", v.site_of_param(zero[0])))
    return found


# ---- values --------------------------------------------------------------------------

def check_nonfinite(v, th):
    found, nf = [], v.s.nonfinite
    if nf is not None:
        found.append(_nonfinite_forward(v, nf))
    if v.s.bad_grads:
        names = [v.pname.get(p, "?") for p in v.s.bad_grads]
        found.append(Finding("TG402", "nonfinite",
                             "%d gradient(s) hold NaN/Inf before the step: %s" % (
                                 len(names), _names_list(names)),
                             "look for log/sqrt/division at 0 in the loss; anomaly mode "
                             "(torch.autograd.set_detect_anomaly) names the backward op",
                             v.step_site()))
    if v.s.bad_params:
        names = [v.pname.get(p, "?") for p in v.s.bad_params]
        found.append(Finding("TG402", "nonfinite",
                             "%d parameter(s) hold NaN/Inf after the step: %s" % (
                                 len(names), _names_list(names)),
                             "check the learning rate and the optimizer's settings",
                             v.step_site()))
    return found


def _nonfinite_forward(v, nf):
    def name(m):
        return v.mname.get(id(m), type(m).__name__) if m is not None else "?"
    if nf.kind == "input":
        msg = "the batch given to %s holds NaN/Inf" % name(nf.module)
        return Finding("TG402", "nonfinite", msg, "clean or normalise the data",
                       v.site_of_module(nf.module))
    if nf.kind == "module":
        msg = "NaN/Inf first produced by module %s (%s) from finite inputs" % (
            name(nf.module), type(nf.module).__name__)
        return Finding("TG402", "nonfinite", msg, None, v.site_of_module(nf.module))
    if nf.kind == "between":
        msg = "NaN/Inf first produced by code in %s's forward, before it calls %s" % (
            name(nf.parent), name(nf.module))
        return Finding("TG402", "nonfinite", msg, None,
                       v.site_of_module(nf.parent if nf.parent is not None else nf.module))
    return Finding("TG402", "nonfinite",
                   "the loss passed to backward() is NaN/Inf, though every module's output "
                   "was finite: the loss computation produced it", None, nf.site)


def check_dead_relu(v, th, stats):
    found, fractions = [], {}
    for module, alive, obs in v.s.relu.values():
        units = alive.numel()
        if obs < th["dead_relu_min_obs"]:
            continue
        dead = 1.0 - float(alive.float().mean())
        label = v.mname.get(id(module), type(module).__name__)
        fractions[label] = dead
        if dead >= th["dead_relu_fraction"]:
            found.append(Finding("TG403", "dead_relu",
                                 "%.0f%% of the %d units of %s output 0 for all %d inputs of "
                                 "the step" % (100 * dead, units, label, obs),
                                 "check the initialisation (a large negative bias), the "
                                 "learning rate, or use LeakyReLU/GELU",
                                 v.site_of_module(module)))
    stats["dead_relu"] = fractions
    return found


def check_distributed(v, th):
    dist = torch.distributed
    if not (dist.is_available() and dist.is_initialized()):
        return []

    def wrapped(r):   # FSDP by name: importing it fails on some builds (torch 1.13, py3.11)
        return any(c.__name__ in ("DistributedDataParallel", "FullyShardedDataParallel")
                   for c in type(r).__mro__)
    bare = [r for r in v.trained_roots() if not wrapped(r)]
    return [Finding("TG201", "distributed",
                    "a process group is up (world size %d) but %s trains unwrapped: its "
                    "gradients are never synchronised" % (dist.get_world_size(),
                                                            type(r).__name__),
                    "wrap it in DistributedDataParallel and train the wrapper",
                    v.site_of_module(r)) for r in bare]


def check_step(v, th):
    s = v.s
    if s.stepped is not None:
        return []
    if not s.backwards:
        msg = "no backward() and no optimizer step ran: nothing about gradients was checked"
    elif not s.optimizers:
        msg = "the script has no optimizer: checked after its first backward()"
    else:
        msg = "%d backward() ran but no optimizer step: the optimizer checks ran on what was " \
              "there" % s.backwards
    return [Finding("TG408", "step", msg)]


def _bytes(n):
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return "%.2f %s" % (n / size, unit)
    return "%d bytes" % n


def peak_memory(v, stats, estimate=None):
    """TG407: the measured peak (CUDA only) beside pfc estimate's projection."""
    on_cuda = torch.cuda.is_available() and any(p.is_cuda for p in v.params.values())
    est = ""
    if estimate is not None:
        est = "; pfc estimate projects %s" % _bytes(estimate) if estimate > 0 \
            else "; pfc estimate could not project it"
    if not on_cuda:
        stats["peak_memory_bytes"] = None
        return [Finding("TG407", "peak_memory",
                        "peak memory not measured: the step ran on the CPU (CUDA only)" + est)]
    peak = torch.cuda.max_memory_allocated()
    stats["peak_memory_bytes"] = peak
    return [Finding("TG407", "peak_memory",
                    "measured peak memory of the step: %s allocated" % _bytes(peak) + est)]


def run_checks(session, thresholds=None, estimate=None, memory=True):
    th = dict(DEFAULTS, **(thresholds or {}))
    v = View(session)
    v.step_site = lambda: session.step_site
    stats = {"backwards": session.backwards, "stepped": session.stepped is not None,
             "parameters": sum(p.numel() for p in v.params.values()),
             "trainable": sum(v.params[p].numel() for p in v.trainable())}
    found = []
    for check in (check_detached_loss, check_trainable, check_optimizer_coverage,
                  check_no_gradient, check_nonfinite, check_distributed, check_step):
        found += check(v, th)
    found += check_grad_norms(v, th, stats)
    found += check_dead_relu(v, th, stats)
    if memory:
        found += peak_memory(v, stats, estimate)
    return found, stats
