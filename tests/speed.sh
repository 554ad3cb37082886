#!/usr/bin/env bash
# Work proportional to what is asked, seen through the system calls a run
# makes (strace), never through timings:
#  - `--select E999` lowers nothing, so it reads no imported project module;
#  - the linted files' directories are resolved once each, not once per file
#    (readlink calls, which realpath makes per path component);
#  - many explicit paths and many files of one directory give the same output
#    as each file alone (the hashed lookups of config resolution).
set -u
PFC=${PFC:-./pfc}
PFC=$(cd "$(dirname "$PFC")" && pwd)/$(basename "$PFC")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0 failed=0 skipped=0
ok() { echo "ok   $1"; passed=$((passed + 1)); }
bad() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
skip() { echo "skip $1: $2"; skipped=$((skipped + 1)); }

mkdir -p "$TMP/proj/pkg"
cat > "$TMP/proj/pkg/helper.py" <<'EOF'
import torch
def make():
    return torch.nn.Linear(2, 2)
EOF
for i in $(seq 1 40); do
    printf 'import helper\nfrom helper import make\nm = make()\nx = %d\n' "$i" > "$TMP/proj/pkg/f$i.py"
done
printf 'import torch\nfor x in y:\n    z = x  # noqa: TG001\n' > "$TMP/proj/pkg/noqa.py"

if ! command -v strace >/dev/null 2>&1; then
    skip "system calls of a syntax-only run" "strace is not installed"
    skip "one realpath per directory" "strace is not installed"
else
    (cd "$TMP/proj" && strace -f -qq -e trace=open,openat -o "$TMP/e999.trace" \
        "$PFC" lint --no-cache -j 1 --select E999 pkg/f1.py >/dev/null)
    (cd "$TMP/proj" && strace -f -qq -e trace=open,openat -o "$TMP/all.trace" \
        "$PFC" lint --no-cache -j 1 pkg/f1.py >/dev/null)
    if ! grep -q 'helper\.py' "$TMP/all.trace"; then
        bad "system calls of a syntax-only run" "the all-rules run did not read helper.py (the check would prove nothing)"
    elif grep -q 'helper\.py' "$TMP/e999.trace"; then
        bad "system calls of a syntax-only run" "--select E999 read the imported module: $(grep 'helper\.py' "$TMP/e999.trace" | head -1)"
    else
        ok "system calls of a syntax-only run: --select E999 reads no imported module"
    fi
    (cd "$TMP/proj" && strace -f -qq -c -e trace=readlink,readlinkat -o "$TMP/rl.trace" \
        "$PFC" lint --no-cache -j 1 pkg/f*.py >/dev/null)
    calls=$(awk '$NF ~ /^readlink/ { n += $4 } END { print n + 0 }' "$TMP/rl.trace")
    if [ "$calls" -lt 40 ]; then
        ok "one realpath per directory: $calls readlink calls for 40 files of one directory"
    else
        bad "one realpath per directory" "$calls readlink calls for 40 files of one directory"
    fi
    # nested directories named by absolute paths: each resolves from its
    # parent's answer (one lstat), so the readlink calls do not grow with the
    # number of directories times their depth (they did: about 3 realpaths
    # per directory, one readlink per component each)
    deep="$TMP/proj/d1"
    for d in d2 d3 d4 d5 d6 d7 d8; do
        mkdir -p "$deep"
        for i in 1 2 3; do cp "$TMP/proj/pkg/f$i.py" "$deep/"; done
        deep="$deep/$d"
    done
    strace -f -qq -c -e trace=readlink,readlinkat -o "$TMP/rl2.trace" \
        "$PFC" lint --no-cache -j 1 $(find "$TMP/proj/d1" -name '*.py' | sort) >/dev/null
    calls=$(awk '$NF ~ /^readlink/ { n += $4 } END { print n + 0 }' "$TMP/rl2.trace")
    depth=$(echo "$TMP/proj/d1" | tr -cd / | wc -c)
    if [ "$calls" -le $((depth + 4)) ]; then
        ok "nested directories: $calls readlink calls for 7 levels under a $depth-component path"
    else
        bad "nested directories" "$calls readlink calls for 7 levels under a $depth-component path"
    fi
fi

# a directory named through a symlink resolves to its target: its imports
# are found beside the target, as python would
ln -s pkg "$TMP/proj/lnk"
(cd "$TMP/proj" && "$PFC" lint --no-cache --output-format concise --select ALL pkg/f1.py |
    grep -v '^All checks\|^Found' | sed 's|^pkg/||' > "$TMP/real.out")
(cd "$TMP/proj" && "$PFC" lint --no-cache --output-format concise --select ALL lnk/f1.py |
    grep -v '^All checks\|^Found' | sed 's|^lnk/||' > "$TMP/link.out")
(cd "$TMP/proj" && "$PFC" dump-ir lnk/f1.py > "$TMP/link.ir" 2>&1)
if cmp -s "$TMP/real.out" "$TMP/link.out" && grep -q 'CALL m .*roles=model' "$TMP/link.ir"; then
    ok "a symlinked directory: the same findings, its import resolved"
else
    bad "a symlinked directory" "$(diff "$TMP/real.out" "$TMP/link.out" | head -3; grep -c "CALL m .*roles=model" "$TMP/link.ir")"
fi

# the same findings whether files are named one by one or all at once, and
# whether a run is syntax-only or not (for the syntax errors)
printf 'def f(:\n' > "$TMP/proj/pkg/bad.py"
(cd "$TMP/proj" && for f in pkg/*.py; do "$PFC" lint --no-cache --output-format concise "$f"; done |
    grep -v '^All checks\|^Found' > "$TMP/one.out")
(cd "$TMP/proj" && "$PFC" lint --no-cache --output-format concise pkg/*.py |
    grep -v '^All checks\|^Found' > "$TMP/many.out")
if cmp -s "$TMP/one.out" "$TMP/many.out" && [ -s "$TMP/many.out" ]; then
    ok "explicit paths: one run over all gives what runs over each give"
else
    bad "explicit paths" "$(diff "$TMP/one.out" "$TMP/many.out" | head -3)"
fi
(cd "$TMP/proj" && "$PFC" lint --no-cache --output-format concise --select E999 pkg \
    > "$TMP/e999.out")
if grep -q 'pkg/bad.py:1:[0-9]*: E999' "$TMP/e999.out" && ! grep -q 'TG' "$TMP/e999.out"; then
    ok "--select E999 reports the syntax error and nothing else"
else
    bad "--select E999" "$(head -3 "$TMP/e999.out")"
fi

if [ "$skipped" -gt 0 ]; then
    echo "speed: $passed passed, $failed failed, $skipped skipped"
else
    echo "speed: $passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
