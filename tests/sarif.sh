#!/usr/bin/env bash
# The SARIF output passes Microsoft's SARIF validator (npm package
# @microsoft/sarif-multitool, installed once into build/npm) with no errors.
# Skipped, and counted as such, where npm or its registry is not available.
set -u
PFC=${PFC:-./pfc}
cd "$(dirname "$0")/.."
TOOL=build/npm/node_modules/.bin/sarif-multitool
if [ ! -x "$TOOL" ]; then
    mkdir -p build/npm
    if ! command -v npm >/dev/null ||
       ! (cd build/npm && timeout 300 npm install --silent --no-audit --no-fund \
            @microsoft/sarif-multitool >/dev/null 2>&1); then
        echo "sarif: SKIPPED: could not install @microsoft/sarif-multitool"
        echo "sarif: 0 passed, 0 failed, 1 skipped"
        exit 0
    fi
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0 failed=0
check() {   # name, pfc arguments...
    local name=$1; shift
    "$PFC" lint --no-cache --output-format sarif "$@" > "$TMP/out.sarif" 2>/dev/null
    "$TOOL" validate "$TMP/out.sarif" > "$TMP/log" 2>&1
    if grep -q "error SARIF\|error JSON" "$TMP/log" || ! grep -q "Analysis completed successfully" "$TMP/log"; then
        echo "FAIL $name"; grep -i error "$TMP/log" | head -5
        failed=$((failed + 1))
    else
        echo "ok   $name: $(grep -c '"ruleId"' "$TMP/out.sarif") results"
        passed=$((passed + 1))
    fi
}
check "rule findings" tests/cases/rules
check "syntax errors" tests/cases/errors
check "no findings" tests/cases/parse/statements_misc.py
check "missing file" "$TMP/missing.py"
echo "sarif: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
