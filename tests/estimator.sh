#!/usr/bin/env bash
# The estimator against ../shared/calibration (real peaks measured on an H200):
# every script must be read, the mean absolute error of the allocated peak
# must stay at or under 5% and the worst at or under 15% (issue 4's targets),
# and trainable parameters and optimizer state must match exactly. The full
# table is tests/tools/estimator_accuracy.py's (make bench prints it too).
# Without the calibration folder or python3 the checks count as skipped.
set -u
PFC=${PFC:-./pfc}
HERE=$(cd "$(dirname "$0")" && pwd)
CAL=${CAL:-$(cd "$HERE/../.." && pwd)/shared/calibration}
if [ ! -f "$CAL/measured.jsonl" ] || ! command -v python3 > /dev/null; then
    echo "estimator: 0 passed, 0 failed, 4 skipped (no calibration data or python3)"
    exit 0
fi
out=$(python3 "$HERE/tools/estimator_accuracy.py" "$PFC" "$CAL")
echo "$out" | grep -E '^(peak|components|time):'
passed=0 failed=0
check() {   # check NAME CONDITION-OUTPUT
    if [ "$2" = yes ]; then
        echo "ok   $1"; passed=$((passed + 1))
    else
        echo "FAIL $1"; failed=$((failed + 1))
    fi
}
summary=$(echo "$out" | grep '^peak: [0-9]* scripts')
unread=$(echo "$summary" | sed -n 's/.* \([0-9][0-9]*\) not read.*/\1/p')
mean=$(echo "$summary" | sed -n 's/.*mean absolute error \([0-9.]*\)%.*/\1/p')
worst=$(echo "$summary" | sed -n 's/.*worst \([0-9.]*\)%.*/\1/p')
check "every calibration script read (${unread:-?} not read)" "$([ "${unread:-1}" -eq 0 ] && echo yes)"
check "mean absolute error ${mean:-?}% <= 5%" "$(awk -v m="${mean:-100}" 'BEGIN { print (m <= 5 ? "yes" : "no") }')"
check "worst absolute error ${worst:-?}% <= 15%" "$(awk -v w="${worst:-100}" 'BEGIN { print (w <= 15 ? "yes" : "no") }')"
exact=$(echo "$out" | grep -E '^components: (trainable|optimizer state)' |
        awk '{ if ($(NF-5) != $(NF-3)) bad = 1 } END { print (NR == 2 && !bad) ? "yes" : "no" }')
check "trainable parameters and optimizer state exact" "$exact"
echo "estimator: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
