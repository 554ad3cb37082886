#!/usr/bin/env bash
# make realworld: lint the real-world corpus (tests/realworld/corpus, made
# from manifest.txt; not part of make test) and score the findings per rule
# (score.awk): against verdicts.tsv, real, false, debatable, not yet reviewed
# and the precision (real / (real + false)); against the known bugs (the real
# verdicts and the bugs found by hand in missed.tsv), the recall. A finding
# with no verdict is listed: it needs one. A missed bug that pfc now reports
# is listed too: its row moves to verdicts.tsv. A notebook finding
# (path.ipynb:cell N:LINE:COL) is keyed with the line field cellN:LINE;
# only its TG codes are scored (a cell Python cannot parse, E999, is not).
set -u
cd "$(dirname "$0")"
PFC=${PFC:-../../build/pfc}
CORPUS=${CORPUS:-corpus}
if [ ! -d "$CORPUS" ]; then
    echo "realworld: no corpus in tests/realworld/$CORPUS (see manifest.txt)"
    exit 0
fi
found=$(mktemp)
linted=$(mktemp)
trap 'rm -f "$found" "$linted"' EXIT
grep -v '^#' manifest.txt | while read -r repo commit sub; do
    [ -n "$repo" ] || continue
    dir="$CORPUS/${repo/\//+}${sub:+/$sub}"
    [ -d "$dir" ] || { echo "missing: $dir" >&2; continue; }
    echo "$repo" >> "$linted"
    # shellcheck disable=SC2086 # PFC_LINT_ARGS is a list of options (e.g. --extend-select TG303)
    "$PFC" lint --no-cache --output-format concise ${PFC_LINT_ARGS:-} "$dir" 2>/dev/null |
        sed -n -e "s|^$CORPUS/\([^+]*\)+\([^:]*\):\([0-9]*\):[0-9]*: \([A-Z0-9]*\) .*|\1/\2\t\3\t\4|p" \
            -e "s|^$CORPUS/\([^+]*\)+\([^:]*\.ipynb\):cell \([0-9]*\):\([0-9]*\):[0-9]*: \(TG[0-9]*\) .*|\1/\2\tcell\3:\4\t\5|p"
done > "$found"
missed=missed.tsv
[ -f "$missed" ] || missed=/dev/null
awk -F'\t' -v LINTED="$linted" -v VERDICTS=verdicts.tsv -v MISSED="$missed" -f score.awk \
    "$linted" verdicts.tsv "$missed" "$found"
