#!/usr/bin/env bash
# pfc audit: the pfc_audit package's unit tests (every case through the runner
# and through audit(), the report API, monitor, the Trainer callback protocol)
# in two Python processes, then a handful of `pfc audit` runs through the CLI:
# each output format on a broken case, a clean twin, a crash, the missing
# package and the missing PyTorch. Needs PyTorch (CI installs python3-torch):
# without it the suite fails, it does not skip.
set -u
cd "$(dirname "$0")/.."
PFC=${PFC:-build/pfc}
PFC=$(cd "$(dirname "$PFC")" && pwd)/$(basename "$PFC")
CASES=audit/tests/cases
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0 failed=0
ok() { echo "ok   $1"; passed=$((passed + 1)); }
bad() { echo "FAIL $1: $2"; failed=$((failed + 1)); }

# the Python pfc audit would pick: $PFC_PYTHON, python3, the system's
PY=""
for py in ${PFC_PYTHON:-python3 /usr/bin/python3}; do
    if "$py" -c 'import importlib.util, sys; sys.exit(not importlib.util.find_spec("torch"))' 2>/dev/null; then
        PY=$py
        break
    fi
done
if [ -z "$PY" ]; then
    bad "pytorch" "no python3 with PyTorch (make deps installs python3-torch)"
    echo "audit.sh: $passed passed, $failed failed"
    exit 1
fi

# unittest -v: one ok/FAIL line per test
unit() {
    local file=$1
    PFC=$PFC PYTHONDONTWRITEBYTECODE=1 timeout 300 "$PY" -W ignore "$file" -v > "$TMP/unit" 2>&1
    local status=$? n
    n=$(grep -cE ' \.\.\. ok$' "$TMP/unit")
    passed=$((passed + n))
    while read -r line; do
        bad "$(basename "$file") $line" "see below"
    done < <(grep -E ' \.\.\. (FAIL|ERROR)$' "$TMP/unit" | sed 's/ \.\.\. .*//')
    if [ "$status" -ne 0 ]; then
        grep -vE ' \.\.\. ok$' "$TMP/unit" | tail -40
        grep -qE ' \.\.\. (FAIL|ERROR)$' "$TMP/unit" || bad "$(basename "$file")" "exit $status"
    else
        echo "ok   $(basename "$file"): $n tests"
    fi
}
unit audit/tests/test_cases.py
unit audit/tests/test_api.py

# audit NAME WANT_STATUS PATTERN [pfc audit args...]: status and output
audit() {
    local name=$1 want=$2 pattern=$3
    shift 3
    PYTHONDONTWRITEBYTECODE=1 timeout 120 "$PFC" audit "$@" > "$TMP/out" 2> "$TMP/err"
    local status=$?
    if [ "$status" -ne "$want" ]; then
        bad "$name" "exit $status, expected $want: $(head -c 400 "$TMP/out") $(tail -c 400 "$TMP/err")"
    elif ! grep -qE -- "$pattern" "$TMP/out" "$TMP/err"; then
        bad "$name" "output lacks /$pattern/: $(head -c 400 "$TMP/out")"
    else
        ok "$name"
    fi
}

audit "full: dead ReLU pinned to its line, with the source" 1 \
    '^  [0-9]+:[0-9]+  warning TG403 \(dead-relu\)' $CASES/dead_relu_bad.py
grep -q 'self.act = nn.ReLU()' "$TMP/out" && ok "full: the snippet is the ReLU's line" \
    || bad "full: the snippet is the ReLU's line" "$(head -c 400 "$TMP/out")"
export PFC_PYTHON=$PY   # the search is tested once, above: a pyenv shim probe is slow
audit "json: optimizer before the adapters is TG101" 1 '"code": "TG101"' \
    --output-format json $CASES/lora_optimizer_first_bad.py
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d and all("location" in f for f in d)' \
    "$TMP/out" && ok "json: a valid array of findings" || bad "json: a valid array" "$(head -c 300 "$TMP/out")"
audit "sarif: DDP unused parameters is TG406" 1 '"ruleId": "TG406"' \
    --output-format sarif $CASES/ddp_unused_bad.py
"$PY" -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"][0]; ids=[x["id"] for x in r["tool"]["driver"]["rules"]]; assert all(x["ruleId"] in ids for x in r["results"])' \
    "$TMP/out" && ok "sarif: valid, every result in the rule table" || bad "sarif: valid" "$(head -c 300 "$TMP/out")"
audit "concise: the correct twin is clean" 0 'All checks passed!' \
    --output-format concise $CASES/dead_relu_ok.py
audit "github: no optimizer is a TG408 notice, after one backward" 0 \
    '^::notice title=pfc \(TG408\).*first backward' --output-format github $CASES/no_optimizer_note.py
printf 'import sys\nprint("args", sys.argv[1:])\nraise RuntimeError("no data in %%s" %% sys.argv[1])\n' > "$TMP/crash.py"
audit "a crash is the script's, exit 2, with its line and arguments" 2 \
    "raised before its first optimizer step: RuntimeError: no data in /nowhere \(.*crash.py:3\)" \
    "$TMP/crash.py" -- /nowhere
grep -q 'All checks passed' "$TMP/out" && bad "a crash is not called clean" "$(head -c 300 "$TMP/out")" \
    || ok "a crash is not called clean"
grep -q "args \['/nowhere'\]" "$TMP/err" && ok "the script's stdout goes to stderr, its arguments through" \
    || bad "script stdout to stderr" "$(head -c 300 "$TMP/err")"
PFC_AUDIT_PATH=$TMP/none audit "no package: exit 2, one line" 2 'pfc_audit package is not installed' "$TMP/crash.py"
printf '#!/bin/sh\nexec %s -S "$@"\n' "$PY" > "$TMP/py-no-site" && chmod +x "$TMP/py-no-site"
PFC_PYTHON=$TMP/py-no-site audit "no torch: exit 2, one line" 2 'PyTorch is not installed' "$TMP/crash.py"
PFC_PYTHON=$TMP/nonexistent audit "no python: exit 2, one line" 2 'python3 not found' "$TMP/crash.py"
audit "usage: a script is required" 2 'audit expects a script'

for code in TG401 TG402 TG403 TG404 TG405 TG406 TG407 TG408; do
    out=$("$PFC" explain "${code,,}" 2>&1)
    if [ $? -eq 0 ] && echo "$out" | grep -q "^$code .*reported by pfc audit" && echo "$out" | grep -q '^What: '; then
        ok "explain $code"
    else
        bad "explain $code" "$(echo "$out" | head -2)"
    fi
done
"$PFC" help | grep -q '^  audit .*SCRIPT' && ok "help lists audit" || bad "help lists audit" "missing"

echo "audit.sh: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
