#!/usr/bin/env bash
# The hooks of .pre-commit-hooks.yaml run by the real pre-commit tool on a
# throwaway git repository, offline: the hook repository is a local git
# repository holding this tree's hook files (so uncommitted edits are what
# is tested), the project's .pre-commit-config.yaml points at it by path and
# commit, and pfc is this build's ($PFC, through PFC_BINARY). Checks: a clean
# file passes, a finding fails the commit, pfc-fix rewrites the file, a
# notebook is handed to pfc (types_or: jupyter) and a text file is not, and a
# real `git commit` runs the installed hook. Without pre-commit: skipped.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
PFC=${PFC:-$ROOT/build/pfc}
PFC=$(cd "$(dirname "$PFC")" && pwd)/$(basename "$PFC")
if ! command -v pre-commit > /dev/null || ! command -v git > /dev/null; then
    echo "precommit: 0 passed, 0 failed, 1 skipped (no pre-commit or git)"
    exit 0
fi
passed=0 failed=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ok() { echo "ok   $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
# nothing of the user's: their git config, pre-commit cache or hooks
export HOME=$tmp/home PRE_COMMIT_HOME=$tmp/cache XDG_CACHE_HOME=$tmp/cache
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=pfc GIT_AUTHOR_EMAIL=pfc@example.invalid
export GIT_COMMITTER_NAME=pfc GIT_COMMITTER_EMAIL=pfc@example.invalid
export PFC_BINARY=$PFC PRE_COMMIT_COLOR=never
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
mkdir -p "$HOME"

hooks=$tmp/hooks
mkdir -p "$hooks/tools"
if ! cp "$ROOT/.pre-commit-hooks.yaml" "$hooks/" 2> /dev/null ||
   ! cp "$ROOT/tools/pre-commit-pfc" "$hooks/tools/" 2> /dev/null; then
    fail "hook files" "no .pre-commit-hooks.yaml or tools/pre-commit-pfc"
    echo "precommit: $passed passed, $failed failed"
    exit 1
fi
git -C "$hooks" init -q && git -C "$hooks" add -A && git -C "$hooks" commit -qm hooks
rev=$(git -C "$hooks" rev-parse HEAD)

proj=$tmp/proj
mkdir -p "$proj" && cd "$proj" && git init -q .
cat > .pre-commit-config.yaml <<EOF
repos:
  - repo: $hooks
    rev: $rev
    hooks:
      - id: pfc
      - id: pfc-fix
        stages: [manual]
EOF
printf 'import torch\n\n\ndef step(model, opt, x):\n    model(x).sum().backward()\n    opt.step()\n    opt.zero_grad()\n' > clean.py
printf 'import torch\n\n\ndef step(model, opt, x):\n    model(x).sum().backward()\n    opt.step()\n    opt.zero_grad\n' > bad.py
printf '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n' > nb.ipynb
printf 'opt.zero_grad\n' > notes.txt
git add -A

run() {   # run ARGS...: pre-commit's output in $tmp/out, its status in $status
    pre-commit "$@" > "$tmp/out" 2>&1
    status=$?
}
run run pfc --files clean.py
if [ "$status" -eq 0 ] && grep -q '^pfc lint.*Passed' "$tmp/out"; then
    ok "pfc: a clean file passes"
else
    fail "pfc: a clean file passes" "status $status: $(tail -n 5 "$tmp/out")"
fi
run run pfc --files bad.py
if [ "$status" -eq 1 ] && grep -q '^pfc lint.*Failed' "$tmp/out" && grep -q 'TG304' "$tmp/out"; then
    ok "pfc: a finding fails, with its code"
else
    fail "pfc: a finding fails, with its code" "status $status: $(tail -n 5 "$tmp/out")"
fi
run run pfc --files notes.txt
if [ "$status" -eq 0 ] && grep -q 'no files to check' "$tmp/out"; then
    ok "pfc: a text file is not linted"
else
    fail "pfc: a text file is not linted" "status $status: $(tail -n 5 "$tmp/out")"
fi
run run pfc --verbose --files nb.ipynb
if grep -q '^pfc lint.*\(Passed\|Failed\)' "$tmp/out" && grep -q 'nb.ipynb\|checks passed' "$tmp/out"; then
    ok "pfc: a notebook is handed to pfc (types_or jupyter)"
else
    fail "pfc: a notebook is handed to pfc" "status $status: $(tail -n 5 "$tmp/out")"
fi
run run pfc-fix --hook-stage manual --files bad.py
if [ "$status" -eq 1 ] && grep -q 'files were modified by this hook' "$tmp/out" &&
   grep -q '^    opt.zero_grad()$' bad.py; then
    ok "pfc-fix: rewrites the file and fails the run"
else
    fail "pfc-fix: rewrites the file" "status $status: $(tail -n 5 "$tmp/out")"
fi
run run pfc-fix --hook-stage manual --files bad.py
if [ "$status" -eq 0 ]; then
    ok "pfc-fix: a fixed file then passes"
else
    fail "pfc-fix: a fixed file then passes" "status $status: $(tail -n 5 "$tmp/out")"
fi

# the installed git hook, as a developer meets it
git checkout -q -- bad.py 2> /dev/null || printf 'import torch\n\n\ndef step(model, opt, x):\n    model(x).sum().backward()\n    opt.step()\n    opt.zero_grad\n' > bad.py
run install
git add -A
if git commit -qm "with a finding" > "$tmp/out" 2>&1; then
    fail "git commit: a finding blocks it" "the commit went through: $(tail -n 5 "$tmp/out")"
else
    grep -q 'TG304' "$tmp/out" && ok "git commit: a finding blocks it" ||
        fail "git commit: a finding blocks it" "$(tail -n 5 "$tmp/out")"
fi
git rm -q --cached bad.py && rm -f bad.py
if git commit -qm "clean" > "$tmp/out" 2>&1; then
    ok "git commit: clean files go through"
else
    fail "git commit: clean files go through" "$(tail -n 5 "$tmp/out")"
fi

echo "precommit: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
