#!/usr/bin/env bash
# pfc estimate never crashes, wraps or runs away (issue 16). Each case is a
# small training script with one absurd value; the estimate must end in time
# with exit status 1 and a refusal: a JSON object whose "error" names the
# cause and its file:line, and no number in it, never a crash, a signal,
# "fits": true, a negative number or gigabytes of memory.
set -u
PFC=${PFC:-./pfc}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0 failed=0
ok() { echo "ok   $1"; passed=$((passed + 1)); }
bad() { echo "FAIL $1: $2"; failed=$((failed + 1)); }

# script NAME INIT FORWARD [BATCH]: a model whose __init__ runs INIT and whose
# forward returns FORWARD, trained one step on a (BATCH, 16) batch of ids
script() {
    last=$1
    cat > "$TMP/$1.py" <<EOF
import torch
import torch.nn as nn
class M(nn.Module):
    def __init__(self):
        super().__init__()
        $2
    def forward(self, x):
        $3
model = M().cuda()
opt = torch.optim.Adam(model.parameters())
x = torch.randint(0, 10, (${4:-8}, 16), device="cuda")
loss = model(x).sum()
loss.backward()
opt.step()
EOF
}

# refuses NAME PATTERN: the last script's --json and text output both
# refuse, with PATTERN in the reason (after the file name)
refuses() {
    local name=$1 pattern=$2 f="$TMP/$last.py"
    timeout 60 "$PFC" estimate "$f" --gpu h100 --json > "$TMP/out" 2> "$TMP/err"
    local status=$?
    if [ "$status" -ne 1 ]; then
        bad "$name" "exit status $status, expected 1: $(head -c 200 "$TMP/err")"
        return
    fi
    # the error object as text mode words it: PATH:LINE: MESSAGE
    local err
    err=$(python3 -c 'import json, sys
e = json.load(open(sys.argv[1]))["error"]
print("%s%s: %s" % (e["path"], ":%d" % e["line"] if e["line"] else "", e["message"]))' "$TMP/out" 2>&1)
    if ! echo "$err" | grep -qE "^(.*$last\.py)?.*$pattern"; then
        bad "$name" "JSON lacks an error matching /$pattern/: $(grep -E '"error"|"fits"' "$TMP/out" | tr -d '\n' | head -c 300)"
        return
    fi
    if grep -q '"fits": true' "$TMP/out" || grep -qE '": -[0-9]|"params_total": [0-9]' "$TMP/out"; then
        bad "$name" "a refusal with numbers in it: $(head -c 300 "$TMP/out")"
        return
    fi
    timeout 60 "$PFC" estimate "$f" > "$TMP/out" 2> "$TMP/err"
    status=$?
    if [ "$status" -ne 1 ] || ! grep -qE "^pfc: estimate: .*$last\.py.*$pattern" "$TMP/err"; then
        bad "$name" "text mode: exit status $status, stderr: $(head -c 300 "$TMP/err")"
        return
    fi
    ok "$name"
}

# 1. crashes: a null parameter, division by an overflowed product, a runaway split
script emb_zero 'self.e = nn.Embedding(10, 0)' 'return self.e(x)'
refuses "nn.Embedding(10, 0)" ':6: nn.Embedding.s embedding_dim is 0, not a positive integer'
script emb_float 'self.e = nn.Embedding(10.5, 4)' 'return self.e(x)'
refuses "nn.Embedding(10.5, 4)" ':6: .*is 10.5, not an integer'
script emb_none 'self.e = nn.Embedding()' 'return self.e(x)'
refuses "nn.Embedding()" ':6: nn.Embedding lacks its num_embeddings'
script view_huge 'self.e = nn.Embedding(10, 4)' 'return self.e(x).view(2**62, 2**62)'
refuses "view(2**62, 2**62)" ':8: .*too large to estimate'
script view_zero 'self.e = nn.Embedding(10, 4)' 'return self.e(x).view(-1, 0)'
refuses "view(-1, 0)" ':8: .*not positive'
script split_wrap 'self.e = nn.Embedding(10, 4)' 'return self.e(x).view(2**63 - 1, -1).split(3)[0]'
refuses "view(2**63 - 1, -1).split(3) (was 22 GB)" ':8: .*not an integer'
script split_huge 'self.e = nn.Embedding(10, 4)' 'return self.e(x).view(2**40, -1).split(1)[0]'
refuses "split(1) on a dimension of 2**40" ':8: '
script split_zero 'self.e = nn.Embedding(10, 4)' 'return self.e(x).split(0)[0]'
refuses "split(0)" ':8: split\(0\): the split size is not positive'
script chunk_neg 'self.e = nn.Embedding(10, 4)' 'return self.e(x).chunk(-2)[0]'
refuses "chunk(-2)" ':8: chunk\(-2\): the number of chunks is not positive'

# 2. sizes that wrapped into a model that fits, negative or zero sizes
script linear_huge 'self.l = nn.Linear(2**31, 2**31)' 'return self.l(x.float())'
refuses "nn.Linear(2**31, 2**31) (4.6e18 params) never fits" ':6: .*too large to estimate'
script linear_neg 'self.l = nn.Linear(-4, 4)' 'return self.l(x.float())'
refuses "nn.Linear(-4, 4)" ':6: nn.Linear.s in_features is -4, not a positive integer'
script linear_zero 'self.l = nn.Linear(0, 4)' 'return self.l(x.float())'
refuses "nn.Linear(0, 4)" ':6: nn.Linear.s in_features is 0'
script conv_neg 'self.c = nn.Conv2d(3, 8, -3)' 'return self.c(x.float().view(8, 1, 4, 4).expand(8, 3, 4, 4))'
refuses "nn.Conv2d(3, 8, -3)" ':6: .*kernel_size is -3'
script batch_neg 'self.e = nn.Embedding(10, 4)' 'return self.e(x)' -8
refuses "a batch of -8 from the script" ':11: .*\(-8, 16\).*not positive'
script batch_zero 'self.e = nn.Embedding(10, 4)' 'return self.e(x)' 0
refuses "a batch of 0 from the script" ':11: .*not positive'
script arange_back 'self.e = nn.Embedding(10, 4)' 'return self.e(x) + torch.arange(5, 3, device="cuda").float().sum()'
refuses "torch.arange(5, 3) (low above high)" ':8: .*\(-2\).*not positive'
script exbi 'self.l = nn.ModuleList([nn.Linear(2**25, 2**25) for _ in range(1024)])' 'return self.l[0](x.float())'
refuses "1024 layers of 2**50 parameters (over 1 EiB)" 'more than 1 EiB: too large to estimate'

last=tv_classes
cat > "$TMP/$last.py" <<'EOF'
import torch
import torchvision
model = torchvision.models.resnet18(num_classes=0).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 3, 224, 224, device="cuda")
loss = model(x).sum()
loss.backward()
opt.step()
EOF
refuses "torchvision resnet18(num_classes=0)" "num_classes is 0, not a positive integer"

sed 's/resnet18(num_classes=0)/mobilenet_v3_large(num_classes=2**62)/' "$TMP/tv_classes.py" > "$TMP/tv_huge.py"
last=tv_huge
refuses "torchvision mobilenet_v3_large(num_classes=2**62) (signed overflow)" "num_classes is 4611686018427387904, too large"

# 3. the interpreter's memory is bounded: a list doubled 100 times
script doubling 'self.e = nn.Embedding(10, 4)
        xs = [0]
        for _ in range(100):
            xs = xs + xs' 'return self.e(x)'
refuses "a list doubled 100 times (bounded at 1 GiB)" ':12: .*more memory to interpret than an estimate may use'

# 4. token mutations of the training scripts, in process: no crash, hang, usage
# status, negative number or 2 GiB. EST_MUTATE copies per script (make asan: more).
HERE=$(cd "$(dirname "$0")" && pwd)
CAL=$(cd "$HERE/../.." && pwd)/shared/calibration/scripts
paths="$HERE/../docs/examples $HERE/cases"
[ -d "$CAL" ] && paths="$CAL $paths"
out=$("$PFC" debug-estimate-mutate --timeout 30 "${EST_MUTATE:-1}" $paths 2>&1)
if echo "$out" | grep -q '^FAIL' || ! echo "$out" | grep -q '^summary.*crashes=0'; then
    bad "mutated training scripts" "$(echo "$out" | grep -E '^(FAIL|summary)' | head -5)"
else
    ok "mutated training scripts: $(echo "$out" | tail -1 | cut -f2-6)"
fi

echo "estimate_safety: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
