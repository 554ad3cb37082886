"""A Hugging Face Trainer callback that audits the first training step.

Written against the TrainerCallback protocol (each event is called as
`event(args, state, control, **kwargs)` with model= and optimizer= among the
keywords) without importing transformers: Trainer only calls the events.
Events this class does not define are accepted and ignored."""
from .checks import run_checks
from .report import AuditError, Report
from .session import Session


def _torch_optimizer(opt):
    """accelerate wraps the optimizer: the torch one is its .optimizer."""
    import torch
    while opt is not None and not isinstance(opt, torch.optim.Optimizer):
        opt = getattr(opt, "optimizer", None)
    return opt


class PfcAuditCallback:
    def __init__(self, raise_on_error=False, stop_on_error=False, thresholds=None, log=print):
        self.raise_on_error, self.stop_on_error = raise_on_error, stop_on_error
        self.thresholds, self.log = thresholds, log
        self.report = None
        self._session = None

    def on_train_begin(self, args, state, control, model=None, optimizer=None, **kwargs):
        if model is None or self.report is not None:
            return control
        self._session = Session()
        self._session.watch_model(model, _torch_optimizer(optimizer))
        return control

    def on_step_end(self, args, state, control, **kwargs):
        session = self._session
        if session is None:
            return control
        self._session = None
        try:
            findings, stats = run_checks(session, self.thresholds)
        finally:
            session.close()
        self.report = Report(findings, stats, steps=1 if session.stepped is not None else 0)
        if self.log:
            self.log(str(self.report))
        if self.report.errors:
            if self.raise_on_error:
                self.report.raise_if_errors()
            if self.stop_on_error:
                control.should_training_stop = True
        return control

    def on_train_end(self, args, state, control, **kwargs):
        if self._session is not None:
            self._session.close()
            self._session = None
        return control

    def __getattr__(self, name):
        if name.startswith("on_"):
            return lambda args, state, control, **kwargs: control
        raise AttributeError(name)


__all__ = ["PfcAuditCallback", "AuditError"]
