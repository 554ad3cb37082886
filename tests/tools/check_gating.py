#!/usr/bin/env python3
"""Check the version-gating corpus in tests/cases/gating against real CPythons.

Every file there starts with a line ``# min-version: 3.X`` naming the oldest
CPython whose ``ast.parse`` accepts the file.  For every interpreter given
(default: the pyenv 3.9-3.13 installs) this script runs ``ast.parse`` on the
file's bytes and checks that versions >= 3.X accept it and versions < 3.X
reject it with SyntaxError (or a subclass).  Any mismatch, malformed header,
missing interpreter or unexpected exception makes it exit with status 1.

Usage: check_gating.py [--dir DIR] [PYTHON ...]
"""
import os
import re
import subprocess
import sys

DEFAULT_PYTHONS = [
    "/root/.pyenv/versions/%s/bin/python3" % v
    for v in ("3.9.18", "3.10.13", "3.11.7", "3.12.1", "3.13.0")
]
HEADER = re.compile(rb"^# min-version: 3\.(\d+)\r?\n")

# Runs inside each interpreter: prints one line per file, "OK" or
# "SYNTAX <type> <lineno>:<offset>: <msg>" or "OTHER <type>: <msg>".
PROBE = r"""
import ast, sys
print("VERSION %d.%d" % sys.version_info[:2])
for path in sys.argv[1:]:
    with open(path, "rb") as fh:
        src = fh.read()
    try:
        ast.parse(src, filename=path)
    except SyntaxError as e:
        print("SYNTAX", type(e).__name__, "%s:%s: %s" % (e.lineno, e.offset, e.msg))
    except Exception as e:
        print("OTHER", type(e).__name__ + ":", str(e).replace("\n", " "))
    else:
        print("OK")
"""


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    case_dir = os.path.join(here, "..", "cases", "gating")
    if len(argv) >= 2 and argv[0] == "--dir":
        case_dir, argv = argv[1], argv[2:]
    pythons = argv or DEFAULT_PYTHONS

    failures = 0
    files = sorted(f for f in os.listdir(case_dir) if f.endswith(".py"))
    if not files:
        print("no gating cases found in", case_dir)
        return 1
    paths = [os.path.join(case_dir, f) for f in files]
    mins = {}
    for f, p in zip(files, paths):
        with open(p, "rb") as fh:
            m = HEADER.match(fh.read())
        if not m:
            print("FAIL %s: first line is not '# min-version: 3.X'" % f)
            failures += 1
        else:
            mins[f] = int(m.group(1))

    results = {}  # minor version -> list of result lines
    for py in pythons:
        try:
            out = subprocess.run([py, "-c", PROBE] + paths, capture_output=True,
                                 text=True, check=True, timeout=300).stdout
        except (OSError, subprocess.SubprocessError) as e:
            print("FAIL cannot run %s: %s" % (py, e))
            return 1
        lines = out.splitlines()
        minor = int(lines[0].split()[1].split(".")[1])
        if len(lines) != len(paths) + 1:
            print("FAIL %s printed %d result lines for %d files" % (py, len(lines) - 1, len(paths)))
            return 1
        results[minor] = lines[1:]
    versions = sorted(results)

    print("%-46s %-5s %s" % ("file", "min", " ".join("3.%d" % v for v in versions)))
    for i, f in enumerate(files):
        row = []
        for v in versions:
            res = results[v][i]
            accepted = res == "OK"
            cell = "ok" if accepted else ("--" if res.startswith("SYNTAX") else "??")
            if f in mins:
                want = v >= mins[f]
                if res.startswith("OTHER") or accepted != want:
                    cell += "!"
                    failures += 1
                    print("FAIL %s on 3.%d: expected %s, got %s"
                          % (f, v, "accept" if want else "reject", res))
            row.append(cell.ljust(4))
        print("%-46s %-5s %s" % (f, "3.%d" % mins[f] if f in mins else "?", " ".join(row)))
        if f in mins and mins[f] not in versions and mins[f] > versions[0]:
            print("FAIL %s: min-version 3.%d is not among the tested interpreters" % (f, mins[f]))
            failures += 1

    print("%d files, %d interpreters (%s), %d failures"
          % (len(files), len(versions), ", ".join("3.%d" % v for v in versions), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
