#!/usr/bin/env bash
# pfc's notebook reading against Python's, on every .ipynb of a corpus of real
# repositories (not part of make test: the corpus is never committed).
#  - JSON: `pfc debug-json` prints each file's JSON in a canonical form; a
#    Python writer prints json.loads' reading in the same form (numbers as
#    written, strings escaped as json.dumps(ensure_ascii=False) escapes them).
#  - Cells: `pfc dump-notebook` must hold the code cells joined in order, line
#    for line as Python joins them, except lines blanked for IPython syntax,
#    which must be IPython syntax (%, !, ?, `x = !cmd`, a cell magic's body).
#  - Parsing: pfc lint reports E999 on a notebook exactly when CPython's
#    ast.parse rejects its joined source.
# Usage: CORPUS=/path/to/corpus PFC=build/pfc tests/notebook_corpus.sh
set -u
PFC=${PFC:-./pfc}
CORPUS=${CORPUS:-tests/realworld/corpus}
if [ ! -d "$CORPUS" ]; then
    echo "skip notebook corpus: no corpus at $CORPUS (set CORPUS=...)"
    echo "notebook_corpus: 0 passed, 0 failed, 1 skipped"
    exit 0
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
find "$CORPUS" -name '*.ipynb' -type f | sort > "$TMP/files"
echo "notebooks: $(wc -l < "$TMP/files") under $CORPUS"
PFC=$PFC python3 - "$TMP/files" "$TMP" <<'EOF'
import ast, json, os, re, subprocess, sys

files = open(sys.argv[1]).read().split("\n")[:-1]
tmp = sys.argv[2]
pfc = os.environ["PFC"]

class Raw(str):
    pass

def canon(v):
    if isinstance(v, Raw):
        return str(v)
    if v is None:
        return "null"
    if v is True or v is False:
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ", ".join(canon(x) for x in v) + "]"
    return "{" + ", ".join(json.dumps(k, ensure_ascii=False) + ": " + canon(x)
                           for k, x in v.items()) + "}"

def python_reading(path):
    try:
        return canon(json.loads(open(path, "rb").read(), parse_int=Raw, parse_float=Raw,
                                parse_constant=Raw))
    except (ValueError, UnicodeDecodeError) as e:
        return "error"

IPYTHON = re.compile(r"^\s*([%!?]|[\w.]+\?{1,2}\s*$|\w+\s*=\s*[!%])")

def cells_of(path):
    nb = json.loads(open(path, "rb").read())
    lang = (nb.get("metadata", {}).get("kernelspec", {}).get("language")
            or nb.get("metadata", {}).get("language_info", {}).get("name") or "python")
    if "cells" not in nb or lang.lower() not in ("python", "python3"):
        return None
    out = []
    for c in nb["cells"]:
        if c.get("cell_type") == "code":
            s = c["source"]
            out.append("".join(s) if isinstance(s, list) else s)
    return out

def check_cells(path, joined):
    """Lines that differ from Python's join and are not IPython syntax."""
    cells = cells_of(path)
    if cells is None:
        return [], 0
    bad, blanked = [], 0
    mine = joined.split("\n")
    theirs = "\n".join(c for c in cells).split("\n") if cells else []
    theirs = ("\n".join(cells) + "\n").split("\n") if cells else [""]
    if len(mine) != len(theirs):
        return ["%d lines, Python has %d" % (len(mine), len(theirs))], 0
    cell_magic = False
    for a, b in zip(mine, theirs):
        if a == b:
            continue
        blanked += 1
        if b.startswith("%%"):
            cell_magic = True
        if not (a.strip() in ("", "0") or IPYTHON.search(b) or cell_magic or
                re.match(r"^\s*\w+\s*=\s*0\s*$", a)):
            bad.append(repr(b)[:80])
    return bad, blanked

json_ok = json_bad = cells_ok = cells_bad = parse_agree = parse_disagree = skipped = 0
blanked_lines = 0
for path in files:
    mine = subprocess.run([pfc, "debug-json", path], capture_output=True).stdout
    mine = mine.decode("utf-8", "surrogateescape").rstrip("\n").split("\t", 2)
    want = python_reading(path)
    got = mine[2] if len(mine) == 3 and mine[1] == "ok" else "error"
    if got == want:
        json_ok += 1
    else:
        json_bad += 1
        print("FAIL json %s: pfc %s" % (path, got[:120] if got == "error" else "differs"))
    if want == "error":
        continue
    dump = subprocess.run([pfc, "dump-notebook", path], capture_output=True)
    if dump.returncode != 0:
        cells_bad += 1
        print("FAIL cells %s: %s" % (path, dump.stderr.decode()[:200]))
        continue
    joined = dump.stdout.decode("utf-8", "surrogateescape")
    if cells_of(path) is None:
        skipped += 1
        continue
    bad, n = check_cells(path, joined)
    blanked_lines += n
    if bad:
        cells_bad += 1
        print("FAIL cells %s: %s" % (path, "; ".join(bad[:3])))
    else:
        cells_ok += 1
    lint = subprocess.run([pfc, "lint", "--no-cache", "--select", "E999", "--output-format",
                           "concise", path], capture_output=True).stdout.decode()
    pfc_error = " E999 " in lint
    try:
        ast.parse(joined)
        py_error = False
    except (SyntaxError, ValueError):
        py_error = True
    if pfc_error == py_error:
        parse_agree += 1
    else:
        parse_disagree += 1
        print("FAIL parse %s: pfc %s, ast.parse %s" % (path, "E999" if pfc_error else "clean",
                                                       "error" if py_error else "clean"))
# --fix --unsafe-fixes on copies: each fixed notebook must still be JSON that
# differs from the original only in code cells' sources, and still parse
fix_dir = os.path.join(tmp, "fix")
fixed_ok = fixed_bad = 0
for i, path in enumerate(files):
    os.makedirs(os.path.join(fix_dir, str(i)))
    with open(path, "rb") as f, open(os.path.join(fix_dir, str(i), "nb.ipynb"), "wb") as g:
        g.write(f.read())
subprocess.run([pfc, "lint", "--no-cache", "--fix", "--unsafe-fixes", fix_dir], capture_output=True)
for i, path in enumerate(files):
    before = open(path, "rb").read()
    copy = os.path.join(fix_dir, str(i), "nb.ipynb")
    after = open(copy, "rb").read()
    if before == after:
        continue
    try:
        a, b = json.loads(before), json.loads(after)
    except ValueError as e:
        fixed_bad += 1
        print("FAIL fix %s: the fixed notebook is not JSON: %s" % (path, e))
        continue
    sources = [c["source"] for c in b["cells"] if c.get("cell_type") == "code"]
    for c in a["cells"] + b["cells"]:
        if c.get("cell_type") == "code":
            c["source"] = None
    lint = subprocess.run([pfc, "lint", "--no-cache", "--select", "E999", copy],
                          capture_output=True).stdout.decode()
    if a != b:
        fixed_bad += 1
        print("FAIL fix %s: more than code cells' sources changed" % path)
    elif "E999" in lint:
        fixed_bad += 1
        print("FAIL fix %s: the fixed notebook does not parse" % path)
    else:
        fixed_ok += 1
print("json: %d agree with Python's json, %d differ" % (json_ok, json_bad))
print("cells: %d joined as Python joins them (%d lines blanked as IPython syntax), %d differ, "
      "%d skipped (another language or nbformat 3)" % (cells_ok, blanked_lines, cells_bad, skipped))
print("parse: %d agree with ast.parse on the joined source, %d differ" % (parse_agree, parse_disagree))
passed = json_ok + cells_ok + parse_agree + fixed_ok
failed = json_bad + cells_bad + parse_disagree + fixed_bad
print("fix: %d notebooks fixed, only code cells' sources changed, still parse; %d wrong"
      % (fixed_ok, fixed_bad))
print("notebook_corpus: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
EOF
