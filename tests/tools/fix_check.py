#!/usr/bin/env python3
"""Checks that pfc's fixes keep the meaning of the code, on any tree.

    fix_check.py [--pfc PFC] [--context-pfc PFC] [--unsafe] [--select CODES] [--name NAME] PATH...

Each PATH (a directory or a .py file) is copied to a temporary directory and
fixed there with `pfc lint --fix` (`--unsafe-fixes` too with --unsafe). Then:

  parse     every fixed file parses: `pfc dump-cst` exits 0, and CPython's
            ast.parse accepts it whenever it accepts the original
  idempotent  a second --fix changes nothing
  edits     every line the fix changed lies inside an edit of a fix pfc
            offered for that file (`--output-format json` before fixing), and
            each edit sits where its finding is: inside the finding's lines
            for TG001, TG005, TG304 (the stored expression, the loss's
            argument, the attribute), around the finding for TG003 (the
            wrapped loop or the decorated function), after the finding for
            TG002 and TG006 (an inserted line), in the call or at an import
            for TG004
  detach    no `.detach()` is called on what cannot be a tensor: a list,
            tuple, dict or set display, a comprehension, a literal (counted
            with ast, fixed file against the original)
  context   no changed line lies in a function `pfc debug-context` lists as
            model or test code, or as one fixes must not edit

Prints `ok NAME ...` / `FAIL NAME: ...` lines and a last line
`NAME: N passed, M failed`; exits 1 on any failure.
"""
import argparse
import ast
import difflib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings

IN_PLACE = {"TG001", "TG005", "TG304", "TG305"}
# Fixes whose finding is in model code and whose edit stays inside the
# finding's call: TG305 passes the module's own mode (`training=self.training`)
# to F.dropout in forward; it changes no grad mode.
MODEL_CODE_FIXES = ("TG305",)


def python_files(root):
    if os.path.isfile(root):
        return [os.path.basename(root)]
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith("."))
        for f in sorted(files):
            if f.endswith(".py"):
                out.append(os.path.relpath(os.path.join(d, f), root))
    return out


def copy_tree(root, files, dest):
    base = root if os.path.isdir(root) else os.path.dirname(root) or "."
    for rel in files:
        os.makedirs(os.path.join(dest, os.path.dirname(rel)), exist_ok=True)
        shutil.copyfile(os.path.join(base, rel), os.path.join(dest, rel))


def read(path):
    with open(path, "rb") as f:
        return f.read()


def run_pfc(pfc, args, cwd):
    return subprocess.run([pfc] + args, cwd=cwd, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE)


def lint_args(opts):
    a = ["lint", "--no-cache"]
    if opts.select:
        a += ["--select", opts.select]
    return a


def offered_fixes(pfc, opts, work):
    """{relative path: [(finding, fix)]} for the fixes --fix would apply."""
    r = run_pfc(pfc, lint_args(opts) + ["--output-format", "json", "."], work)
    try:
        findings = json.loads(r.stdout.decode("utf-8", "replace") or "[]")
    except ValueError:
        return None
    out = {}
    for fd in findings:
        fix = fd.get("fix")
        if not fix or (fix["applicability"] != "safe" and not opts.unsafe):
            continue
        out.setdefault(os.path.normpath(fd["filename"]), []).append((fd, fix))
    return out


def fix_in_place(pfc, opts, work):
    extra = ["--fix"] + (["--unsafe-fixes"] if opts.unsafe else [])
    run_pfc(pfc, lint_args(opts) + extra + ["."], work)


def py_parses(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ast.parse(data)
            return True
        except (SyntaxError, ValueError):
            return False


def split_lines(data):
    return data.decode("utf-8", "surrogateescape").splitlines(True)


def changes(before, after):
    """[(kind, first, last, inserted)] over the original's 1-based lines; an
    insertion before line r is ("insert", r, r, lines)."""
    a, b = split_lines(before), split_lines(after)
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        if op == "insert":
            out.append(("insert", i1 + 1, i1 + 1, b[j1:j2]))
        else:
            out.append((op, i1 + 1, i2, b[j1:j2]))
    return out


def edit_rows(fix):
    for e in fix["edits"]:
        yield e["location"]["row"], e["end_location"]["row"], e["content"]


def covered(change, fixes):
    """Does one changed region lie inside the edits of the offered fixes?"""
    kind, first, last, _ = change
    for _, fix in fixes:
        for r0, r1, _content in edit_rows(fix):
            if kind == "insert":
                if r0 - 1 <= first <= r1 + 1:
                    return True
            elif r0 <= first and last <= max(r1, r0):
                return True
    # several edits of several fixes may make one replaced block
    rows = set()
    for _, fix in fixes:
        for r0, r1, _content in edit_rows(fix):
            rows.update(range(r0, r1 + 1))
    return kind != "insert" and all(r in rows for r in range(first, last + 1))


def misplaced_edit(fd, fix):
    """Why an edit of this fix is not where its finding is, or None."""
    code, row, end = fd["code"], fd["location"]["row"], fd["end_location"]["row"]
    rows = [(r0, r1) for r0, r1, _ in edit_rows(fix)]
    lo, hi = min(r for r, _ in rows), max(r for _, r in rows)
    if code in IN_PLACE:
        if lo < row or hi > end:
            return "edits rows %d-%d outside its finding's rows %d-%d" % (lo, hi, row, end)
    elif code == "TG003":
        if not lo <= row:
            return "the no_grad edit (row %d) is not above its finding (row %d)" % (lo, row)
        if len(rows) > 1 and hi < row:
            return "the wrapped rows %d-%d do not hold its finding (row %d)" % (lo, hi, row)
    elif code in ("TG002", "TG006"):
        for r0, _r1, content in edit_rows(fix):
            at_eof = r0 >= end and content[:1] in ("\n", "\r")   # after a last line
            if r0 <= row and not at_eof:
                return "the inserted line (row %d) is not after its finding (row %d)" % (r0, row)
    elif code == "TG004":
        for r0, r1, content in edit_rows(fix):
            if not (row <= r0 <= end + 1 or content.strip() == "import os"):
                return "edit at row %d outside the DataLoader call (rows %d-%d)" % (r0, row, end)
    return None


NOT_TENSORS = (ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp, ast.SetComp,
               ast.DictComp, ast.GeneratorExp, ast.Constant, ast.JoinedStr)


def detach_on_non_tensors(data):
    """How many `.detach()` calls apply to a display or a literal; None when
    CPython cannot parse the source."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            tree = ast.parse(data)
        except (SyntaxError, ValueError):
            return None
    return sum(1 for n in ast.walk(tree)
               if isinstance(n, ast.Attribute) and n.attr == "detach" and
               isinstance(n.value, NOT_TENSORS))


def contexts(pfc, path):
    """[(first, last, context, fixable, name)] of the functions of a file."""
    r = run_pfc(pfc, ["debug-context", path], None)
    out = []
    for line in r.stdout.decode("utf-8", "replace").splitlines():
        try:
            head, rest = line.rsplit(": ", 1)
            span = head.rsplit(":", 1)[1]
            first, last = (int(x) for x in span.split("-"))
            context, fixable, name = rest.split(" ", 2)
        except (IndexError, ValueError):
            continue
        out.append((first, last, context, fixable, name))
    return out


def forbidden_function(change, funcs):
    """The model/test/no-fix function a changed region lies in, or None."""
    kind, first, last, inserted = change
    decorator = kind == "insert" and inserted and inserted[0].lstrip().startswith("@")
    for f0, f1, context, fixable, name in funcs:
        if context == "other" and fixable == "fixable":
            continue
        if kind == "insert":
            inside = f0 < first <= f1 or (decorator and first == f0)
        else:
            inside = first <= f1 and last >= f0
        if inside:
            return "%s (%s, %s, lines %d-%d)" % (name, context, fixable, f0, f1)
    return None


class Report:
    def __init__(self, name):
        self.name, self.passed, self.failed = name, 0, 0

    def ok(self, what):
        print("ok   %s %s" % (self.name, what))
        self.passed += 1

    def fail(self, what, why):
        print("FAIL %s %s: %s" % (self.name, what, why))
        self.failed += 1

    def check(self, what, problems, limit=20):
        if not problems:
            self.ok(what)
            return
        for p in problems[:limit]:
            self.fail(what, p)
        if len(problems) > limit:
            print("     ... and %d more" % (len(problems) - limit))


def check_tree(pfc, opts, root, rep, tmp):
    files = python_files(root)
    label = "%s [%s]" % (root, "--fix --unsafe-fixes" if opts.unsafe else "--fix")
    orig = os.path.join(tmp, "orig")
    work = os.path.join(tmp, "work")
    for d in (orig, work):
        shutil.rmtree(d, ignore_errors=True)
        copy_tree(root, files, d)
    offered = offered_fixes(pfc, opts, work)
    if offered is None:
        rep.fail(label, "pfc --output-format json did not give JSON")
        return
    fix_in_place(pfc, opts, work)
    changed = [f for f in files if read(os.path.join(orig, f)) != read(os.path.join(work, f))]
    once = {f: read(os.path.join(work, f)) for f in changed}
    fix_in_place(pfc, opts, work)
    rep.check("%s: a second run changes nothing (%d files fixed)" % (label, len(changed)),
              [f for f in files
               if read(os.path.join(work, f)) != once.get(f, read(os.path.join(orig, f)))])
    parse, edits, context, placed, detach = [], [], [], [], []
    for f in changed:
        before, after = read(os.path.join(orig, f)), once[f]
        if run_pfc(pfc, ["dump-cst", os.path.join(work, f)], None).returncode != 0:
            parse.append("%s: pfc dump-cst reports a syntax error" % f)
        if py_parses(before) and not py_parses(after):
            parse.append("%s: CPython %d.%d's ast.parse rejects it" % (f, *sys.version_info[:2]))
        was, now = detach_on_non_tensors(before), detach_on_non_tensors(after)
        if was is not None and now is not None and now > was:
            detach.append("%s: %d .detach() on a display or literal" % (f, now - was))
        fixes = offered.get(os.path.normpath(f), [])
        funcs = contexts(opts.context_pfc, os.path.join(orig, f))
        for ch in changes(before, after):
            if not covered(ch, fixes):
                edits.append("%s:%d-%d changed outside every fix's edits" % (f, ch[1], ch[2]))
            where = forbidden_function(ch, funcs)
            if where and covered(ch, [(fd, fx) for fd, fx in fixes
                                      if fd["code"] in MODEL_CODE_FIXES]):
                where = None
            if where:
                context.append("%s:%d: a fix edits %s" % (f, ch[1], where))
        for fd, fix in fixes:
            why = misplaced_edit(fd, fix)
            if why:
                placed.append("%s:%d: %s %s" % (f, fd["location"]["row"], fd["code"], why))
    rep.check("%s: every fixed file parses (pfc, CPython)" % label, parse)
    rep.check("%s: the diff stays inside the fixes' edits" % label, edits)
    rep.check("%s: each edit is where its finding is" % label, placed)
    rep.check("%s: no .detach() on a list, tuple or literal" % label, detach)
    rep.check("%s: no edit in model, test or no-fix code" % label, context)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pfc", default=os.environ.get("PFC", "./pfc"))
    ap.add_argument("--context-pfc", help="the pfc whose debug-context classifies functions "
                    "(default: --pfc; another when --pfc is an older binary without it)")
    ap.add_argument("--unsafe", action="store_true")
    ap.add_argument("--select")
    ap.add_argument("--name", default="fix_check")
    ap.add_argument("paths", nargs="+")
    opts = ap.parse_args()
    pfc = os.path.abspath(opts.pfc)
    opts.context_pfc = os.path.abspath(opts.context_pfc or opts.pfc)
    rep = Report(opts.name)
    with tempfile.TemporaryDirectory() as tmp:
        for p in opts.paths:
            check_tree(pfc, opts, p, rep, tmp)
    print("%s: %d passed, %d failed" % (opts.name, rep.passed, rep.failed))
    return 1 if rep.failed else 0


if __name__ == "__main__":
    sys.exit(main())
