"""Findings and the report `audit()` returns."""
from . import catalog


class Finding:
    """One finding: a catalog code, its message, and where it points (the
    user's line that built the module or optimizer involved, when known)."""

    __slots__ = ("code", "name", "severity", "check", "message", "help", "path", "line")

    def __init__(self, code, check, message, help=None, site=None, severity=None):
        self.code = code
        self.name = catalog.name_of(code)
        self.severity = severity or catalog.severity_of(code)
        self.check = check
        self.message = message
        self.help = help
        self.path, self.line = site if site else (None, None)

    def to_dict(self):
        return {k: getattr(self, k) for k in self.__slots__}

    def __repr__(self):
        where = "%s:%s: " % (self.path, self.line) if self.path else ""
        return "%s%s %s [%s] %s" % (where, self.severity, self.code, self.name, self.message)


class AuditError(RuntimeError):
    """Raised by Report.raise_if_errors() and by monitor(on_nonfinite="raise")."""

    def __init__(self, message, findings=()):
        super().__init__(message)
        self.findings = list(findings)


class Report:
    """What one audited step showed. `stats` holds the measurements behind the
    findings (gradient norms, dead-ReLU fractions, peak memory)."""

    def __init__(self, findings, stats, steps):
        order = {catalog.ERROR: 0, catalog.WARNING: 1, catalog.NOTE: 2}
        self.findings = sorted(findings, key=lambda f: (order[f.severity], f.code))
        self.stats = stats
        self.steps = steps

    def _of(self, severity):
        return [f for f in self.findings if f.severity == severity]

    @property
    def errors(self):
        return self._of(catalog.ERROR)

    @property
    def warnings(self):
        return self._of(catalog.WARNING)

    @property
    def infos(self):
        return self._of(catalog.NOTE)

    @property
    def ok(self):
        return not self.errors and not self.warnings

    def by_check(self, name):
        """The findings of one check, by check name ('no_gradient'), code
        ('TG401') or rule name ('no-gradient')."""
        return [f for f in self.findings if name in (f.check, f.code, f.name)]

    def raise_if_errors(self):
        if self.errors:
            raise AuditError("pfc audit: %d error(s): %s" % (
                len(self.errors), "; ".join("%s %s" % (f.code, f.message) for f in self.errors)),
                self.errors)
        return self

    def to_dict(self):
        return {"ok": self.ok, "steps": self.steps, "stats": self.stats,
                "findings": [f.to_dict() for f in self.findings]}

    def __str__(self):
        head = "pfc audit: %s (%d error(s), %d warning(s), %d note(s))" % (
            "ok" if self.ok else "problems", len(self.errors), len(self.warnings), len(self.infos))
        return "\n".join([head] + ["  " + repr(f) for f in self.findings])

    __repr__ = __str__
