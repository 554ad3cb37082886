#!/usr/bin/env python3
"""Check tests/cases/parse and tests/cases/errors against a real CPython 3.13.

parse/:  every *.py must be accepted by ast.parse (file read as bytes).
errors/: every *.py must be rejected by ast.parse with a SyntaxError (or a
         subclass) whose "lineno:offset: msg" equals the text after
         "# expect: " on the file's first line.  A missing lineno/offset is
         written as 0 (CPython gives None for the null-byte check).
Exits with status 1 on any mismatch.

Usage: check_cases.py [PYTHON]   (default: pyenv 3.13.0)
"""
import json
import os
import subprocess
import sys

DEFAULT_PYTHON = "/root/.pyenv/versions/3.13.0/bin/python3"

PROBE = r"""
import ast, json, sys
res = {"version": "%d.%d" % sys.version_info[:2], "files": {}}
for path in sys.argv[1:]:
    with open(path, "rb") as fh:
        src = fh.read()
    try:
        ast.parse(src, filename=path)
    except SyntaxError as e:
        r = {"status": "reject", "type": type(e).__name__,
             "got": "%d:%d: %s" % (e.lineno or 0, e.offset or 0, e.msg)}
    except Exception as e:
        r = {"status": "other", "type": type(e).__name__, "got": str(e)}
    else:
        r = {"status": "accept"}
    res["files"][path] = r
print(json.dumps(res))
"""


def expectation(path):
    with open(path, "rb") as fh:
        first = fh.read().split(b"\n", 1)[0].rstrip(b"\r")
    prefix = b"# expect: "
    if not first.startswith(prefix):
        return None
    return first[len(prefix):].decode("utf-8")


def main(argv):
    py = argv[0] if argv else DEFAULT_PYTHON
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cases")
    groups = {}
    for group in ("parse", "errors"):
        d = os.path.join(root, group)
        groups[group] = sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".py"))
    out = subprocess.run([py, "-c", PROBE] + groups["parse"] + groups["errors"],
                         capture_output=True, text=True, check=True).stdout
    res = json.loads(out)
    print("interpreter:", py, "(%s)" % res["version"])
    failures = 0

    for p in groups["parse"]:
        r = res["files"][p]
        ok = r["status"] == "accept"
        failures += not ok
        print("%s parse/%s%s" % ("ok  " if ok else "FAIL", os.path.basename(p),
                                 "" if ok else "  -> %s %s" % (r.get("type"), r.get("got"))))

    for p in groups["errors"]:
        r = res["files"][p]
        want = expectation(p)
        ok = r["status"] == "reject" and want is not None and r["got"] == want
        failures += not ok
        line = "%s errors/%s: %s %s" % ("ok  " if ok else "FAIL", os.path.basename(p),
                                          r.get("type", r["status"]), r.get("got", ""))
        if not ok:
            line += "\n       expected: %s" % want
        print(line)

    print("%d parse files, %d error files, %d failures"
          % (len(groups["parse"]), len(groups["errors"]), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
