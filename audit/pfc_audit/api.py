"""audit(): one instrumented step from a script or a notebook."""
import torch

from .checks import run_checks
from .report import Report
from .session import Nonfinite, Session
from .tensors import all_finite


def _call(closure, inputs):
    if inputs is None:
        return closure()
    if isinstance(inputs, (tuple, list)):
        return closure(*inputs)
    if isinstance(inputs, dict):
        return closure(**inputs)
    return closure(inputs)


def audit(model, closure, optimizer=None, inputs=None, thresholds=None):
    """Runs one step of `model` and reports what it showed.

    closure: runs the forward pass and the loss, called with `inputs` (a tuple
    is spread, a dict passed as keywords); it may call backward() and
    optimizer.step() itself, else audit() backpropagates the tensor it returns
    and then steps `optimizer` once. thresholds: overrides of checks.DEFAULTS
    (grad_norm_max, grad_norm_min, dead_relu_fraction, ...)."""
    session = Session()
    session.watch_model(model, optimizer)
    try:
        if inputs is not None and not all_finite(inputs):
            session.nonfinite = Nonfinite("input", model)
        loss = _call(closure, inputs)
        if not session.backwards and isinstance(loss, torch.Tensor) and loss.requires_grad:
            loss.backward()
        if optimizer is not None and session.stepped is None and session.backwards:
            optimizer.step()
        findings, stats = run_checks(session, thresholds)
    finally:
        session.close()
    return Report(findings, stats, steps=1 if session.stepped is not None else 0)
