#!/usr/bin/env bash
# Jupyter notebooks (tests/cases/notebook/): pfc lint reads the code cells
# joined in order with IPython syntax blanked, reports cell coordinates in
# every format, --fix and --diff rewrite only the edited cells' sources, and
# broken, empty, markdown-only and non-Python notebooks each end as they should.
# Expected outputs sit beside the notebooks (NAME.EXT); UPDATE=1 rewrites them.
set -u
PFC=${PFC:-./pfc}
PFC=$(cd "$(dirname "$PFC")" && pwd)/$(basename "$PFC")
cd "$(dirname "$0")/.."
CASES=$PWD/tests/cases/notebook
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0 failed=0
ok() { echo "ok   $1"; passed=$((passed + 1)); }
bad() { echo "FAIL $1: $2"; failed=$((failed + 1)); }

# golden NAME ACTUAL EXPECTED: the output must equal the file beside the notebooks
golden() {
    [ "${UPDATE:-0}" = 1 ] && cp "$2" "$3"
    if [ ! -f "$3" ]; then
        bad "$1" "missing $3 (run UPDATE=1)"
    elif cmp -s "$2" "$3"; then
        ok "$1"
    else
        bad "$1" "differs from $3: $(diff "$3" "$2" | head -6 | tr '\n' ' ')"
    fi
}

# run NAME ARGS...: pfc in a copy of the notebooks, output and status in $TMP/NAME
run() {
    local name=$1
    shift
    rm -rf "$TMP/nb"
    cp -r "$CASES" "$TMP/nb"
    (cd "$TMP/nb" && "$PFC" "$@" > "$TMP/$name.out" 2> "$TMP/$name.err"; echo $? > "$TMP/$name.rc")
    { cat "$TMP/$name.out" "$TMP/$name.err"; echo "exit $(cat "$TMP/$name.rc")"; } > "$TMP/$name"
}

run full lint --no-cache train.ipynb
golden "findings in cell coordinates (full)" "$TMP/full" "$CASES/train.findings"
run concise lint --no-cache --output-format concise train.ipynb
golden "findings in cell coordinates (concise, as ruff prints them)" "$TMP/concise" "$CASES/train.concise"
run json lint --no-cache --output-format json train.ipynb
golden "JSON: \"cell\" and rows within the cell" "$TMP/json" "$CASES/train.json"
run github lint --no-cache --output-format github train.ipynb
golden "github: the .ipynb line, the cell's coordinates in the message" "$TMP/github" "$CASES/train.github"
run sarif lint --no-cache --output-format sarif train.ipynb
grep -A2 '"results"' "$TMP/sarif.out" > "$TMP/sarif.results"
# and the documents must still parse (python3's json is the judge)
for f in sarif json; do
    python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$TMP/$f.out" 2>/dev/null ||
        echo "$f output does not parse" >> "$TMP/sarif.results"
done
golden "SARIF: the .ipynb region, the cell's coordinates in properties" "$TMP/sarif.results" "$CASES/train.sarif"

run joined dump-notebook train.ipynb
golden "code cells joined in order, magics, shell escapes and help blanked" "$TMP/joined" "$CASES/train.joined"

# --fix: the file must be what Jupyter writes for the notebook with that one
# line changed (json.dumps with the file's indent and escaping), and the
# golden file pins it byte for byte
check_fix() {   # check_fix NOTEBOOK INDENT ASCII CELL LINE NEW_TEXT
    run "fix_$1" lint --no-cache --fix "$1.ipynb"
    cp "$TMP/nb/$1.ipynb" "$TMP/$1.fixed"
    golden "--fix $1.ipynb (byte for byte)" "$TMP/$1.fixed" "$CASES/$1.fixed.ipynb"
    if python3 - "$CASES/$1.ipynb" "$TMP/$1.fixed" "$2" "$3" "$4" "$5" "$6" <<'EOF'
import json, sys
old, new, indent, ascii, cell, line, text = sys.argv[1:]
nb = json.load(open(old, encoding="utf-8"))
nb["cells"][int(cell) - 1]["source"][int(line) - 1] = text + "\n"
want = json.dumps(nb, indent=int(indent), ensure_ascii=ascii == "1") + "\n"
sys.exit(0 if open(new, encoding="utf-8").read() == want else 1)
EOF
    then ok "--fix $1.ipynb: only the edited cell changes, as Jupyter would write it"
    else bad "--fix $1.ipynb: only the edited cell changes, as Jupyter would write it" \
             "the file differs from json.dumps of the fixed notebook"; fi
    grep -q "Fixed 1 problem" "$TMP/fix_$1" && grep -q "^exit 0" "$TMP/fix_$1" &&
        ok "--fix $1.ipynb: fixed, then clean" || bad "--fix $1.ipynb: fixed, then clean" "$(cat "$TMP/fix_$1")"
}
check_fix train 1 0 5 7 "    losses.append(loss.detach())  # per step"
check_fix ascii_escapes 2 1 3 7 "    losses.append(loss.detach())  # perte — par étape"

run diff lint --no-cache --diff train.ipynb
cmp -s "$TMP/nb/train.ipynb" "$CASES/train.ipynb" || echo "train.ipynb changed" >> "$TMP/diff"
golden "--diff: a diff of the .ipynb's source lines, the notebook left alone" "$TMP/diff" "$CASES/train.diff"

run magic_first lint --no-cache --diff --unsafe-fixes cell_magic_first.ipynb
golden "--diff with an import added: it goes into a Python cell, not before a cell magic" \
       "$TMP/magic_first" "$CASES/cell_magic_first.diff"

run malformed lint --no-cache --output-format concise malformed.ipynb invalid_utf8.ipynb train.ipynb
golden "malformed notebooks: E902 with line and column, exit 2, the other files linted" \
       "$TMP/malformed" "$CASES/malformed.out"

run syntax lint --no-cache --output-format concise syntax_error.ipynb
golden "syntax errors: in cell coordinates, their messages naming the cell's lines" \
       "$TMP/syntax" "$CASES/syntax_error.out"

run empty lint --no-cache empty.ipynb markdown_only.ipynb
run empty_dump dump-notebook empty.ipynb
run md_dump dump-notebook markdown_only.ipynb
if [ "$(cat "$TMP/empty")" = "All checks passed!
exit 0" ] && [ "$(cat "$TMP/empty_dump")" = "exit 0" ] && [ "$(cat "$TMP/md_dump")" = "exit 0" ]; then
    ok "an empty notebook and a markdown-only one: no code, all checks passed"
else
    bad "an empty notebook and a markdown-only one: no code, all checks passed" \
        "$(cat "$TMP/empty" "$TMP/empty_dump" "$TMP/md_dump" | tr '\n' ' ')"
fi

run kernel lint --no-cache r_kernel.ipynb
golden "a notebook of another language: skipped with a note" "$TMP/kernel" "$CASES/r_kernel.out"

# walking: notebooks are found in directories, checkpoints and excludes skipped
mkdir -p "$TMP/walk/.ipynb_checkpoints" "$TMP/walk/sub"
cp "$CASES/train.ipynb" "$TMP/walk/sub/"
cp "$CASES/train.ipynb" "$TMP/walk/.ipynb_checkpoints/train-checkpoint.ipynb"
cp "$CASES/train.ipynb" "$TMP/walk/sub/excluded.ipynb"
printf '[tool.pfc]\nexclude = ["sub/excluded.ipynb"]\n' > "$TMP/walk/pyproject.toml"
out=$(cd "$TMP/walk" && "$PFC" lint --no-cache --output-format concise 2>&1)
if [ "$out" = "sub/train.ipynb:cell 5:7:19: TG001 $(sed -n 's/^train.ipynb:cell 5:7:19: TG001 //p' "$TMP/concise")
Found 1 problem in 1 file.
[*] 1 fixable with the \`--fix\` option." ]; then
    ok "directories: .ipynb walked, checkpoints and excluded notebooks skipped"
else
    bad "directories: .ipynb walked, checkpoints and excluded notebooks skipped" "$(echo "$out" | head -4)"
fi

# the cache replays a notebook's findings with their cells
(cd "$TMP/walk" && "$PFC" lint --output-format concise sub/train.ipynb > "$TMP/c1" 2>&1;
 "$PFC" lint --output-format concise sub/train.ipynb > "$TMP/c2" 2>&1)
if [ -d "$TMP/walk/.pfc_cache" ] && cmp -s "$TMP/c1" "$TMP/c2" && grep -q ':cell 5:7:19:' "$TMP/c2"; then
    ok "a cached run reports the same cells"
else
    bad "a cached run reports the same cells" "$(cat "$TMP/c1" "$TMP/c2" | head -4)"
fi

# the JSON reader against Python's json on mutated copies of these notebooks
# (bytes replaced, inserted, cut): the same documents accepted, read the same
mkdir -p "$TMP/mut"
python3 - "$CASES" "$TMP/mut" <<'PY'
import os, random, sys
src, out = sys.argv[1:]
rng = random.Random(11)
notebooks = sorted(f for f in os.listdir(src) if f.endswith(".ipynb"))
pieces = [b"{", b"}", b"[", b"]", b",", b":", b'"', b"\\", b"\\u00e9", b"\\ud83d", b"0", b"-",
          b"1e5", b"NaN", b"\xff", b"\xc3", b"\x00", b"\n", b" ", b"null", b"tru"]
for i in range(300):
    data = bytearray(open(os.path.join(src, notebooks[i % len(notebooks)]), "rb").read())
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(data))
        kind = rng.randrange(3)
        if kind == 0:
            data[at:at + 1] = rng.choice(pieces)
        elif kind == 1:
            data[at:at] = rng.choice(pieces)
        else:
            del data[at:]
            break
    open(os.path.join(out, "%03d.json" % i), "wb").write(bytes(data))
PY
(cd "$TMP/mut" && "$PFC" debug-json *.json > "$TMP/mut.pfc" 2>&1)
python3 - "$TMP/mut" "$TMP/mut.pfc" > "$TMP/mut.diff" <<'PY'
import json, os, sys
class Raw(str):
    pass
def canon(v):
    if isinstance(v, Raw): return str(v)
    if v is None: return "null"
    if v is True or v is False: return "true" if v else "false"
    if isinstance(v, str): return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list): return "[" + ", ".join(canon(x) for x in v) + "]"
    return "{" + ", ".join(json.dumps(k, ensure_ascii=False) + ": " + canon(x)
                           for k, x in v.items()) + "}"
mine = {}
for line in open(sys.argv[2], encoding="utf-8", errors="surrogateescape"):
    parts = line.rstrip("\n").split("\t", 2)
    if len(parts) == 3:
        mine[parts[0]] = parts[2] if parts[1] == "ok" else None
for name in sorted(os.listdir(sys.argv[1])):
    try:
        want = canon(json.loads(open(os.path.join(sys.argv[1], name), "rb").read(),
                                parse_int=Raw, parse_float=Raw, parse_constant=Raw))
        want.encode("utf-8")   # a lone surrogate: pfc refuses it on purpose
    except (ValueError, UnicodeError):
        want = None
    got = mine.get(name, "missing")
    if got != want:
        print(name, "pfc:", "error" if got is None else got[:60], "python:",
              "error" if want is None else "ok")
PY
if grep -q . "$TMP/mut.pfc" && [ ! -s "$TMP/mut.diff" ]; then
    ok "JSON reader: 300 mutated notebooks ($(grep -c "	ok	" "$TMP/mut.pfc") still JSON), the same verdict and reading as Python's json"
else
    bad "JSON reader: 300 mutated notebooks, the same verdict and reading as Python's json" \
        "$(cat "$TMP/mut.diff" "$TMP/mut.pfc" | head -3 | tr '\n' ' ')"
fi

echo "notebook: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
