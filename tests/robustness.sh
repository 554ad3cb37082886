#!/usr/bin/env bash
# No input crashes or hangs pfc:
#  - truncated and byte-replaced copies of every stdlib file (in process,
#    8 per file) parse, keep the tree invariants and round-trip;
#  - pathological files end in a clear error with a location, exit status 1,
#    within a time limit: 10 MB files, 5,000 nested brackets, invalid UTF-8,
#    NUL bytes, deep indentation, long operator chains; unreadable paths exit
#    with E902.
set -u
PFC=${PFC:-./pfc}
PYENV_ROOT=${PYENV_ROOT:-$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0 failed=0 skipped=0
ok() { echo "ok   $1"; passed=$((passed + 1)); }
bad() { echo "FAIL $1: $2"; failed=$((failed + 1)); }

for dir in $(ls -d "$PYENV_ROOT"/versions/3.{9,10,11,12,13}.* 2>/dev/null | sort -V); do
    stdlib=$("$dir/bin/python3" -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])' 2>/dev/null) || continue
    out=$("$PFC" debug-corpus --mutate 8 "$stdlib" | grep -E '^(FAIL|summary)')
    if echo "$out" | grep -q '^FAIL'; then
        bad "mutated copies of $(basename "$dir") stdlib" "$(echo "$out" | grep '^FAIL' | head -3)"
    else
        ok "mutated copies of $(basename "$dir") stdlib: $(echo "$out" | tail -1 | cut -f2)"
    fi
done

# expect NAME FILE WANT_STATUS PATTERN: pfc lint must finish in time with the
# status and print PATTERN (a location and message), and emit must round-trip.
expect() {
    local name=$1 file=$2 want=$3 pattern=$4
    timeout 60 "$PFC" lint --no-cache --output-format concise "$file" > "$TMP/out" 2>&1
    local status=$?
    if [ "$status" -ne "$want" ]; then
        bad "$name" "exit status $status, expected $want: $(head -c 300 "$TMP/out")"
        return
    fi
    if ! grep -qE -- "$pattern" "$TMP/out"; then
        bad "$name" "output lacks /$pattern/: $(head -c 300 "$TMP/out")"
        return
    fi
    if [ -f "$file" ]; then
        timeout 60 "$PFC" emit "$file" > "$TMP/emit" 2>/dev/null
        if ! cmp -s "$TMP/emit" "$file"; then
            bad "$name" "does not round-trip"
            return
        fi
    fi
    ok "$name"
}

big() { # 10 MB of valid code
    local line='total = total + compute(alpha, beta[3], gamma=(1, 2, 3))  # comment'
    yes "$line" | head -c 10485760 | head -n -1 > "$1"
}
big "$TMP/big.py"
expect "10 MB valid file" "$TMP/big.py" 0 'All checks passed'
{ printf 'x = ['; yes '1,' | head -n 700000 | tr -d '\n'; printf ']\n'; } > "$TMP/longline.py"
expect "1.4 MB single line" "$TMP/longline.py" 0 'All checks passed'
{ printf 'x = '; yes '(' | head -n 5000 | tr -d '\n'; yes ')' | head -n 5000 | tr -d '\n'; echo; } > "$TMP/nest.py"
expect "5,000 nested brackets" "$TMP/nest.py" 1 ':1:[0-9]+: E999 too many nested parentheses'
{ printf 'x = '; yes '[' | head -n 5000 | tr -d '\n'; echo; } > "$TMP/unclosed.py"
expect "5,000 unclosed brackets" "$TMP/unclosed.py" 1 ':1:[0-9]+: E999 '
{ printf 'x = 1'; yes ' + a' | head -n 200000 | tr -d '\n'; echo; } > "$TMP/chain.py"
expect "200,000-term sum" "$TMP/chain.py" 0 'All checks passed'
{ printf 'x = 2'; yes '**2' | head -n 100000 | tr -d '\n'; echo; } > "$TMP/power.py"
expect "100,000-term power chain" "$TMP/power.py" 1 ':1:[0-9]+: E999 too many nested'
{ printf 'x = '; yes 'a.' | head -n 100000 | tr -d '\n'; echo 'b()()()[0]'; } > "$TMP/attrs.py"
expect "100,000-long attribute chain" "$TMP/attrs.py" 0 'All checks passed'
{ printf 'x = '; yes '-' | head -n 100000 | tr -d '\n'; echo 'y'; } > "$TMP/unary.py"
expect "100,000 unary minus" "$TMP/unary.py" 1 ':1:[0-9]+: E999 too many nested'
{ for i in $(seq 0 120); do printf '%*sif x:\n' "$i" ''; done; printf '%*spass\n' 121 ''; } > "$TMP/deep.py"
expect "121 nested blocks" "$TMP/deep.py" 1 'E999 too many levels of indentation'
printf 'x = 1\n# caf\xe9\ny = "\xff\xfe"\n' > "$TMP/utf8.py"
expect "invalid UTF-8" "$TMP/utf8.py" 1 ':2:6: E999 invalid UTF-8'
printf 'x = 1\ny = \0\0 + 2\n' > "$TMP/nul.py"
expect "NUL bytes" "$TMP/nul.py" 1 ':2:5: E999 source code cannot contain null bytes'
head -c 100000 /dev/zero > "$TMP/zeros.py"
expect "100,000 NUL bytes" "$TMP/zeros.py" 1 ':1:1: E999 source code cannot contain null bytes'
head -c 2000000 /dev/urandom > "$TMP/random.py"
expect "2 MB of random bytes" "$TMP/random.py" 1 'E999'
yes 'if x' | head -n 300000 > "$TMP/manyerrors.py"
expect "300,000 broken lines" "$TMP/manyerrors.py" 1 ':1:5: E999 expected'
printf 'def f(:\n  """unterminated\n' > "$TMP/trunc.py"
expect "unterminated docstring at EOF" "$TMP/trunc.py" 1 'E999 unterminated triple-quoted string'
expect "missing file" "$TMP/nonexistent.py" 1 'nonexistent.py:1:1: E902 No such file or directory'
mkdir -p "$TMP/dir.py"
expect "directory named .py" "$TMP/dir.py" 0 'All checks passed'
# found by the fuzzer: a loop in unreachable code after `raise` made the SSA
# construction recurse around the loop forever
expect "loop after raise (fuzz)" "$(dirname "$0")/fuzz/regress_unreachable_loop.py" 1 ':17:13: TG003'
{ printf 'raise\n'; for i in $(seq 1 3000); do printf 'if x:\n    y = %d\n' "$i"; done; printf 'print(y)\n'; } > "$TMP/deadchain.py"
expect "3,000 ifs after raise" "$TMP/deadchain.py" 0 'All checks passed'

# pfc estimate on files that are not training scripts, or are pathological:
# an answer (a number or a reason), never a crash or a hang
estimate_ok() {
    local name=$1 file=$2
    timeout 60 "$PFC" estimate --json "$file" > "$TMP/est" 2>&1
    local status=$?
    if [ "$status" -gt 1 ] || ! grep -q '"error"' "$TMP/est"; then
        bad "estimate: $name" "exit status $status: $(head -c 300 "$TMP/est")"
    else
        ok "estimate: $name"
    fi
}
estimate_ok "loop after raise (fuzz)" "$(dirname "$0")/fuzz/regress_unreachable_loop.py"
estimate_ok "200,000-term sum" "$TMP/chain.py"
estimate_ok "100,000-long attribute chain" "$TMP/attrs.py"
{ echo 'import torch'; echo 'def f(n):'; echo '    return f(n + 1)'; echo 'class M(torch.nn.Module):';
  echo '    def forward(self, x):'; echo '        return f(x)'; echo 'm = M()'; echo 'm(torch.randn(2)).sum().backward()'; } > "$TMP/recurse.py"
estimate_ok "infinite recursion in forward" "$TMP/recurse.py"
{ echo 'import torch'; echo 'class M(torch.nn.Module):'; echo '    def forward(self, x):';
  echo '        while True:'; echo '            x = x + 1'; echo '        return x';
  echo 'M()(torch.randn(2)).sum().backward()'; } > "$TMP/spin.py"
estimate_ok "endless loop in forward" "$TMP/spin.py"
{ echo 'import torch'; echo 'import torch.nn as nn';
  echo 'm = nn.Sequential(*[nn.Linear(64, 64) for _ in range(20000)]).cuda()';
  echo 'm(torch.randn(8, 64, device="cuda")).sum().backward()'; } > "$TMP/wide.py"
estimate_ok "20,000-layer model" "$TMP/wide.py"
{ echo 'import torch'; echo 'a0 = 64'; for i in $(seq 1 20000); do echo "a$i = a$((i - 1)) + 1"; done;
  echo 'm = torch.nn.Linear(a20000, 10).cuda()'; echo 'm(torch.randn(8, a20000, device="cuda")).sum().backward()'; } > "$TMP/chain_consts.py"
estimate_ok "20,000 chained constants" "$TMP/chain_consts.py"

echo "robustness: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
