"""The Python API beyond the cases: the report object, monitor(), the Trainer
callback, the step budget of the runner, and the catalog against `pfc
explain` (when $PFC names the binary)."""
import os
import subprocess
import sys
import unittest
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(HERE, "cases"))

import tiny                                                     # noqa: E402
from pfc_audit import AuditError, PfcAuditCallback, audit, monitor   # noqa: E402
from pfc_audit import catalog                                   # noqa: E402
from pfc_audit.run import run_script                            # noqa: E402


def broken_model():
    torch.manual_seed(0)
    model = tiny.MLP()
    nn.init.constant_(model.fc1.bias, -10.0)   # dead ReLU, zero gradient of fc1
    return model


class ReportApi(unittest.TestCase):
    def test_fields_of_a_broken_step(self):
        model = broken_model()
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        r = audit(model, tiny.classify(model), optimizer=opt, inputs=tiny.batch())
        self.assertFalse(r.ok)
        self.assertEqual({f.code for f in r.warnings}, {"TG403", "TG405"})
        self.assertEqual(r.errors, [])
        self.assertEqual([f.code for f in r.infos], ["TG407"])
        self.assertEqual([f.code for f in r.by_check("dead_relu")], ["TG403"])
        self.assertEqual(r.by_check("TG403"), r.by_check("dead-relu"))
        d = r.to_dict()
        self.assertEqual(d["steps"], 1)
        self.assertAlmostEqual(d["stats"]["dead_relu"]["act"], 1.0)
        self.assertIn("total_grad_norm", d["stats"])
        r.raise_if_errors()   # warnings only: does not raise

    def test_raise_if_errors(self):
        model = tiny.MLP()
        opt = torch.optim.SGD(model.fc2.parameters(), lr=0.1)
        r = audit(model, tiny.classify(model), optimizer=opt, inputs=tiny.batch())
        with self.assertRaises(AuditError) as cm:
            r.raise_if_errors()
        self.assertEqual([f.code for f in cm.exception.findings], ["TG302"])
        self.assertIn("fc1.weight", str(cm.exception))

    def test_hooks_are_removed(self):
        model, backward = broken_model(), torch.autograd.backward
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        audit(model, tiny.classify(model), optimizer=opt, inputs=tiny.batch())
        self.assertTrue(all(not m._forward_hooks and not m._forward_pre_hooks
                            for m in model.modules()))
        self.assertIs(torch.autograd.backward, backward)
        self.assertNotIn("step", vars(opt))

    def test_thresholds(self):
        model = tiny.MLP()
        r = audit(model, tiny.classify(model), inputs=tiny.batch(),
                  thresholds={"grad_norm_max": 1e-6})
        self.assertEqual([f.code for f in r.warnings], ["TG404"])


class Monitor(unittest.TestCase):
    def nan_model(self):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(8, 4), nn.Linear(4, 4))
        with torch.no_grad():
            model[1].weight[0, 0] = float("inf")
        return model

    def test_raise_names_the_module(self):
        model = self.nan_model()
        with monitor(model, on_nonfinite="raise"):
            with self.assertRaises(AuditError) as cm:
                model(torch.randn(2, 8))
        self.assertIn("module 1 (Linear)", str(cm.exception))

    def test_record_and_clean(self):
        model = self.nan_model()
        m = monitor(model, on_nonfinite="record")
        model(torch.randn(2, 8))
        m.remove()
        self.assertEqual([f.code for f in m.findings], ["TG402"])
        clean = monitor(tiny.MLP(), on_nonfinite="raise")
        clean.model(torch.randn(2, 8))
        self.assertEqual((clean.findings, clean.steps), ([], 1))

    def test_warn_and_gradients(self):
        model = tiny.MLP()
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        m = monitor(model, on_nonfinite="warn", optimizer=opt)
        loss = model(torch.randn(4, 8)).sum() * float("inf")
        loss.backward()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            opt.step()
        self.assertTrue(any("gradient holds NaN/Inf" in str(x.message) for x in w))
        m.remove()

    def test_max_steps_removes_hooks(self):
        model = tiny.MLP()
        m = monitor(model, max_steps=2)
        for _ in range(3):
            model(torch.randn(2, 8))
        self.assertEqual(m.steps, 2)
        self.assertFalse(model._forward_hooks)


class TrainerCallback(unittest.TestCase):
    """A minimal trainer loop calling the callback protocol the way Hugging Face
    transformers' Trainer does (CallbackHandler.call_event: each event called as
    event(args, state, control, model=..., optimizer=..., ...); on_train_begin
    after the optimizer exists, on_step_begin / on_pre_optimizer_step /
    on_optimizer_step / on_step_end around each step, control.should_training_stop
    read after on_step_end). transformers itself is not installed here."""

    class Control:
        should_training_stop = False

    def trainer_loop(self, model, opt, callback, steps=3):
        args, state, control = object(), object(), self.Control()
        kw = dict(model=model, optimizer=opt, lr_scheduler=None, train_dataloader=None,
                  processing_class=None)
        call = lambda event: getattr(callback, event)(args, state, control, **kw)
        call("on_init_end")
        call("on_train_begin")
        done = 0
        for _ in range(steps):
            call("on_epoch_begin")
            call("on_step_begin")
            x, y = tiny.batch()
            F.cross_entropy(model(x), y).backward()
            call("on_pre_optimizer_step")
            opt.step()
            call("on_optimizer_step")
            opt.zero_grad()
            call("on_step_end")
            done += 1
            if control.should_training_stop:
                break
        call("on_train_end")
        return done

    def test_clean_run_trains_on(self):
        model = tiny.MLP()
        cb = PfcAuditCallback(raise_on_error=True, log=None)
        self.assertEqual(self.trainer_loop(model, torch.optim.SGD(model.parameters(), 0.1), cb), 3)
        self.assertTrue(cb.report.ok)

    def test_error_raises(self):
        model = tiny.MLP()
        cb = PfcAuditCallback(raise_on_error=True, log=None)
        with self.assertRaises(AuditError):
            self.trainer_loop(model, torch.optim.SGD(model.fc2.parameters(), 0.1), cb)
        self.assertEqual([f.code for f in cb.report.errors], ["TG302"])

    def test_error_stops(self):
        model = tiny.MLP()
        cb = PfcAuditCallback(stop_on_error=True, log=None)
        self.assertEqual(self.trainer_loop(model, torch.optim.SGD(model.fc2.parameters(), 0.1),
                                           cb), 1)


class Runner(unittest.TestCase):
    def test_exactly_one_step(self):
        script = os.path.join(HERE, "cases", "step_counter.py")
        with open(script, "w") as f:
            f.write("import torch\nimport tiny\nsteps = []\nm = tiny.MLP()\n"
                    "opt = torch.optim.SGD(m.parameters(), 0.1)\n"
                    "sched = torch.optim.lr_scheduler.StepLR(opt, 1)\n"
                    "for i in range(5):\n    loss = tiny.classify(m)(*tiny.batch())\n"
                    "    loss.backward()\n    opt.step()\n    sched.step()\n"
                    "    steps.append(i)\n    print('stepped', i)\n")
        try:
            session, crash = run_script(script, [])
        finally:
            os.unlink(script)
        self.assertIsNone(crash)
        self.assertIsNotNone(session.stepped)
        self.assertEqual(session.backwards, 1)

    def test_crash_is_reported_with_its_line(self):
        script = os.path.join(HERE, "cases", "crasher.py")
        with open(script, "w") as f:
            f.write("import torch\nx = 1\nraise ValueError('broken data')\n")
        try:
            _, crash = run_script(script, [])
        finally:
            os.unlink(script)
        self.assertRegex(crash, r"^ValueError: broken data \(.*crasher.py:3\)$")


class WhereNonfiniteIsBorn(unittest.TestCase):
    """TG402 names where the first NaN/Inf came from, per case."""

    def message(self, case):
        from pfc_audit.checks import run_checks
        session, crash = run_script(os.path.join(HERE, "cases", case), [])
        self.assertIsNone(crash)
        return " | ".join(f.message for f in run_checks(session)[0] if f.code == "TG402")

    def test_each_origin(self):
        self.assertIn("first produced by module head (LogHead) from finite inputs",
                      self.message("nonfinite_module_bad.py"))
        self.assertIn("the batch given to MLP holds NaN/Inf", self.message("nonfinite_input_bad.py"))
        self.assertIn("the loss passed to backward() is NaN/Inf",
                      self.message("nonfinite_loss_bad.py"))
        self.assertIn("4 gradient(s) hold NaN/Inf before the step",
                      self.message("nonfinite_grad_bad.py"))
        self.assertIn("parameter(s) hold NaN/Inf after the step",
                      self.message("nonfinite_step_bad.py"))


@unittest.skipUnless(os.environ.get("PFC"), "needs $PFC (tests/audit.sh sets it)")
class CatalogAgreesWithExplain(unittest.TestCase):
    def test_names_and_severities(self):
        for code, (name, sev) in catalog.CODES.items():
            if not code.startswith("TG4"):
                continue
            out = subprocess.run([os.environ["PFC"], "explain", code], capture_output=True,
                                 text=True).stdout
            self.assertTrue(out.startswith("%s %s (%s;" % (code, name, sev)), out[:80])


if __name__ == "__main__":
    unittest.main()
