#!/usr/bin/env bash
# Fixes keep the meaning of the code (issue 9, Must show 4), on the fixture
# trees: tests/tools/fix_check.py fixes a copy of tests/cases/fixes and
# tests/cases/rules with --fix, then with --fix --unsafe-fixes, and checks that
# every fixed file parses (pfc and CPython), a second run changes nothing, the
# diff stays inside the fixes' edits and each edit where its finding is, no
# .detach() lands on a list, tuple or literal, and no edit in model or test
# code (as `pfc debug-context` classifies it). tests/realworld/fix_check.sh
# runs the same on the real-world corpus.
set -u
PFC=${PFC:-./pfc}
PFC=$(cd "$(dirname "$PFC")" && pwd)/$(basename "$PFC")
cd "$(dirname "$0")/.."
passed=0 failed=0 skipped=0
ok() { echo "ok   $1"; passed=$((passed + 1)); }
bad() { echo "FAIL $1: $2"; failed=$((failed + 1)); }

# the classification the context check reads: model code and a test class
ctx=$("$PFC" debug-context tests/cases/rules/TG001/neg_model_and_test_code.py 2>&1)
if echo "$ctx" | grep -q ': [a-z]* no-fix forward$' &&
    echo "$ctx" | grep -q ': model no-fix tiled_decode$' &&
    echo "$ctx" | grep -q ': test no-fix run_steps$'; then
    ok "debug-context: the methods of a model class and of a test class get no fix"
else
    bad "debug-context" "unexpected output: $(echo "$ctx" | head -3)"
fi

PY=$(command -v python3 || true)
if [ -z "$PY" ]; then
    echo "SKIPPED fix_check.py: no python3"
    skipped=1
else
    for mode in "" --unsafe; do
        out=$("$PY" tests/tools/fix_check.py --pfc "$PFC" --select ALL --name fix_safety $mode \
            tests/cases/fixes tests/cases/rules 2>&1)
        echo "$out" | sed '$d'
        last=$(echo "$out" | tail -n 1)
        p=$(echo "$last" | sed -n 's/.* \([0-9][0-9]*\) passed.*/\1/p')
        f=$(echo "$last" | sed -n 's/.* \([0-9][0-9]*\) failed.*/\1/p')
        passed=$((passed + ${p:-0}))
        failed=$((failed + ${f:-1}))
    done
fi
echo "fix_safety: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
