"""pfc estimate against the calibration measurements (shared/calibration).

Usage: python3 estimator_accuracy.py PFC CALIBRATION_DIR [--verbose]

1. The peak: for every script, pfc's projected allocated peak against the
   measured peak_allocated, the relative error, then the mean and worst
   absolute error. A script pfc cannot read is counted as a miss (100%) and
   listed, never skipped.
2. The exact components: trainable parameters vs opt_params, optimizer state
   vs opt_state_bytes, weights vs alloc_after_load - base_alloc.
3. Time per script (pfc's own wall time, one process per script)."""
import json
import os
import subprocess
import sys
import time

GIB = float(1 << 30)


def load(cal):
    measured = {}
    with open(os.path.join(cal, "measured.jsonl")) as f:
        for line in f:
            r = json.loads(line)
            if r.get("name") != "_env" and r.get("status", "ok") == "ok":
                measured[r["name"]] = r
    return measured


def run(pfc, path):
    t0 = time.perf_counter()
    out = subprocess.run([pfc, "estimate", "--json", path], capture_output=True, text=True)
    dt = time.perf_counter() - t0
    try:
        return json.loads(out.stdout), dt
    except ValueError:
        return {"error": "no JSON output (exit %d): %s" % (out.returncode, out.stderr.strip()[:200])}, dt


def message(err):
    """pfc's error object (or an older pfc's string)"""
    return err if isinstance(err, str) else err.get("message", str(err))


def peak_table(names, measured, results):
    print("%-38s %10s %10s %8s  %s" % ("script", "pfc GiB", "meas GiB", "error", "peak at"))
    errors, unread = [], []
    for name in names:
        e = results[name]
        want = measured[name]["peak_allocated"]
        if e.get("error"):
            unread.append(name)
            errors.append(1.0)
            print("%-38s %10s %10.2f %8s  not read: %s" % (name, "-", want / GIB, "miss", message(e["error"])[:80]))
            continue
        got = e["allocated_peak_bytes"]
        err = (got - want) / want
        errors.append(abs(err))
        print("%-38s %10.2f %10.2f %+7.1f%%  %s" % (name, got / GIB, want / GIB, 100 * err,
                                                   e.get("peak_phase", "")[:60]))
    mean = 100 * sum(errors) / len(errors)
    worst = 100 * max(errors)
    print("\npeak: %d scripts, %d not read; mean absolute error %.1f%%, worst %.1f%% "
          "(targets: every script read, mean <= 5%%, worst <= 15%%)" % (len(names), len(unread), mean, worst))
    within = sum(1 for x in errors if x <= 0.05)
    print("peak: %d of %d within 5%%, %d within 15%%" % (within, len(names), sum(1 for x in errors if x <= 0.15)))


def component_table(names, measured, results):
    exact = {"trainable": [0, 0], "optimizer state": [0, 0], "weights": [0, 0]}
    rel = {k: [] for k in exact}
    for name in names:
        e, m = results[name], measured[name]
        if e.get("error"):
            continue
        c = e.get("components", {})
        pairs = [("trainable", e["params_trainable"], m.get("opt_params")),
                 ("optimizer state", c.get("optimizer_state"), m.get("opt_state_bytes")),
                 ("weights", c.get("weights"),
                  m["alloc_after_load"] - m["base_alloc"] if m.get("alloc_after_load") else None)]
        for key, got, want in pairs:
            if want is None or got is None:
                continue
            exact[key][1] += 1
            exact[key][0] += got == want
            rel[key].append(abs(got - want) / want)
    for key, (ok, n) in exact.items():
        worst = 100 * max(rel[key]) if rel[key] else 0
        print("components: %-16s %2d of %2d exact, worst %.2f%%" % (key, ok, n, worst))


def main():
    pfc, cal = sys.argv[1], sys.argv[2]
    measured = load(cal)
    names = sorted(measured)
    results, times = {}, []
    for name in names:
        results[name], dt = run(pfc, os.path.join(cal, "scripts", name + ".py"))
        times.append(dt)
    peak_table(names, measured, results)
    component_table(names, measured, results)
    print("time: %.1f ms per script on average, %.1f ms at most (one pfc process each, remedies included)"
          % (1000 * sum(times) / len(times), 1000 * max(times)))


if __name__ == "__main__":
    main()
