#!/usr/bin/env bash
# Progress of pfc lint on a terminal (script(1) gives it a pseudo-terminal):
# "pfc: N/M files" on stderr once a run lasts PFC_PROGRESS_AFTER_MS (one
# second by default; 0 here so that a short run shows it), erased at the
# end, stdout untouched (a JSON report still parses); never with CI set,
# TERM=dumb, off a terminal, or in a run shorter than the default second.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
PFC=${PFC:-$HERE/../build/pfc}
PFC=$(cd "$(dirname "$PFC")" && pwd)/$(basename "$PFC")
if ! command -v script > /dev/null || ! script -qec true /dev/null > /dev/null 2>&1; then
    echo "progress: 0 passed, 0 failed, 7 skipped (no script(1) with a pseudo-terminal)"
    exit 0
fi
passed=0 failed=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ok() { echo "ok   $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
mkdir -p "$tmp/proj"
for i in $(seq 1 40); do printf 'import torch\nx%d = torch.zeros(%d)\n' "$i" "$i" > "$tmp/proj/m$i.py"; done
cd "$tmp"
# on_tty ENV... : pfc lint on a terminal (stdout to out.json), what the terminal showed to tty.txt
on_tty() {
    env "$@" script -qec "'$PFC' lint --no-cache -j 2 --output-format json proj > out.json" /dev/null \
        > tty.txt 2>&1
}
unset CI
on_tty TERM=xterm PFC_PROGRESS_AFTER_MS=0
if grep -q 'pfc: [0-9]*/40 files' tty.txt; then ok "a terminal shows files done / total"; else
    fail "a terminal shows progress" "$(od -c tty.txt | head -n 3)"; fi
last=$(tr '\r' '\n' < tty.txt | tail -n 1)
[ -z "$(echo "$last" | tr -d ' ')" ] && ok "the line is erased at the end" ||
    fail "the line is erased" "last: '$last'"
python3 -c 'import json, sys; json.load(open("out.json"))' 2> /dev/null &&
    ok "stdout is untouched (the JSON parses)" || fail "stdout is untouched" "$(head -c 200 out.json)"
on_tty TERM=xterm PFC_PROGRESS_AFTER_MS=0 CI=true
[ ! -s tty.txt ] && ok "CI=true: none" || fail "CI=true: none" "$(od -c tty.txt | head -n 2)"
on_tty TERM=dumb PFC_PROGRESS_AFTER_MS=0
[ ! -s tty.txt ] && ok "TERM=dumb: none" || fail "TERM=dumb: none" "$(od -c tty.txt | head -n 2)"
on_tty TERM=xterm
[ ! -s tty.txt ] && ok "a run under a second: none" || fail "a run under a second: none" "$(od -c tty.txt | head -n 2)"
env PFC_PROGRESS_AFTER_MS=0 TERM=xterm "$PFC" lint --no-cache proj > out.txt 2> err.txt
[ ! -s err.txt ] && ok "stderr not a terminal: none" || fail "off a terminal: none" "$(head -c 100 err.txt)"
echo "progress: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
