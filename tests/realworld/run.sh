#!/usr/bin/env bash
# make realworld: lint the real-world corpus (tests/realworld/corpus, made
# from manifest.txt; not part of make test) and score the findings against
# verdicts.tsv, per rule: real, false, debatable, not yet reviewed, and the
# precision (real / (real + false)). A finding with no verdict is listed: it
# needs one.
set -u
cd "$(dirname "$0")"
PFC=${PFC:-../../build/pfc}
CORPUS=${CORPUS:-corpus}
if [ ! -d "$CORPUS" ]; then
    echo "realworld: no corpus in tests/realworld/$CORPUS (see manifest.txt)"
    exit 0
fi
found=$(mktemp)
trap 'rm -f "$found"' EXIT
grep -v '^#' manifest.txt | while read -r repo commit sub; do
    [ -n "$repo" ] || continue
    dir="$CORPUS/${repo/\//+}${sub:+/$sub}"
    [ -d "$dir" ] || { echo "missing: $dir" >&2; continue; }
    "$PFC" lint --no-cache --output-format concise "$dir" 2>/dev/null |
        sed -n "s|^$CORPUS/\([^+]*\)+\([^:]*\):\([0-9]*\):[0-9]*: \([A-Z0-9]*\) .*|\1/\2\t\3\t\4|p"
done > "$found"
awk -F'\t' '
    NR == FNR { if (FNR > 1) v[$1 "\t" $2 "\t" $3] = $4; next }
    {
        key = $1 "\t" $2 "\t" $3; code = $3; codes[code] = 1
        verdict = (key in v) ? v[key] : "unreviewed"
        n[code, verdict]++
        if (verdict == "unreviewed") print "no verdict: " key
    }
    END {
        printf "%-6s %5s %5s %9s %10s %9s\n", "rule", "real", "false", "debatable", "unreviewed", "precision"
        for (c in codes) {
            r = n[c, "real"] + 0; f = n[c, "false"] + 0
            p = r + f ? sprintf("%.2f", r / (r + f)) : "-"
            printf "%-6s %5d %5d %9d %10d %9s\n", c, r, f, n[c, "debatable"] + 0, n[c, "unreviewed"] + 0, p
            R += r; F += f
        }
        printf "all    %5d %5d                      %9s\n", R, F, R + F ? sprintf("%.2f", R / (R + F)) : "-"
    }' verdicts.tsv "$found"
