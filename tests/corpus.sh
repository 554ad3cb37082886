#!/usr/bin/env bash
# Corpus checks over the standard library of every CPython 3.9..3.13 on this
# machine (pyenv):
#  1. round trip: every .py/.pyi file re-emits byte-identical, tree invariants hold;
#  2. agreement: with --target-version 3.X, pfc reports a syntax error on exactly
#     the .py files that python3.X's ast.parse rejects (confusion matrix printed).
# A version whose interpreter is missing is reported and counted as skipped.
set -u
PFC=${PFC:-./pfc}
PYENV_ROOT=${PYENV_ROOT:-$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")}
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0 failed=0 skipped=0

interpreter_for() {   # newest installed 3.X.y
    ls -d "$PYENV_ROOT"/versions/"$1".* 2>/dev/null | sort -V | tail -n 1
}

check_version() {
    local minor=$1 dir py stdlib
    dir=$(interpreter_for "3.$minor")
    py="$dir/bin/python3"
    if [ -z "$dir" ] || [ ! -x "$py" ]; then
        echo "corpus 3.$minor: SKIPPED: no CPython 3.$minor under $PYENV_ROOT/versions"
        skipped=$((skipped + 1))
        return
    fi
    stdlib=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
    "$py" "$HERE/tools/oracle_syntax.py" "$stdlib" > "$TMP/oracle.$minor" &
    "$PFC" debug-corpus --target-version "3.$minor" "$stdlib" > "$TMP/pfc.$minor"
    wait
    local rt_fail files bytes
    rt_fail=$(grep -c '^FAIL' "$TMP/pfc.$minor")
    files=$(grep -c '\.py$' <(grep -v '^summary' "$TMP/pfc.$minor" | cut -f2))
    bytes=$(sed -n 's/.*bytes=\([0-9]*\).*/\1/p' "$TMP/pfc.$minor")
    grep '^syntax' "$TMP/pfc.$minor" | cut -f2 | grep '\.py$' |
        sed "s|^$stdlib/||" | sort > "$TMP/pfc_rej.$minor"
    grep -v '^#' "$TMP/oracle.$minor" | sort > "$TMP/py_rej.$minor"
    local ofiles both pfc_only py_only accept
    ofiles=$(sed -n 's/^# files //p' "$TMP/oracle.$minor")
    both=$(comm -12 "$TMP/pfc_rej.$minor" "$TMP/py_rej.$minor" | wc -l)
    pfc_only=$(comm -23 "$TMP/pfc_rej.$minor" "$TMP/py_rej.$minor" | wc -l)
    py_only=$(comm -13 "$TMP/pfc_rej.$minor" "$TMP/py_rej.$minor" | wc -l)
    accept=$((ofiles - both - pfc_only - py_only))
    echo "corpus 3.$minor: $(basename "$dir"): $files .py files ($ofiles seen by ast.parse), $bytes bytes with .pyi"
    echo "  round trip failures: $rt_fail"
    echo "  confusion matrix       ast.parse rejects   ast.parse accepts"
    printf '    pfc reports error    %-19s %s\n' "$both" "$pfc_only"
    printf '    pfc accepts          %-19s %s\n' "$py_only" "$accept"
    if [ "$rt_fail" -ne 0 ] || [ "$pfc_only" -ne 0 ] || [ "$py_only" -ne 0 ] ||
       [ "$files" -ne "$ofiles" ]; then
        grep '^FAIL' "$TMP/pfc.$minor" | head -20
        comm -3 "$TMP/pfc_rej.$minor" "$TMP/py_rej.$minor" | head -20 | sed 's/^/  disagreement: /'
        failed=$((failed + 1))
    else
        passed=$((passed + 1))
    fi
}

for minor in 9 10 11 12 13; do
    check_version "$minor"
done
echo "corpus: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
