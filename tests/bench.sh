#!/usr/bin/env bash
# make bench: pfc's parser against CPython's ast.parse on the same files, in the
# same run. Corpus: the CPython 3.11 standard library with its installed
# packages (.py files). Both sides read every file first and time parsing only.
set -eu
PFC=${PFC:-./pfc}
PFC=$(cd "$(dirname "$PFC")" && pwd)/$(basename "$PFC")
HERE=$(cd "$(dirname "$0")" && pwd)
PYENV_ROOT=${PYENV_ROOT:-$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")}
PY=$(ls -d "$PYENV_ROOT"/versions/3.11.* 2>/dev/null | sort -V | tail -n 1)/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)
CORPUS=${CORPUS:-$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')}
echo "corpus: $CORPUS ($("$PY" --version))"

field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p"; }

pfc_line=$("$PFC" debug-bench --repeat 3 "$CORPUS")
lint1_line=$("$PFC" debug-bench --lint --repeat 2 "$CORPUS")
lint2_line=$("$PFC" debug-bench --lint -j 2 --repeat 2 "$CORPUS")
py_line=$("$PY" "$HERE/tools/bench_ast.py" "$CORPUS")
echo "pfc parse (1 thread, best of 3):        $pfc_line"
echo "pfc lint (parse+IR+rules, 1 thread):    $lint1_line"
echo "pfc lint (parse+IR+rules, 2 threads):   $lint2_line"
echo "ast.parse (1 process):                  $py_line"
py_s=$(echo "$py_line" | field seconds)
ratio() { awk -v a="$py_s" -v b="$(echo "$2" | field seconds)" -v what="$1" \
    'BEGIN { printf "%-34s %.1fx faster than ast.parse\n", what ":", a / b }'; }
ratio "parse, 1 thread" "$pfc_line"
ratio "lint, 1 thread" "$lint1_line"
ratio "lint, 2 threads" "$lint2_line"

# The result cache, through the CLI: a cold run writes it, a warm one replays.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cold=$( { cd "$work" && /usr/bin/time -f %e "$PFC" lint -j 2 --output-format concise "$CORPUS" >/dev/null; } 2>&1 | tail -1)
warm=$( { cd "$work" && /usr/bin/time -f %e "$PFC" lint -j 2 --output-format concise "$CORPUS" >/dev/null; } 2>&1 | tail -1)
awk -v c="$cold" -v w="$warm" 'BEGIN { printf "lint CLI -j 2: cold cache %.2f s, warm cache %.2f s (%.0f%% of cold)\n", c, w, 100 * w / c }'

# The estimator against the calibration measurements: the peak per script,
# mean and worst error, the exact components and the time per script.
CAL=${CAL:-$(cd "$HERE/../.." && pwd)/shared/calibration}
[ -d "$CAL" ] || CAL=$(cd "$HERE/.." && pwd)/../shared/calibration
if [ -d "$CAL" ]; then
    "$PY" "$HERE/tools/estimator_accuracy.py" "$PFC" "$CAL"
else
    echo "estimator components: SKIPPED: no shared/calibration beside the checkout"
fi

# monitor()'s overhead per step (pfc_audit): a small MLP and a small CNN.
PYT=""
for p in ${PFC_PYTHON:-python3 /usr/bin/python3}; do
    "$p" -c 'import torch' 2>/dev/null && { PYT=$p; break; }
done
if [ -n "$PYT" ]; then "$PYT" "$HERE/tools/bench_monitor.py"; else echo "monitor overhead: SKIPPED: no python3 with PyTorch"; fi
