#!/usr/bin/env bash
# The project: imports between a project's own modules.
#   tests/cases/project/CASE/  a small project; `args` names the files to lint
#                              (from CASE/), expected.out the concise output
#                              and exit status. UPDATE=1 rewrites expected.out.
# Then the cache: editing an imported module, or creating a missing one,
# re-lints the importing file.
set -u
PFC=${PFC:-./pfc}
PFC=$(cd "$(dirname "$PFC")" && pwd)/$(basename "$PFC")
cd "$(dirname "$0")/.."
passed=0 failed=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

ok() { echo "ok $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }

for dir in tests/cases/project/*/; do
    name=project/$(basename "$dir")
    # an import cycle must end: a hang is a failure, not a stuck suite
    # shellcheck disable=SC2046
    (cd "$dir" && timeout 20 "$PFC" lint --no-cache --output-format concise $(cat args)) \
        > "$TMP/out" 2>&1
    echo "exit $?" >> "$TMP/out"
    [ "${UPDATE:-0}" = 1 ] && cp "$TMP/out" "$dir/expected.out"
    if [ ! -f "$dir/expected.out" ]; then
        fail "$name" "missing expected.out (run UPDATE=1)"
    elif diff -u "$dir/expected.out" "$TMP/out" > "$TMP/diff"; then
        ok "$name"
    else
        fail "$name" "output differs from expected.out"
        head -20 "$TMP/diff"
    fi
done

# The cache: a file's entry lists the modules its facts read.
proj=$TMP/cache
mkdir -p "$proj"
touch "$proj/pyproject.toml"
cat > "$proj/model.py" <<'EOF'
class GPT:
    pass
EOF
cat > "$proj/predict.py" <<'EOF'
import torch
from model import GPT
from extra import Head

model = GPT()
head = Head()


def evaluate_head(batches):
    scores = []
    for x in batches:
        scores.append(head(x).sum().item())
    return scores


def evaluate_model_loop(batches):
    scores = []
    for x in batches:
        scores.append(model(x).sum().item())
    return scores


print(evaluate_model_loop(torch.load("x.pt")), evaluate_head(torch.load("x.pt")))
EOF
lint() { (cd "$proj" && "$PFC" lint --output-format concise predict.py 2>&1 | grep -c TG003); }
# the cache's entries as "KEY born GENERATION": a re-lint writes a new generation
entry() { "$PFC" debug-cache "$proj/.pfc_cache" | awk '/^  / { printf "%s born %s ", $1, $7 }'; }
first=$(lint)
cat > "$proj/model.py" <<'EOF'
import torch.nn as nn


class GPT(nn.Module):
    def forward(self, x):
        return x
EOF
edited=$(lint)
before=$(entry)
again=$(lint)
after=$(entry)
cat > "$proj/extra.py" <<'EOF'
import torch.nn as nn


class Head(nn.Module):
    def forward(self, x):
        return x
EOF
created=$(lint)
# nothing changed between `edited` and `again`: a hit, the entry not rewritten
# (a re-lint would store it again, in a new generation of its pack)
if [ "$first" = 0 ] && [ "$edited" = 1 ] && [ "$again" = 1 ] && [ "$created" = 2 ] &&
    [ -n "$before" ] && [ "$before" = "$after" ]; then
    ok "cache/imported-module-changes"
else
    fail "cache/imported-module-changes" "TG003 findings $first, $edited, $again, $created (expected 0, 1, 1, 2); entries '$before' then '$after' (expected equal)"
fi

echo "project: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
