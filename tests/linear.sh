#!/usr/bin/env bash
# Pathological but valid inputs finish in linear time: one call with 300,000
# arguments, single lines of about 1 MB (a call, a list, a sum, an f-string),
# 300,000 `;`-separated statements, a 50,000-clause elif chain, distinct names
# and a training script whose loop holds such a line. Each goes through lint,
# dump-ir and estimate under a generous timeout (a hang, not speed, fails).
# LINEAR_SCALE=N multiplies the sizes (N=20 gives the 20 MB lines of issue 10).
set -u
PFC=${PFC:-./pfc}
SCALE=${LINEAR_SCALE:-1}
LIMIT=${LINEAR_TIMEOUT:-30}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0 failed=0
ok() { echo "ok   $1"; passed=$((passed + 1)); }
bad() { echo "FAIL $1: $2"; failed=$((failed + 1)); }

# repeat TEXT N: TEXT N times, on one line
repeat() { yes "$1" | head -n "$2" | tr -d '\n'; }

# run_one NAME FILE CMD OK_STATUSES...: CMD must end in time with one of them
run_one() {
    local name=$1 file=$2 cmd=$3 status
    shift 3
    case $cmd in
    lint) timeout "$LIMIT" "$PFC" lint --no-cache --output-format concise "$file" > "$TMP/out" 2>&1 ;;
    *) timeout "$LIMIT" "$PFC" "$cmd" "$file" > /dev/null 2> "$TMP/out" ;;
    esac
    status=$?
    for want in "$@"; do
        [ "$status" -eq "$want" ] && return 0
    done
    if [ "$status" -eq 124 ]; then
        bad "$name" "$cmd timed out after ${LIMIT}s"
    else
        bad "$name" "$cmd exit status $status: $(head -c 200 "$TMP/out")"
    fi
    return 1
}

# check NAME FILE: lint 0/1, dump-ir 0, estimate 0/1 (a verdict or a reason)
check() {
    local name=$1 file=$2
    run_one "$name" "$file" lint 0 1 || return
    run_one "$name" "$file" dump-ir 0 || return
    run_one "$name" "$file" estimate 0 1 || return
    ok "$name"
}

n=$((300000 * SCALE))
{ printf 'f(a'; repeat ', a' "$n"; echo ')'; } > "$TMP/args.py"
check "call with $n arguments" "$TMP/args.py"
{ printf 'x = [a'; repeat ', a' "$n"; echo ']'; } > "$TMP/list.py"
check "list of $n elements" "$TMP/list.py"
{ printf 'x = 1'; repeat ' + a' "$n"; echo; } > "$TMP/sum.py"
check "sum of $n terms" "$TMP/sum.py"
{ printf 'x = f"'; repeat '{a}' "$n"; echo '"'; } > "$TMP/fstr.py"
check "f-string of $n fields" "$TMP/fstr.py"
{ printf 'a = 1'; repeat '; a = 1' "$n"; echo; } > "$TMP/semi.py"
check "$n statements on one line" "$TMP/semi.py"
seq 1 "$n" | sed 's/.*/a& = &/' | paste -sd';' > "$TMP/names.py"
check "$n distinct names on one line" "$TMP/names.py"
{ printf 'import m0'; seq 1 "$n" | sed 's/^/, m/' | tr -d '\n'; echo; } > "$TMP/imports.py"
check "import of $n modules" "$TMP/imports.py"

m=$((50000 * SCALE))
{ echo 'if a:'; echo '    b = 0'; seq 1 "$m" | sed 's/.*/elif a&:\n    b = &/'; echo 'print(b)'; } > "$TMP/elif.py"
check "elif chain of $m clauses" "$TMP/elif.py"
{ echo 'for i in b:'; seq 1 "$m" | sed 's/.*/    if a&: c = i/'; } > "$TMP/loop.py"
check "loop of $m ifs" "$TMP/loop.py"

{ cat <<'PY'
import torch
model = torch.nn.Linear(10, 10).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(10):
    x = torch.randn(32, 10, device="cuda")
    y = model(x)
PY
    printf '    z = torch.cat([x'; repeat ', x' "$n"; echo '])'
    printf '    w = x'; repeat ' + x' "$n"; echo
    printf '    s = f"'; repeat '{x}' "$n"; echo '"'
    printf '    t = x * 2'; repeat '; t = x * 2' "$n"; echo
    cat <<'PY'
    loss = y.sum()
    loss.backward()
    opt.step()
    opt.zero_grad()
PY
} > "$TMP/train.py"
check "training loop with $n-element lines" "$TMP/train.py"

echo "linear: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
