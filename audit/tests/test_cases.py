"""Every case in cases/ (one broken script per check and its correct twin)
through both entry points, in one process (importing torch costs seconds):
the runner of `pfc audit` (pfc_audit.run.run_script + run_checks, the global
hooks) and the API (audit(model, closure, optimizer, inputs)). A case's first
line names the codes it must produce at warning or above, and notes it names."""
import glob
import importlib
import os
import sys
import unittest

import torch.distributed as dist

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, CASES)

from pfc_audit import audit                      # noqa: E402
from pfc_audit.checks import run_checks          # noqa: E402
from pfc_audit.run import run_script             # noqa: E402


def expected(path):
    with open(path) as f:
        first = f.readline()
    codes = first.split("expect:", 1)[1].split()
    return set() if codes == ["none"] else set(codes)


def shown(findings, wanted):
    """The codes that count: warnings and errors, and any note the case expects."""
    return {f.code for f in findings if f.severity != "note" or f.code in wanted}


def reset_distributed():
    if dist.is_available() and dist.is_initialized():
        dist.destroy_process_group()


class Cases(unittest.TestCase):
    def check_script(self, path):
        session, crash = run_script(path, [])
        self.assertIsNone(crash, crash)
        findings, _ = run_checks(session)
        reset_distributed()
        want = expected(path)
        self.assertEqual(shown(findings, want), want, "\n".join(map(repr, findings)))

    def check_api(self, path):
        mod = importlib.import_module(os.path.basename(path)[:-3])
        b = mod.build()
        report = audit(b["model"], b["closure"], optimizer=b["optimizer"], inputs=b["inputs"])
        reset_distributed()
        want = expected(path) - {"TG408"} if b["optimizer"] is None else expected(path)
        got = shown(report.findings, want) - {"TG408"}
        self.assertEqual(got, want - {"TG408"}, str(report))


def _add(path):
    name = os.path.basename(path)[:-3]
    setattr(Cases, "test_run_" + name, lambda self: self.check_script(path))
    setattr(Cases, "test_api_" + name, lambda self: self.check_api(path))


for _path in sorted(glob.glob(os.path.join(CASES, "*_*.py"))):
    _add(_path)

if __name__ == "__main__":
    unittest.main()
