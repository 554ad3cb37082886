#!/usr/bin/env bash
# The skip (cli/lint.c, docs/performance.md): a file that names no training
# library, module or method is not lowered, because no rule can fire there.
# Checked against the rule and fix fixtures: linted as written, with their
# import lines removed (so that only the names can let a file in), and with
# every line naming torch removed too, each set must report exactly what
# --analyse-all reports. A finding the skip loses shows as a diff line.
set -u
cd "$(dirname "$0")/.."
PFC=${PFC:-build/pfc}
PFC=$(cd "$(dirname "$PFC")" && pwd)/$(basename "$PFC")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0 failed=0

# variant NAME SED-SCRIPT: every fixture through the script, one directory
variant() {
    local name=$1 script=$2 dir=$TMP/$1 i=0
    mkdir -p "$dir"
    for f in tests/cases/rules/*/*.py tests/cases/fixes/*.py; do
        i=$((i + 1))
        sed -E "$script" "$f" > "$dir/$(basename "$(dirname "$f")")_${i}_$(basename "$f")"
    done
    : > "$dir/pyproject.toml"   # the root: imports resolve inside the set only
    (cd "$dir" && "$PFC" lint --no-cache --output-format concise --analyse-all . > "$TMP/$name.all" 2>&1)
    (cd "$dir" && "$PFC" lint --no-cache --output-format concise . > "$TMP/$name.skip" 2>&1)
    local found
    found=$(grep -c ': TG' "$TMP/$name.all")
    if [ "$found" -gt 0 ] && cmp -s "$TMP/$name.all" "$TMP/$name.skip"; then
        echo "ok   $name: $found findings, the same with the skip"
        passed=$((passed + 1))
    else
        echo "FAIL $name: $found findings with --analyse-all; with the skip:"
        diff "$TMP/$name.all" "$TMP/$name.skip" | head -20
        failed=$((failed + 1))
    fi
}

imports='/^[[:space:]]*(import|from)[[:space:]]/d'
variant as_written ''
variant no_imports "$imports"
variant no_torch "$imports; /torch/d"
echo "gate: $passed passed, $failed failed"
