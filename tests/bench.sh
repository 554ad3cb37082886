#!/usr/bin/env bash
# make bench: pfc's parser against CPython's ast.parse on the same files, in the
# same run. Corpus: the CPython 3.11 standard library with its installed
# packages (.py files). Both sides read every file first and time parsing only.
set -eu
PFC=${PFC:-./pfc}
HERE=$(cd "$(dirname "$0")" && pwd)
PYENV_ROOT=${PYENV_ROOT:-$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")}
PY=$(ls -d "$PYENV_ROOT"/versions/3.11.* 2>/dev/null | sort -V | tail -n 1)/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)
CORPUS=${CORPUS:-$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')}
echo "corpus: $CORPUS ($("$PY" --version))"

field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p"; }

pfc_line=$("$PFC" debug-bench --repeat 3 "$CORPUS")
py_line=$("$PY" "$HERE/tools/bench_ast.py" "$CORPUS")
echo "pfc parse (1 thread, best of 3): $pfc_line"
echo "ast.parse (1 process):           $py_line"
pfc_s=$(echo "$pfc_line" | field seconds)
py_s=$(echo "$py_line" | field seconds)
awk -v a="$py_s" -v b="$pfc_s" 'BEGIN { printf "speed-up: pfc is %.1fx faster than ast.parse\n", a / b }'
