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

# Stamps (cli/cache.h, cli/project.c): with every file and directory older
# than the run by more than 2 s (their mtimes set back; ctime cannot be, so
# the test waits 3 s), a warm run trusts stats instead of bytes. Each change
# below must still be seen (each makes a ctime recent: read and hashed).
stamped=$TMP/stamped
mkdir -p "$stamped"
touch "$stamped/pyproject.toml"
cp "$proj/predict.py" "$stamped/predict.py"
printf 'class GPT:\n    pass\n' > "$stamped/model.py"
old() { touch -d '2020-01-01 00:00:00' "$@"; }
old "$stamped" "$stamped"/*
sleep 3
# the cache outside the project: creating it would move the project's stamp
mkdir -p "$TMP/srun"
slint() { (cd "$TMP/srun" && "$PFC" lint --output-format concise "$stamped/predict.py" 2>&1 | grep -c TG003); }
sentry() { "$PFC" debug-cache "$TMP/srun/.pfc_cache" | awk '/^  / { printf "%s born %s %s ", $1, $7, $10 }'; }
cold=$(slint)
stamps=$(sentry)
warm=$(slint)
# touched, unchanged: read and hashed (its stamp is now racy), still a hit
touch "$stamped/model.py" "$stamped/predict.py"
touched=$(slint)
after_touch=$(sentry)
# extra.py appears in a directory whose stamp the entry recorded, and the
# directory's mtime is put back: its ctime still moved
printf 'import torch.nn as nn\n\n\nclass Head(nn.Module):\n    def forward(self, x):\n        return x\n' \
    > "$stamped/extra.py"
old "$stamped/extra.py" "$stamped"
created=$(slint)
# model.py edited to the same size, its mtime put back (ctime moves)
printf 'class GPU:\n    pass\n' > "$stamped/model.py"
old "$stamped/model.py"
same_size=$(slint)
printf 'import torch.nn as nn\nclass GPT(nn.Module):\n    pass\n' > "$stamped/model.py"
old "$stamped/model.py"
grown=$(slint)
if [ "$cold" = 0 ] && [ "$warm" = 0 ] && [ "$touched" = 0 ] && [ "$created" = 1 ] &&
    [ "$same_size" = 1 ] && [ "$grown" = 2 ] && [ "${stamps#* stamped}" != "$stamps" ] &&
    [ "$stamps" = "$after_touch" ]; then
    ok "cache/stamps-see-every-change"
else
    fail "cache/stamps-see-every-change" "TG003 findings $cold, $warm, $touched, $created, $same_size, $grown (expected 0, 0, 0, 1, 1, 2); entries '$stamps' (stamped), after touch '$after_touch' (the same)"
fi

echo "project: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
