#!/usr/bin/env bash
# The CLI behaves like ruff (issue 11): unknown codes and configuration keys
# are errors with a suggestion; every command has --help, consistent with the
# man page; the docs are generated from the binary's own texts; JSON stays
# JSON; the new lint options; TG000 only for pfc's codes; estimate's exit
# codes and GPU names. Runs in seconds; needs no network.
set -u
cd "$(dirname "$0")/.."
PFC=${PFC:-build/pfc}
case $PFC in /*) ;; *) PFC=$PWD/$PFC ;; esac
ROOT=$PWD
TMP=$(mktemp -d)
trap 'chmod -R u+rwx "$TMP" 2>/dev/null; rm -rf "$TMP"' EXIT
passed=0 failed=0 skipped=0
ok() { echo "ok   $1"; passed=$((passed + 1)); }
bad() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
skip() { echo "skip $1: $2"; skipped=$((skipped + 1)); }

# run ARGS...: pfc's stdout in $TMP/out, stderr in $TMP/err, status in $st
run() { "$PFC" "$@" > "$TMP/out" 2> "$TMP/err"; st=$?; }
# expect NAME STATUS PATTERN FILE: the status and an extended regex in FILE
expect() {
    if [ "$st" -ne "$2" ]; then
        bad "$1" "exit $st, expected $2: $(head -c 300 "$TMP/err" "$TMP/out" | tr '\n' ' ')"
    elif ! grep -qE -- "$3" "$4"; then
        bad "$1" "no /$3/ in: $(head -c 300 "$4" | tr '\n' ' ')"
    else
        ok "$1"
    fi
}

W=$TMP/w
mkdir -p "$W"
cp tests/cases/fixes/tg001_detach.py "$W/safe.py"      # TG001 with safe fixes
cp tests/cases/fixes/tg002_eof.py "$W/unsafe.py"       # TG002 with an unsafe fix
printf 'x = 1\n' > "$W/ok.py"
cd "$W"

# --- unknown codes, prefixes and keys -------------------------------------------------
run lint --no-cache --select TG999 ok.py
expect "--select TG999 is an error with a suggestion" 2 "unknown rule code.*TG999.*did you mean 'TG[0-9]" "$TMP/err"
run lint --no-cache --ignore TG0O1 --extend-select XY ok.py
expect "--ignore typo is an error" 2 "TG0O1.*--ignore.*did you mean" "$TMP/err"
run lint --no-cache --output-format concise --select tg001 safe.py
expect "codes are case-insensitive (--select tg001)" 1 "safe.py:[0-9]+:[0-9]+: TG001" "$TMP/out"
run lint --no-cache --output-format concise --select tg0 safe.py
expect "prefixes are case-insensitive (--select tg0)" 1 ": TG001" "$TMP/out"

cfg() {   # cfg NAME STATUS PATTERN TOML: pyproject.toml holding TOML (PATTERN: in stderr, or stdout if clean)
    printf '%s\n' "$4" > pyproject.toml
    run lint --no-cache ok.py
    expect "$1" "$2" "$3" "$TMP/$([ "$2" -eq 0 ] && echo out || echo err)"
    rm -f pyproject.toml
}
cfg "[tool.pfc] select typo" 2 "pyproject.toml: unknown rule code or prefix 'TG99' in \[tool.pfc\] select \(did you mean" \
    $'[tool.pfc]\nselect = ["TG99"]'
printf '[tool.pfc]\nselect = ["tg001"]\nignore = ["tg002"]\nextend-select = ["tg0"]\ntarget_world_size = 8\ntarget-gpu = "h100"\n' > pyproject.toml
run lint --no-cache --output-format concise safe.py
expect "[tool.pfc] codes are case-insensitive, target-world-size is a key" 1 "safe.py:14:13: TG001" "$TMP/out"
rm -f pyproject.toml
cfg "[tool.pfc] ignore typo" 2 "'TGX' in \[tool.pfc\] ignore" $'[tool.pfc]\nignore = ["TGX"]'
cfg "[tool.pfc] extend-select typo" 2 "'TG0000' in \[tool.pfc\] extend-select \(did you mean 'TG000'" \
    $'[tool.pfc]\nextend_select = ["TG0000"]'
cfg "[tool.pfc] per-file-ignores typo" 2 "'TG3O4' in \[tool.pfc\] per-file-ignores" \
    $'[tool.pfc.per-file-ignores]\n"tests/*" = ["TG3O4"]'
cfg "[tool.pfc] unknown key selct" 2 "unknown key 'selct' \(did you mean 'select'\?\)" \
    $'[tool.pfc]\nselct = ["TG001"]'
cfg "[tool.pfc.lint] (ruff's layout) is an error" 2 "\[tool.pfc.lint\]: pfc has no 'lint' table.*\[tool.pfc\] itself" \
    $'[tool.pfc.lint]\nselect = ["TG001"]'
printf 'fail_onn = "error"\n' > pfc.toml
run lint --no-cache ok.py
expect "pfc.toml unknown key fail_onn" 2 "unknown key 'fail_onn' \(did you mean 'fail-on'" "$TMP/err"
rm -f pfc.toml

# --- help and the man page ---------------------------------------------------------------
for c in "lint --help" "lint -h" "check --help" "estimate --help" "estimate -h" "explain --help" \
         "dump-ir --help" "dump-cst -h" "emit --help" "gpus --help" "archs -h" "help lint"; do
    run $c
    expect "pfc $c" 0 "^usage: pfc ${c%% *}|^usage: pfc lint" "$TMP/out"
done
run help lint
if grep -q "^commands:" "$TMP/out"; then bad "pfc help lint is lint's help" "got the global help"
else ok "pfc help lint is lint's help"; fi
run lint --help
missing=""
for o in --output-format --output-file --select --extend-select --ignore --target-version \
         --fail-on --config --isolated --show-settings --statistics --exit-zero --fix \
         --unsafe-fixes --diff --show-fixes --stdin-filename --quiet --no-cache --jobs; do
    grep -q -- "$o" "$TMP/out" || missing="$missing $o"
done
[ -z "$missing" ] && ok "lint --help lists every option" || bad "lint --help lists every option" "missing:$missing"
# every option of every --help is in the man page, and every command
man_text=$(sed 's/\\-/-/g; s/\\f[BIR]//g' "$ROOT/docs/pfc.1")
missing=""
nopts=0
for c in lint estimate explain dump-ir dump-cst emit gpus archs version help; do
    echo "$man_text" | grep -q "^\.SS \"pfc $c" || missing="$missing $c"
    for o in $("$PFC" "$c" --help 2>/dev/null | grep -oE '^  (-[a-z], )?--?[a-z][a-z-]*' | grep -oE -- '--?[a-z][a-z-]*'); do
        echo "$man_text" | grep -q -- "$o" || missing="$missing $c:$o"
        nopts=$((nopts + 1))
    done
done
for w in sarif "pfc explain" dump-ir CONFIGURATION noqa SUPPRESSION "EXIT STATUS" target-world-size; do
    echo "$man_text" | grep -q -- "$w" || missing="$missing '$w'"
done
[ "$nopts" -ge 30 ] || missing="$missing (only $nopts options in the --help texts)"
[ -z "$missing" ] && ok "man page has every command, option and topic" || bad "man page has every command, option and topic" "missing:$missing"
# docs/pfc.1 and docs/rules/ are what the binary prints (regenerate: make docs)
mkdir -p "$TMP/docs"
if (cd "$ROOT" && docs/generate.sh "$PFC" "$TMP/docs" > "$TMP/gen.log" 2>&1) &&
   diff -r "$TMP/docs" "$ROOT/docs" -x examples -x '*.md' -x generate.sh > "$TMP/diff" 2>&1 &&
   diff -r "$TMP/docs/rules" "$ROOT/docs/rules" >> "$TMP/diff" 2>&1; then
    ok "docs/pfc.1 and docs/rules/*.md match the binary"
else
    bad "docs/pfc.1 and docs/rules/*.md match the binary" "stale: run 'make docs' and commit: $(cat "$TMP/diff" "$TMP/gen.log" 2> /dev/null | head -c 400 | tr '\n' ' ')"
fi

# --- explain -----------------------------------------------------------------------------------
run explain
missing=""
for code in $(sed -n 's/^RULE([a-z0-9_]*, *"\([A-Z0-9]*\)".*/\1/p' "$ROOT/passes/rules.def") E999 E902 TG000; do
    grep -q "^$code " "$TMP/out" || missing="$missing $code"
    [ -f "$ROOT/docs/rules/$code.md" ] || missing="$missing docs/rules/$code.md"
done
[ "$st" -eq 0 ] && [ -z "$missing" ] && ok "pfc explain lists every code, each has docs/rules/CODE.md" ||
    bad "pfc explain lists every code, each has docs/rules/CODE.md" "exit $st, missing:$missing"
for c in E999 tg000 E902; do
    run explain $c
    expect "pfc explain $c" 0 "^[A-Z0-9]+ [a-z-]+ \((error|note)" "$TMP/out"
done

# --- machine formats ------------------------------------------------------------------------
json_ok() { python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2> /dev/null; }
run lint --no-cache --statistics --output-format json safe.py unsafe.py
if [ "$st" -eq 1 ] && json_ok "$TMP/out" && grep -q '"code": "TG001", "name": "retained-graph", "count": 2, "fixable": true' "$TMP/out"; then
    ok "--statistics --output-format json is one JSON document"
else
    bad "--statistics --output-format json is one JSON document" "exit $st: $(head -c 300 "$TMP/out")"
fi
run lint --no-cache --output-format json safe.py
url=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0].get("url", ""))' "$TMP/out" 2> /dev/null)
case $url in
*/docs/rules/TG001.md) ok "JSON findings carry url (docs/rules/TG001.md)" ;;
*) bad "JSON findings carry url (docs/rules/TG001.md)" "url '$url'" ;;
esac
run lint --no-cache --output-format sarif safe.py
n=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"][0]["tool"]["driver"]["rules"]; print(sum(x.get("helpUri","").endswith("/docs/rules/%s.md" % x["id"]) for x in r), len(r))' "$TMP/out" 2> /dev/null)
set -- $n
[ -n "$n" ] && [ "$1" = "$2" ] && ok "SARIF rules carry helpUri" || bad "SARIF rules carry helpUri" "'$n'"

# --- new lint options ---------------------------------------------------------------------
printf 'import torch  # noqa: TG001\n' > noqa.py
run lint --no-cache --output-format concise --extend-select TG000 noqa.py
expect "--extend-select TG000" 0 "noqa.py:1:15: TG000" "$TMP/out"
run lint --no-cache --output-format concise --output-file "$TMP/report.txt" safe.py
if [ "$st" -eq 1 ] && [ ! -s "$TMP/out" ] && grep -q "safe.py:.*TG001" "$TMP/report.txt" 2> /dev/null; then
    ok "--output-file"
else bad "--output-file" "exit $st, stdout '$(head -c 100 "$TMP/out")'"; fi
mkdir -p conf && printf '[tool.pfc]\nselect = ["TG002"]\n' > conf/pyproject.toml
run lint --no-cache --output-format concise --config conf/pyproject.toml safe.py unsafe.py
if [ "$st" -eq 1 ] && grep -q "unsafe.py.*TG002" "$TMP/out" && ! grep -q TG001 "$TMP/out"; then
    ok "--config PATH"
else bad "--config PATH" "exit $st: $(head -c 200 "$TMP/out" | tr "\n" " ")"; fi
run lint --no-cache --output-format concise --config 'select = ["TG002"]' safe.py unsafe.py
if [ "$st" -eq 1 ] && grep -q "unsafe.py.*TG002" "$TMP/out" && ! grep -q TG001 "$TMP/out"; then
    ok "--config \"key = value\""
else bad "--config \"key = value\"" "exit $st: $(head -c 200 "$TMP/out" | tr "\n" " ")"; fi
run lint --config 'selct = ["TG002"]' ok.py
expect "--config \"key = value\" with an unknown key" 2 "unknown key 'selct'" "$TMP/err"
printf '[tool.pfc]\nignore = ["TG001"]\n' > pyproject.toml
run lint --no-cache --output-format concise --isolated safe.py
expect "--isolated ignores pyproject.toml" 1 "safe.py:.*TG001" "$TMP/out"
run lint --show-settings safe.py
expect "--show-settings" 0 "^enabled rules +TG002 TG003" "$TMP/out"
grep -q "^ignore  *\[\"TG001\"\]" "$TMP/out" && ok "--show-settings shows the file's ignore" ||
    bad "--show-settings shows the file's ignore" "$(head -c 300 "$TMP/out")"
rm -f pyproject.toml
run lint --no-cache -q safe.py
if [ "$st" -eq 1 ] && grep -q TG001 "$TMP/out" && ! grep -qE "^Found|fixable" "$TMP/out"; then ok "-q: findings, no summary"
else bad "-q: findings, no summary" "exit $st: $(tail -c 200 "$TMP/out" | tr "\n" " ")"; fi
run lint --no-cache --output-format concise - --stdin-filename sub/train.py < safe.py
expect "stdin with --stdin-filename" 1 "^sub/train.py:14:13: TG001" "$TMP/out"
run lint --no-cache - < ok.py
expect "clean stdin: All checks passed!" 0 "^All checks passed!$" "$TMP/out"
run lint --no-cache --fix - < safe.py
if [ "$st" -eq 0 ] && cmp -s "$TMP/out" "$ROOT/tests/cases/fixes/tg001_detach.fixed.py"; then ok "--fix on stdin prints the fixed source"
else bad "--fix on stdin prints the fixed source" "exit $st: $(head -c 200 "$TMP/out" | tr "\n" " ")"; fi
run lint --no-cache --diff - --stdin-filename safe.py < safe.py
expect "--diff on stdin" 1 "^\+\+\+ safe.py" "$TMP/out"
run lint --no-cache --output-format concise safe.py unsafe.py
expect "concise output marks fixable findings [*]" 1 "safe.py:14:13: TG001 \[\*\] " "$TMP/out"
expect "summary: fixable with --fix, hidden unsafe fixes" 1 '^\[\*\] 2 fixable with the `--fix` option \(1 hidden fix can be enabled with the `--unsafe-fixes` option\)\.$' "$TMP/out"
run lint --no-cache safe.py
expect "full output marks fixable findings [*]" 1 "TG001 \(retained-graph\) \[\*\]" "$TMP/out"
run lint --no-cache --unsafe-fixes --output-format concise unsafe.py
expect "--unsafe-fixes counts unsafe fixes as fixable" 1 '^\[\*\] 1 fixable with the `--fix` option\.$' "$TMP/out"
run lint --no-cache --output-format concise unsafe.py
expect "only hidden fixes: No fixes available" 1 '^No fixes available \(1 hidden fix can be enabled with the `--unsafe-fixes` option\)\.$' "$TMP/out"
run lint --select
expect "a missing option value names the option" 2 "^pfc: error: --select needs a value" "$TMP/err"
run dump-ir ok.py --fn
expect "dump-ir --fn without a value names the option" 2 "^pfc: error: --fn needs a value" "$TMP/err"

# --- TG000: only pfc's own codes can be unused --------------------------------------------
printf 'import os  # noqa: F401\n# flake8: noqa\nx = 1  # type: ignore\ny = 2  # noqa: E501, TG003\nz = 3  # noqa\nw = 4  # ruff: noqa: F841\n' > other.py
run lint --no-cache --output-format concise --select TG000 other.py
if [ "$(grep -c TG000 "$TMP/out")" -eq 1 ] && grep -q "other.py:4:8: TG000 .*TG003" "$TMP/out"; then
    ok "TG000 never reports other tools' codes or directives"
else bad "TG000 never reports other tools' codes or directives" "$(grep TG000 "$TMP/out" | head -5 | tr '\n' ' ')"; fi

# --- files and estimate ------------------------------------------------------------------------
mkdir -p locked && cp ok.py locked/a.py && chmod 000 locked
as_user=()
if [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null && id nobody > /dev/null 2>&1; then
    as_user=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)
    cp "$PFC" "$TMP/pfc-copy" && chmod 755 "$TMP/pfc-copy" "$TMP" "$W"
fi
if [ "$(id -u)" -eq 0 ] && [ ${#as_user[@]} -eq 0 ]; then
    skip "unreadable directory" "root without setpriv or a user nobody"
else
    bin=$PFC; [ ${#as_user[@]} -gt 0 ] && bin=$TMP/pfc-copy
    "${as_user[@]}" "$bin" lint --no-cache --output-format concise locked > "$TMP/out" 2>&1; st=$?
    expect "an unreadable directory is 'Permission denied'" 1 "^locked:1:1: E902 Permission denied" "$TMP/out"
fi
chmod 755 locked
run estimate missing.py
expect "estimate on a missing file exits 1 (README)" 1 "cannot read 'missing.py'" "$TMP/err"
run estimate "$ROOT/docs/examples/train.py" --gpu
expect "estimate --gpu without a value" 2 "^pfc: error: estimate: --gpu needs a value" "$TMP/err"
run estimate "$ROOT/docs/examples/train.py" --gpu a100-80g
expect "unknown GPU: did you mean" 2 "unknown GPU or instance 'a100-80g' \(did you mean 'a100-80gb'\?\); pfc gpus" "$TMP/err"
run estimate "$ROOT/docs/examples/train.py" --gpu ND96amsr_A100_v4
expect "--gpu ND96amsr_A100_v4 (PRODUCT.md's spelling)" 0 "A100 80GB x8" "$TMP/out"
run estimate "$ROOT/docs/examples/train.py" --gpu nd96AMSR_a100_V4
expect "instance names are case-insensitive" 0 "A100 80GB x8" "$TMP/out"

echo "cli: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
