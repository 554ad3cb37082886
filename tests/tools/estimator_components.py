"""Compares pfc estimate's exact components with the calibration measurements.

Usage: python3 estimator_components.py PFC CALIBRATION_DIR
For every script: trainable parameters vs opt_params, optimizer state vs
opt_state_bytes, weights vs alloc_after_load - base_alloc. Prints one row per
script, then how many matched exactly and how many scripts pfc could not read
(counted, never skipped)."""
import json
import os
import subprocess
import sys


def main():
    pfc, cal = sys.argv[1], sys.argv[2]
    measured = {}
    with open(os.path.join(cal, "measured.jsonl")) as f:
        for line in f:
            r = json.loads(line)
            measured[r["name"]] = r
    names = sorted(n for n in measured if n != "_env")
    exact = {"trainable": [0, 0], "optimizer": [0, 0], "weights": [0, 0]}
    unread = []
    print("%-38s %-22s %-22s %-22s" % ("script", "trainable pfc/meas", "opt state pfc/meas",
                                       "weights pfc/meas"))
    for name in names:
        m = measured[name]
        path = os.path.join(cal, "scripts", name + ".py")
        out = subprocess.run([pfc, "estimate", "--json", path], capture_output=True, text=True)
        try:
            e = json.loads(out.stdout)
        except ValueError:
            e = {"error": "no JSON"}
        if e.get("error"):
            unread.append((name, e["error"]))
            print("%-38s not read: %s" % (name, e["error"][:70]))
            continue
        row = [name]
        pairs = [("trainable", e["params_trainable"], m.get("opt_params")),
                 ("optimizer", e["breakdown"]["optimizer_state"], m.get("opt_state_bytes")),
                 ("weights", e["breakdown"]["weights"],
                  m["alloc_after_load"] - m["base_alloc"] if m.get("alloc_after_load") else None)]
        for key, got, want in pairs:
            if want is None:
                row.append("%d/-" % got)
                continue
            exact[key][1] += 1
            exact[key][0] += got == want
            row.append("%d/%d%s" % (got, want, "" if got == want else " (%+.2f%%)" % (100.0 * (got - want) / want)))
        print("%-38s %-22s %-22s %-22s" % tuple(row))
    for key, (ok, n) in exact.items():
        print("%s: %d of %d exact" % (key, ok, n))
    print("scripts not read: %d of %d" % (len(unread), len(names)))


if __name__ == "__main__":
    main()
