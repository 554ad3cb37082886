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

# The whole process, as a user runs it: every .py file of the corpus named on
# the command line (the files ast.parse read above), reading included.
# Rounds interleave the variants (ROUNDS, default 3) and each keeps its
# fastest: on a loaded machine the ratios of one round are what compare.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
find "$CORPUS" -name '*.py' -type f | LC_ALL=C sort > "$work/all.txt"
ROUNDS=${ROUNDS:-3}
# run NAME LIST DIR ARGS...: wall seconds and peak RSS (KB) into $work/NAME.best
run() {
    local name=$1 list=$2 dir=$3
    shift 3
    local t
    (cd "$dir" && /usr/bin/time -o "$work/time.out" -f "%e %M" "$PFC" lint --output-format concise \
        "$@" $(cat "$list") >/dev/null 2>&1) || true
    t=$(tail -n 1 "$work/time.out")
    if [ ! -s "$work/$name.best" ] || awk -v a="${t% *}" -v b="$(cut -d' ' -f1 "$work/$name.best")" \
        'BEGIN { exit !(a < b) }'; then
        echo "$t" > "$work/$name.best"
    fi
}
for r in $(seq 1 "$ROUNDS"); do
    rm -rf "$work/cache" && mkdir "$work/cache"
    run cold_j1 "$work/all.txt" "$work/cache" -j 1
    run warm_j1 "$work/all.txt" "$work/cache" -j 1
    run all_j1 "$work/all.txt" "$work" -j 1 --no-cache
    run all_j2 "$work/all.txt" "$work" -j 2 --no-cache
    run e999_j1 "$work/all.txt" "$work" -j 1 --no-cache --select E999
    run e999_j2 "$work/all.txt" "$work" -j 2 --no-cache --select E999
done
echo "whole process, $(wc -l < "$work/all.txt") files named on the command line (best of $ROUNDS):"
best() { cut -d' ' -f"$2" "$work/$1.best"; }
whole() {
    awk -v a="$py_s" -v t="$(best "$2" 1)" -v m="$(best "$2" 2)" -v what="$1" \
        'BEGIN { printf "  %-36s %7.2f s %6.1fx ast.parse  peak RSS %5.0f MB\n", what ":", t, a / t, m / 1024 }'
}
whole "lint --no-cache -j 1 (all rules)" all_j1
whole "lint --no-cache -j 2 (all rules)" all_j2
whole "lint --no-cache -j 1 --select E999" e999_j1
whole "lint --no-cache -j 2 --select E999" e999_j2
whole "lint -j 1, cold cache (writes it)" cold_j1
whole "lint -j 1, warm cache" warm_j1
awk -v a="$(best all_j1 1)" -v b="$(best all_j2 1)" -v c="$(best cold_j1 1)" -v w="$(best warm_j1 1)" \
    'BEGIN { printf "  -j 2 / -j 1: %.2fx; warm cache %.0f%% of cold; cold cache %+.0f%% over --no-cache\n", a / b, 100 * w / c, 100 * (c - a) / a }'

# Cost that grows linearly: evenly spread subsets of the corpus, and single
# large modules built from it (tests/tools/bench_big.py).
echo "scaling, lint --no-cache -j 1 (all rules):"
total=$(wc -l < "$work/all.txt")
for n in 1000 3000 6000 "$total"; do
    awk -v n="$n" -v t="$total" 'int((NR - 1) * n / t) != int(NR * n / t)' "$work/all.txt" > "$work/n$n.txt"
    bytes=$(cat $(cat "$work/n$n.txt") | wc -c)
    rm -f "$work/n$n.best"
    run "n$n" "$work/n$n.txt" "$work" -j 1 --no-cache
    awk -v n="$n" -v b="$bytes" -v t="$(best "n$n" 1)" -v m="$(best "n$n" 2)" \
        'BEGIN { printf "  %6d files %7.1f MB: %6.2f s, %5.1f us/file, %5.1f MB/s, peak RSS %4.0f MB\n", n, b / 1e6, t, 1e6 * t / n, b / 1e6 / t, m / 1024 }'
done
for mb in 1 10 50; do
    "$PY" "$HERE/tools/bench_big.py" "$CORPUS" "$mb" "$work/big$mb.py" >/dev/null
    echo "$work/big$mb.py" > "$work/big$mb.txt"
    bytes=$(wc -c < "$work/big$mb.py")
    run "big$mb" "$work/big$mb.txt" "$work" -j 1 --no-cache
    awk -v b="$bytes" -v t="$(best "big$mb" 1)" -v m="$(best "big$mb" 2)" \
        'BEGIN { printf "  one %5.1f MB file: %6.2f s, %5.1f MB/s, peak RSS %4.0f MB, %4.1f bytes per source byte\n", b / 1e6, t, b / 1e6 / t, m / 1024, m * 1024 / b }'
    rm -f "$work/big$mb.py"
done

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
