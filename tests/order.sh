#!/usr/bin/env bash
# The facts are a fixpoint from bottom: findings never depend on the order in
# which functions are defined. Every rule and fix fixture with a run of two or
# more functions (module level or in a class) is linted as written, with the
# runs reversed and shuffled; the findings, lines mapped back, must not change.
set -u
cd "$(dirname "$0")/.."
PFC=${PFC:-build/pfc}
PYENV_ROOT=${PYENV_ROOT:-$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")}
PY=$(ls -d "$PYENV_ROOT"/versions/3.13.*/bin/python3 2>/dev/null | tail -1)
[ -n "$PY" ] || PY=python3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$PY" tests/tools/check_order.py "$PFC" "$TMP" tests/cases/rules/*/*.py tests/cases/fixes/*.py
