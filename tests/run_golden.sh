#!/usr/bin/env bash
# Golden-file tests: each input beside its expected output, diffed.
#   tests/cases/parse/X.py   -> X.cst  (pfc dump-cst), must parse without errors
#   tests/cases/errors/X.py  -> X.err  (pfc lint --output-format concise), must fail;
#                               the first error's line must equal CPython's (# expect:)
#   tests/cases/gating/X.py  -> X.err  (output at --target-version 3.9); reported at
#                               every target older than its "# min-version" and at none newer
#   tests/cases/cli/X.sh     -> X.out  (a shell snippet run with $PFC; stdout+stderr+status)
# Every input must also re-emit byte for byte. UPDATE=1 rewrites expected files.
set -u
PFC=${PFC:-./pfc}
PFC=$(cd "$(dirname "$PFC")" && pwd)/$(basename "$PFC")
cd "$(dirname "$0")/.."
passed=0 failed=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }

# compare FILE EXPECTED_PATH: diff actual output with the golden file
compare() {
    local actual=$1 expected=$2 name=$3
    if [ "${UPDATE:-0}" = 1 ]; then
        cp "$actual" "$expected"
    fi
    if [ ! -f "$expected" ]; then
        fail "$name" "missing $expected (run UPDATE=1)"
        return 1
    fi
    if ! diff -u "$expected" "$actual" > "$TMP/diff"; then
        fail "$name" "output differs from $expected"
        head -40 "$TMP/diff"
        return 1
    fi
    return 0
}

round_trips() {
    "$PFC" emit "$1" > "$TMP/emit" 2>/dev/null
    cmp -s "$TMP/emit" "$1"
}

for f in tests/cases/parse/*.py; do
    name=${f#tests/cases/}
    "$PFC" dump-cst "$f" > "$TMP/out" 2>&1
    if grep -q '^error ' "$TMP/out"; then
        fail "$name" "unexpected syntax error: $(grep '^error ' "$TMP/out" | head -1)"
        continue
    fi
    round_trips "$f" || { fail "$name" "does not round-trip"; continue; }
    compare "$TMP/out" "${f%.py}.cst" "$name" && passed=$((passed + 1))
done

for f in tests/cases/errors/*.py; do
    name=${f#tests/cases/}
    "$PFC" lint --no-cache --output-format concise "$f" > "$TMP/out" 2>&1
    status=$?
    round_trips "$f" || { fail "$name" "does not round-trip"; continue; }
    [ "$status" -eq 1 ] || { fail "$name" "exit status $status, expected 1"; continue; }
    want_line=$(head -1 "$f" | sed -n 's/^# expect: \([0-9]*\):.*/\1/p')
    got_line=$(head -1 "$TMP/out" | sed -n 's/^[^:]*:\([0-9]*\):.*/\1/p')
    if [ -n "$want_line" ] && [ "$want_line" != 0 ] && [ "$want_line" != "$got_line" ]; then
        fail "$name" "first error on line $got_line, CPython reports line $want_line"
        continue
    fi
    compare "$TMP/out" "${f%.py}.err" "$name" && passed=$((passed + 1))
done

for f in tests/cases/gating/*.py; do
    name=${f#tests/cases/}
    min=$(head -1 "$f" | sed -n 's/^# min-version: 3\.\([0-9]*\).*/\1/p')
    [ -n "$min" ] || { fail "$name" "no '# min-version: 3.X' header"; continue; }
    round_trips "$f" || { fail "$name" "does not round-trip"; continue; }
    ok=1
    for minor in 9 10 11 12 13; do
        "$PFC" lint --no-cache --output-format concise --target-version "3.$minor" "$f" \
            > "$TMP/out.$minor" 2>&1
        status=$?
        want=0
        [ "$minor" -lt "$min" ] && want=1
        if [ "$status" -ne "$want" ]; then
            fail "$name" "at --target-version 3.$minor exit $status, expected $want"
            ok=0
            break
        fi
    done
    [ "$ok" = 1 ] && compare "$TMP/out.9" "${f%.py}.err" "$name" && passed=$((passed + 1))
done

# Rules: tests/cases/rules/TGxxx/X.py -> X.findings (every rule selected,
# concise). A file named pos_* must report its rule's code, neg_* must not.
for f in tests/cases/rules/*/*.py; do
    [ -e "$f" ] || continue
    name=${f#tests/cases/}
    code=$(basename "$(dirname "$f")")
    "$PFC" lint --no-cache --output-format concise --select ALL "$f" > "$TMP/out" 2>&1
    case "$(basename "$f")" in
    pos_*) grep -q ": $code " "$TMP/out" || { fail "$name" "expected a $code finding"; cat "$TMP/out"; continue; } ;;
    neg_*) if grep -q ": $code " "$TMP/out"; then fail "$name" "unexpected $code finding"; cat "$TMP/out"; continue; fi ;;
    esac
    compare "$TMP/out" "${f%.py}.findings" "$name" && passed=$((passed + 1))
done

# Fixes: tests/cases/fixes/X.py -> X.fixed.py (pfc lint --fix --unsafe-fixes on a
# copy). The fixed file must parse, and fixing it again must change nothing.
# A file named nofix_* has findings whose fix would change what the code
# means: it must be reported and stay byte for byte as it is.
for f in tests/cases/fixes/*.py; do
    [ -e "$f" ] || continue
    case "$f" in *.fixed.py) continue ;; esac
    name=${f#tests/cases/}
    ext=${f##*.}
    cp "$f" "$TMP/work.$ext"
    (cd "$TMP" && "$PFC" lint --no-cache --fix --unsafe-fixes --select ALL "work.$ext") > /dev/null 2>&1
    case "$(basename "$f")" in nofix_*)
        if ! cmp -s "$f" "$TMP/work.$ext"; then
            fail "$name" "a fix was applied: $(diff "$f" "$TMP/work.$ext" | grep '^>' | head -3)"
        elif "$PFC" lint --no-cache --select ALL "$f" > /dev/null 2>&1; then
            fail "$name" "nothing is reported"
        else
            passed=$((passed + 1))
        fi
        continue ;;
    esac
    if cmp -s "$f" "$TMP/work.$ext"; then
        fail "$name" "no fix was applied"
        continue
    fi
    if ! "$PFC" emit "$TMP/work.$ext" > /dev/null 2>&1; then
        fail "$name" "the fixed file does not parse"
        continue
    fi
    cp "$TMP/work.$ext" "$TMP/once.$ext"
    (cd "$TMP" && "$PFC" lint --no-cache --fix --unsafe-fixes --select ALL "work.$ext") > /dev/null 2>&1
    if ! cmp -s "$TMP/work.$ext" "$TMP/once.$ext"; then
        fail "$name" "a second --fix changed the file again"
        continue
    fi
    compare "$TMP/work.$ext" "${f%.py}.fixed.py" "$name" && passed=$((passed + 1))
done

# IR dumps: tests/cases/ir/X.py -> X.ir
for f in tests/cases/ir/*.py; do
    [ -e "$f" ] || continue
    name=${f#tests/cases/}
    "$PFC" dump-ir "$f" > "$TMP/out" 2>&1
    compare "$TMP/out" "${f%.py}.ir" "$name" && passed=$((passed + 1))
done

for f in tests/cases/cli/*.sh; do
    [ -e "$f" ] || continue
    name=${f#tests/cases/}
    (cd tests/cases/cli && PFC="$PFC" bash "$(basename "$f")") > "$TMP/out" 2>&1
    echo "exit status: $?" >> "$TMP/out"
    compare "$TMP/out" "${f%.sh}.out" "$name" && passed=$((passed + 1))
done

# The inputs' own claims, checked against the real interpreters when present:
# parse/ accepted and errors/ rejected (at the recorded line:col) by 3.13, and
# each gating/ snippet accepted exactly from its min-version on.
PYENV_ROOT=${PYENV_ROOT:-$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")}
pythons=()
for minor in 9 10 11 12 13; do
    d=$(ls -d "$PYENV_ROOT"/versions/3.$minor.* 2>/dev/null | sort -V | tail -n 1)
    [ -n "$d" ] && [ -x "$d/bin/python3" ] && pythons+=("$d/bin/python3")
done
skipped=0
if [ "${#pythons[@]}" -eq 5 ]; then
    if python_out=$("${pythons[4]}" tests/tools/check_cases.py "${pythons[4]}" 2>&1); then
        passed=$((passed + 1))
    else
        fail "oracle parse/ errors/" "$(echo "$python_out" | grep -v ' ok' | tail -5)"
    fi
    if python_out=$("${pythons[4]}" tests/tools/check_gating.py "${pythons[@]}" 2>&1); then
        passed=$((passed + 1))
    else
        fail "oracle gating/" "$(echo "$python_out" | grep FAIL | head -5)"
    fi
else
    echo "SKIPPED oracle checks: need CPython 3.9-3.13 under $PYENV_ROOT/versions"
    skipped=2
fi

echo "golden: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
