#!/usr/bin/env bash
# Accept/reject agreement on the hand-written cases, per target version: for
# every CPython 3.9..3.13 that pyenv holds, pfc lint --target-version 3.X must
# report a syntax error (E999) on exactly the tests/cases/{errors,parse} files
# that python3.X's ast.parse rejects (tests/tools/oracle_syntax.py).
# A version whose interpreter is missing is reported and counted as skipped.
set -u
PFC=${PFC:-./pfc}
PFC=$(cd "$(dirname "$PFC")" && pwd)/$(basename "$PFC")
cd "$(dirname "$0")/.."
PYENV_ROOT=${PYENV_ROOT:-$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0 failed=0 skipped=0

for minor in 9 10 11 12 13; do
    dir=$(ls -d "$PYENV_ROOT"/versions/3.$minor.* 2>/dev/null | sort -V | tail -n 1)
    if [ -z "$dir" ] || [ ! -x "$dir/bin/python3" ]; then
        echo "SKIPPED oracle_cases 3.$minor: no CPython 3.$minor under $PYENV_ROOT/versions"
        skipped=$((skipped + 1))
        continue
    fi
    : > "$TMP/py"
    for group in errors parse; do
        "$dir/bin/python3" tests/tools/oracle_syntax.py "tests/cases/$group" |
            grep -v '^#' | sed "s|^|$group/|" >> "$TMP/py"
    done
    sort -o "$TMP/py" "$TMP/py"
    : > "$TMP/pfc"
    for f in tests/cases/errors/*.py tests/cases/parse/*.py; do
        if "$PFC" lint --no-cache --output-format concise --target-version "3.$minor" "$f" 2>&1 |
            grep -q ': E999 '; then
            echo "${f#tests/cases/}" >> "$TMP/pfc"
        fi
    done
    sort -o "$TMP/pfc" "$TMP/pfc"
    # a known difference (tests/cases/oracle_known.txt) counts as agreement,
    # and must still be a difference
    known=$(awk -v v="3.$minor" '$1 == v { print $2 }' tests/cases/oracle_known.txt)
    stale=""
    for k in $known; do
        in_py=0 in_pfc=0
        grep -qxF "$k" "$TMP/py" && in_py=1
        grep -qxF "$k" "$TMP/pfc" && in_pfc=1
        [ "$in_py" = "$in_pfc" ] && stale="$stale $k"
        grep -vxF "$k" "$TMP/py" > "$TMP/py.k"; mv "$TMP/py.k" "$TMP/py"
        grep -vxF "$k" "$TMP/pfc" > "$TMP/pfc.k"; mv "$TMP/pfc.k" "$TMP/pfc"
    done
    if [ -n "$stale" ]; then
        echo "FAIL 3.$minor: listed in oracle_known.txt but no longer different:$stale"
        failed=$((failed + 1))
    elif cmp -s "$TMP/py" "$TMP/pfc"; then
        echo "ok   3.$minor: $(wc -l < "$TMP/py") rejected files agree"
        passed=$((passed + 1))
    else
        echo "FAIL 3.$minor: accept/reject differs from $(basename "$dir") (< python only, > pfc only)"
        diff "$TMP/py" "$TMP/pfc" | grep '^[<>]' | head -20
        failed=$((failed + 1))
    fi
done
echo "oracle_cases: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
