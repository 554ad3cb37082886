"""pfc_audit: one instrumented training step, for what only a run shows.

    from pfc_audit import audit, monitor
    report = audit(model, lambda x, y: F.cross_entropy(model(x), y), optimizer=opt,
                   inputs=(x, y))
    report.raise_if_errors()

`pfc audit SCRIPT` runs a whole script under the same checks (pfc_audit.run)."""
from .api import audit
from .callback import PfcAuditCallback
from .monitor import Monitor, monitor
from .report import AuditError, Finding, Report

__all__ = ["audit", "monitor", "Monitor", "PfcAuditCallback", "Report", "Finding", "AuditError"]
