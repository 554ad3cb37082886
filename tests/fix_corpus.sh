#!/usr/bin/env bash
# Autofix over corpora:
#  1. the rule fixture corpus, fixed with --fix --unsafe-fixes twice: the
#     second run changes nothing and every fixed file still parses;
#  2. the CPython standard library (newest found), fixed with --fix: no rule
#     flags it, so every file must stay byte-identical.
set -u
PFC=${PFC:-./pfc}
PFC=$(cd "$(dirname "$PFC")" && pwd)/$(basename "$PFC")
cd "$(dirname "$0")/.."
PYENV_ROOT=${PYENV_ROOT:-$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0 failed=0 skipped=0
ok() { echo "ok   $1"; passed=$((passed + 1)); }
bad() { echo "FAIL $1: $2"; failed=$((failed + 1)); }

cp -r tests/cases/rules "$TMP/rules"
cp -r tests/cases/rules "$TMP/original"
(cd "$TMP/rules" && "$PFC" lint --no-cache --fix --unsafe-fixes --select ALL . > /dev/null 2>&1)
changed=$(diff -rq "$TMP/original" "$TMP/rules" | grep -c '\.py differ')
cp -r "$TMP/rules" "$TMP/once"
(cd "$TMP/rules" && "$PFC" lint --no-cache --fix --unsafe-fixes --select ALL . > /dev/null 2>&1)
if ! diff -r "$TMP/once" "$TMP/rules" > "$TMP/second.diff"; then
    bad "fixture corpus idempotence" "a second --fix changed: $(head -5 "$TMP/second.diff")"
else
    ok "fixture corpus: $changed files fixed, a second --fix changes nothing"
fi
broken=$("$PFC" debug-corpus "$TMP/rules" | grep -c '^syntax\|^FAIL')
if [ "$broken" -ne 0 ]; then
    bad "fixed fixtures parse" "$broken files do not"
else
    ok "every fixed fixture parses"
fi
lines=$(diff -r "$TMP/original" "$TMP/rules" | grep -c '^[<>]')
echo "     (diff of the fixed corpus: $lines changed lines in $changed files)"

dir=$(ls -d "$PYENV_ROOT"/versions/3.1[0-9].* 2>/dev/null | sort -V | tail -n 1)
if [ -z "$dir" ]; then
    echo "SKIPPED stdlib --fix: no CPython under $PYENV_ROOT/versions"
    skipped=$((skipped + 1))
else
    stdlib=$("$dir/bin/python3" -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
    mkdir -p "$TMP/stdlib"
    (cd "$stdlib" && find . -name '*.py' -not -path './site-packages/*' -print0 |
        cpio -0pdm --quiet "$TMP/stdlib" 2>/dev/null) ||
        cp -r "$stdlib/." "$TMP/stdlib"
    cp -r "$TMP/stdlib" "$TMP/stdlib.orig"
    (cd "$TMP/stdlib" && "$PFC" lint --no-cache --fix . > /dev/null 2>&1)
    if diff -rq "$TMP/stdlib.orig" "$TMP/stdlib" > "$TMP/stdlib.diff"; then
        ok "stdlib $(basename "$dir"): --fix wrote nothing ($(find "$TMP/stdlib" -name '*.py' | wc -l) files)"
    else
        bad "stdlib --fix" "files changed: $(head -3 "$TMP/stdlib.diff")"
    fi
fi
echo "fixes: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
