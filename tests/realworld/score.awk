# Scores pfc's findings on the real-world corpus (run.sh builds the inputs).
# awk -F'\t' -v LINTED=F -v VERDICTS=F -v MISSED=F -f score.awk LINTED VERDICTS MISSED FOUND
#   LINTED    one OWNER/NAME a line: the repositories linted this run
#   VERDICTS  verdicts.tsv: file, line, code, real|false|debatable, reason
#   MISSED    missed.tsv: file, line, code, missed, reason (bugs found by hand)
#   FOUND     the findings: file, line, code
# Files are told apart by name, not by order: an empty one has no first line.
# A header line (first field "file") or a comment may appear anywhere, so
# that branches adding rows merge by concatenation.
#
# Precision per rule: real / (real + false) over the findings.
# Recall per rule: found / known, where the known bugs are the real verdicts
# and the missed rows of the linted repositories, each (file, line, code) once.
# It is printed only from 5 known bugs on: below that it says nothing.

function key_of() { return $1 "\t" $2 "\t" $3 }

function repo_of(k,    f, p) {
    split(k, f, "\t")
    split(f[1], p, "/")
    return p[1] "/" p[2]
}

function code_of(k,    f) { split(k, f, "\t"); return f[3] }

function count_known(k,    code) {
    if (!(repo_of(k) in linted)) return
    code = code_of(k)
    codes[code] = 1
    known[code]++
    if (k in reported) hit[code]++
    else if (k in verdict) print "no longer found: " k " (a real verdict that pfc does not report any more)"
}

function ratio(a, b, min) { return b >= min && b > 0 ? sprintf("%.2f", a / b) : "-" }

function recall_cell(h, k) { return k >= 5 ? ratio(h, k, 5) : "- (" k ")" }

function sorted_codes(out,    c, i, j, t, m) {
    m = 0
    for (c in codes) out[++m] = c
    for (i = 2; i <= m; i++)
        for (j = i; j > 1 && out[j - 1] > out[j]; j--) {
            t = out[j]; out[j] = out[j - 1]; out[j - 1] = t
        }
    return m
}

/^#/ || $1 == "file" { next }
FILENAME == LINTED { linted[$1] = 1; next }
FILENAME == VERDICTS { if (NF >= 4) verdict[key_of()] = $4; next }
FILENAME == MISSED { if (NF >= 3) missed[key_of()] = 1; next }
{
    k = key_of(); code = $3
    reported[k] = 1; codes[code] = 1
    if (k in verdict) v = verdict[k]
    else if (k in missed) {
        v = "real"
        print "now found: " k " (move it to verdicts.tsv)"
    } else {
        v = "unreviewed"
        print "no verdict: " k
    }
    n[code, v]++
}
END {
    for (k in verdict) if (verdict[k] == "real") count_known(k)
    for (k in missed) if (!(k in verdict)) count_known(k)
    fmt = "%-6s %5s %5s %9s %10s %9s %6s %6s %8s\n"
    printf fmt, "rule", "real", "false", "debatable", "unreviewed", "precision", "known", "found", "recall"
    m = sorted_codes(order)
    for (i = 1; i <= m; i++) {
        c = order[i]
        r = n[c, "real"] + 0; f = n[c, "false"] + 0
        printf fmt, c, r, f, n[c, "debatable"] + 0, n[c, "unreviewed"] + 0, ratio(r, r + f, 1),
            known[c] + 0, hit[c] + 0, recall_cell(hit[c] + 0, known[c] + 0)
        R += r; F += f; D += n[c, "debatable"]; U += n[c, "unreviewed"]; K += known[c]; H += hit[c]
    }
    printf fmt, "all", R, F, D + 0, U + 0, ratio(R, R + F, 1), K + 0, H + 0, recall_cell(H + 0, K + 0)
}
