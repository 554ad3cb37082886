#!/usr/bin/env bash
# tests/realworld/run.sh scores findings by rule: precision against
# verdicts.tsv, recall against the known bugs (real verdicts + missed.tsv).
# Runs a copy of run.sh and score.awk on a made-up corpus with a stand-in
# pfc that prints fixed findings, so it needs neither the corpus nor a build.
set -u
SRC="$(cd "$(dirname "$0")" && pwd)/realworld"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0 failed=0
ok() { echo "ok   $1"; passed=$((passed + 1)); }
bad() { echo "FAIL $1: $2"; failed=$((failed + 1)); }

cp "$SRC/run.sh" "$SRC/score.awk" "$TMP/"
mkdir -p "$TMP/corpus/a+one" "$TMP/corpus/b+two/sub"
printf 'a/one 1111\nb/two 2222 sub\nc/absent 3333\n' > "$TMP/manifest.txt"
# the stand-in pfc: the findings under the linted folder
cat > "$TMP/pfc" <<'PFC'
#!/bin/sh
for last; do :; done
grep "^$last/" "$(dirname "$0")/findings.txt"
PFC
chmod +x "$TMP/pfc"
{
    for l in 1 2 3 4; do echo "corpus/a+one/t.py:$l:5: TG003 the model runs"; done
    echo "corpus/a+one/t.py:9:5: TG003 the model runs"
    echo "corpus/a+one/t.py:20:5: TG004 this DataLoader"
    echo "corpus/b+two/sub/u.py:7:1: TG001 keeps"
    echo "corpus/b+two/sub/u.py:8:1: TG001 keeps"
} > "$TMP/findings.txt"
{
    printf 'file\tline\tcode\tverdict\treason\n'
    for l in 1 2 3 4; do printf 'a/one/t.py\t%s\tTG003\treal\tr\n' "$l"; done
    printf 'a/one/t.py\t30\tTG004\treal\tno longer reported\n'
    printf 'b/two/sub/u.py\t7\tTG001\tfalse\tf\n'
    printf 'c/absent/x.py\t1\tTG003\treal\tnot linted\n'
} > "$TMP/verdicts.tsv"
{
    printf 'file\tline\tcode\tverdict\treason\n'
    printf 'a/one/t.py\t9\tTG003\tmissed\tnow reported\n'
    printf 'file\tline\tcode\tverdict\treason\n'   # a second header: files merged by concatenation
    printf 'a/one/t.py\t12\tTG003\tmissed\tstill missed\n'
    printf 'a/one/t.py\t1\tTG003\tmissed\talso a real verdict: counted once\n'
    printf 'c/absent/y.py\t2\tTG003\tmissed\tnot linted\n'
} > "$TMP/missed.tsv"

out=$(CORPUS=corpus PFC="$TMP/pfc" bash "$TMP/run.sh" 2>&1)
row() { echo "$out" | awk -v r="$1" '$1 == r'; }

if echo "$out" | grep -qF "now found: a/one/t.py	9	TG003 (move it to verdicts.tsv)"; then
    ok "a missed bug that pfc reports is listed as now found"
else
    bad "now found" "$(echo "$out" | head -12)"
fi
if echo "$out" | grep -q "no verdict: a/one/t.py	9"; then
    bad "now found is not unreviewed" "$(echo "$out" | grep 'no verdict')"
else
    ok "a missed bug that pfc reports needs no verdict"
fi
# TG003: real 4 + the now-found one; known = 4 real + 2 missed (line 1 once) = 6, found 5
if [ "$(row TG003 | awk '{print $2, $7, $8, $9}')" = "5 6 5 0.83" ]; then
    ok "recall from 5 known bugs on: found / (real verdicts + missed rows)"
else
    bad "recall TG003" "$(row TG003)"
fi
# TG004: one finding without a verdict, one real verdict no longer reported
if [ "$(row TG004 | awk '{print $7, $8, $9, $10}')" = "1 0 - (1)" ]; then
    ok "below 5 known bugs the recall is '-' with the count"
else
    bad "recall TG004" "$(row TG004)"
fi
if echo "$out" | grep -qF "no longer found: a/one/t.py	30	TG004"; then
    ok "a real verdict that pfc stopped reporting is listed and counts as missed"
else
    bad "no longer found" "$(echo "$out" | head -12)"
fi
if [ "$(row TG001 | awk '{print $3, $6}')" = "1 0.00" ]; then
    ok "precision still counts false verdicts"
else
    bad "precision TG001" "$(row TG001)"
fi
if echo "$out" | grep -q "c/absent"; then
    bad "repositories not linted" "$(echo "$out" | grep c/absent)"
else
    ok "bugs of repositories not linted are not counted"
fi
if [ "$(row all | awk '{print $2, $3, $5, $7, $8, $9}')" = "5 1 2 7 5 0.71" ]; then
    ok "the all row sums known and found bugs"
else
    bad "all row" "$(row all)"
fi
echo "realworld_score: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
