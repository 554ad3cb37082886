#!/usr/bin/env bash
# make test: every suite, then one closing line "N passed, M failed".
# Suites: cmocka unit tests, golden files, robustness, inputs (special files,
# deep trees, a damaged cache), corpus (stdlib round trip + agreement with each
# CPython's ast.parse), the estimator against the calibration measurements.
set -u
cd "$(dirname "$0")/.."
PFC=${PFC:-build/pfc}
BUILD=${BUILD:-build}
export PFC
passed=0 failed=0 skipped=0

add_counts() {   # parses "... N passed, M failed[, K skipped]" from a suite's last line
    local line=$1
    local p f s
    p=$(echo "$line" | sed -n 's/.* \([0-9][0-9]*\) passed.*/\1/p')
    f=$(echo "$line" | sed -n 's/.* \([0-9][0-9]*\) failed.*/\1/p')
    s=$(echo "$line" | sed -n 's/.* \([0-9][0-9]*\) skipped.*/\1/p')
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-1}))
    skipped=$((skipped + ${s:-0}))
}

echo "== unit tests (cmocka)"
for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] || continue
    out=$("$t" 2>&1)
    status=$?
    echo "$out" | grep -E '^\[  (PASSED|FAILED|  OK|ERROR) |FAILED|ERROR' | grep -v '^\[       OK' || true
    n_ok=$(echo "$out" | grep -c '^\[       OK \]')
    n_fail=$(echo "$out" | grep -c '^\[  FAILED  \] [^0-9]')
    [ "$status" -ne 0 ] && [ "$n_fail" -eq 0 ] && n_fail=1
    echo "$(basename "$t"): $n_ok passed, $n_fail failed"
    passed=$((passed + n_ok))
    failed=$((failed + n_fail))
done

# one suite per line, so that branches adding suites merge cleanly
SUITES="
run_golden.sh
order.sh
gate.sh
robustness.sh
cli.sh
inputs.sh
writes.sh
linear.sh
estimate_safety.sh
oracle_cases.sh
fix_corpus.sh
fix_safety.sh
sarif.sh
notebook.sh
project.sh
speed.sh
estimator.sh
corpus.sh
realworld_score.sh
audit.sh
precommit.sh
action.sh
install.sh
progress.sh
"
for suite in $SUITES; do
    [ -x "tests/$suite" ] || continue
    echo "== $suite"
    out=$(tests/$suite 2>&1)
    echo "$out"
    add_counts "$(echo "$out" | tail -n 1)"
done

echo
if [ "$skipped" -gt 0 ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
