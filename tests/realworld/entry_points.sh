#!/usr/bin/env bash
# The estimator on the real-world corpus (issue 12's "Must show 2"): every
# training entry point of the corpus (a file that calls backward(), builds a
# Trainer or calls trainer.train(); tests excluded) is estimated, and the
# answers are counted: how many get an estimate, and why the others are
# refused, grouped by the refusal's first words. Not part of make test.
#   PFC=build/pfc tests/realworld/entry_points.sh [OUT.tsv]
# OUT.tsv (default: a temp file, printed path) has one row per file:
#   file<TAB>ok<TAB>peak bytes<TAB>ops assumed   or   file<TAB>refused<TAB>why
set -u
here=$(cd "$(dirname "$0")" && pwd)
PFC=$(realpath "${PFC:-$here/../../build/pfc}")
CORPUS=${CORPUS:-$here/corpus}
out=${1:-$(mktemp --suffix=.tsv)}
out=$(realpath -m "$out")
[ -d "$CORPUS" ] || { echo "entry_points: no corpus at $CORPUS"; exit 0; }
cd "$CORPUS"
: > "$out"
grep -rlE '\.backward\(|trainer\.train\(|Trainer\(' --include='*.py' . | grep -v '/test' | sort |
while read -r f; do
    timeout 10 "$PFC" estimate "$f" --json 2>/dev/null | python3 "$here/entry_row.py" "$f" >> "$out"
done
total=$(wc -l < "$out")
ok=$(awk -F'\t' '$2=="ok"' "$out" | wc -l)
echo "entry points: $total, estimated: $ok"
awk -F'\t' '$2!="ok"{ m=$3; sub(/^[^:]*\.py:[0-9]+: /, "", m); split(m, w, ":"); print w[1] }' "$out" |
    sed 's/[0-9][0-9.]*/N/g' | cut -c1-70 | sort | uniq -c | sort -rn | head -15
echo "rows: $out"
