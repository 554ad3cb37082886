#!/usr/bin/env python3
"""The findings of pfc must not depend on the order in which functions are
defined. For every given file, the runs of consecutive `def` statements (at
module level and in class bodies, with their decorators and the comments that
follow them) are reversed and shuffled; that keeps what the file means, since
every name is still bound before module-level code runs. Each variant is
linted, its finding lines are mapped back to the original's, and the findings
must be the same. Prints one line per failure and a summary line.

usage: check_order.py PFC TMPDIR FILE...
"""
import ast
import os
import random
import subprocess
import sys

DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def first_line(node):
    return min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]) - 1


def body_ranges(body, end):
    """0-based, end-exclusive line ranges of the statements of one body."""
    starts = [first_line(n) for n in body]
    return [(s, starts[i + 1] if i + 1 < len(starts) else end) for i, s in enumerate(starts)]


def permutation(body, end, mode, rng):
    """Line order of one body (recursing into classes), runs of defs permuted."""
    ranges = body_ranges(body, end)
    order = list(range(len(body)))
    i = 0
    while i < len(order):
        j = i
        while j < len(order) and isinstance(body[j], DEFS):
            j += 1
        if j - i > 1:
            run = order[i:j]
            run.reverse() if mode == "reverse" else rng.shuffle(run)
            order[i:j] = run
        i = max(j, i + 1)
    lines = []
    for k in order:
        s, e = ranges[k]
        node = body[k]
        if isinstance(node, ast.ClassDef) and node.body:
            inner_start = first_line(node.body[0])
            lines.extend(range(s, inner_start))
            lines.extend(permutation(node.body, e, mode, rng))
        else:
            lines.extend(range(s, e))
    return lines


def variant(text, mode):
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    head = first_line(tree.body[0]) if tree.body else len(lines)
    order = list(range(head)) + permutation(tree.body, len(lines), mode, random.Random(mode))
    return "".join(lines[i] for i in order), order


def findings(pfc, path, order=None):
    out = subprocess.run([pfc, "lint", "--no-cache", "--output-format", "concise", path],
                         capture_output=True, text=True).stdout
    result = []
    for line in out.splitlines():
        if not line.startswith(path + ":"):
            continue
        rest = line[len(path) + 1:]
        num, _, tail = rest.partition(":")
        if not num.isdigit():
            continue
        n = int(num)
        if order is not None:
            n = order[n - 1] + 1
        result.append(f"{n}:{tail}")
    return sorted(result)


def main():
    pfc, tmp, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    passed = failed = 0
    path = os.path.join(tmp, "case.py")
    for f in files:
        text = open(f, encoding="utf-8").read()
        try:
            variants = [variant(text, m) for m in ("reverse", "1", "2")]
        except SyntaxError:
            continue
        variants = [(t, o) for t, o in variants if t != text]
        if not variants:
            continue
        open(path, "w", encoding="utf-8").write(text)
        want = findings(pfc, path)
        bad = []
        for t, order in variants:
            open(path, "w", encoding="utf-8").write(t)
            got = findings(pfc, path, order)
            if got != want:
                bad.append((got, want))
        if bad:
            failed += 1
            got, want = bad[0]
            print(f"FAIL {f}: findings change when its functions are reordered: "
                  f"{sorted(set(got) ^ set(want))[:3]}")
        else:
            passed += 1
    print(f"order: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
