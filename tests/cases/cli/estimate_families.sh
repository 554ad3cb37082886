# pfc estimate on the encoder-decoder families (issue 12): the decoder runs
# on the labels' length, the encoder on the inputs'. Each case's --trace is
# read by a python3 verdict: the tensors of one layer that the trace marks
# saved (those the layer itself makes), summed, against the bytes worked out
# by hand in the comment above it; plus the figures that show which length
# each stack runs on. "ok: ..." when it holds, "WRONG: ..." with the numbers.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

# trace NAME SCRIPT: NAME.trace (pfc estimate --trace) and NAME.json
trace() { "$PFC" estimate "$2" --trace > "$1.trace" 2>&1; "$PFC" estimate "$2" --json > "$1.json" 2>&1; }
# verdict NAME <<'PY': python with T (the trace's text), J (the JSON),
# saved(marker, first, count, shift) (the saved bytes the ops from the
# first-th line matching `marker` up to count markers on make; shift 1
# starts one op after the marker: post-LN layers end on theirs), check()
verdict() {
    python3 -c "import json, re, sys
T = open(sys.argv[1] + '.trace').read()
J = json.load(open(sys.argv[1] + '.json'))
SZ = {'fp32': 4, 'bf16': 2, 'fp16': 2, 'int64': 8, 'bool': 1, 'u8': 1}
TOK = re.compile(r'%(\d+)\[([0-9,]*)\](\w+)((?: saved)?)')
OPS = [l for l in T.splitlines() if re.match(r'\s*\d+ \w', l)]
def numel(dims):
    n = 1
    for x in dims.split(','):
        n *= int(x)
    return n
def saved(marker, first, count, shift=0):
    idx = [i for i, l in enumerate(OPS) if re.search(marker, l)]
    if len(idx) <= first + count:
        return -1
    lo, hi = idx[first] + shift, idx[first + count] + shift
    old = {m.group(1) for l in OPS[:lo] for m in TOK.finditer(l)}
    got = {m.group(1): numel(m.group(2)) * SZ[m.group(3)]
           for l in OPS[lo:hi] for m in TOK.finditer(l) if m.group(4) and m.group(1) not in old}
    return sum(got.values())
def has(pattern): return any(re.search(pattern, l) for l in OPS)
def check(ok, good, bad): print(('ok: ' + good) if ok else ('WRONG: ' + bad))
$(cat)" "$@"
}

echo "--- 1. T5 (t5-small), input_ids 512, labels 128: the decoder on 128"
cat > t5.py <<'PY'
import torch
from transformers import T5ForConditionalGeneration
model = T5ForConditionalGeneration.from_pretrained("t5-small").cuda()
model.train()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(10):
    input_ids = torch.randint(0, 32128, (8, 512), device="cuda")
    labels = torch.randint(0, 32128, (8, 128), device="cuda")
    loss = model(input_ids=input_ids, labels=labels).loss
    loss.backward()
    opt.step()
    opt.zero_grad()
PY
trace t5 t5.py
verdict t5 <<'PY'
# One decoder layer (fp32, training, eager, dropout 0.1; b 8, decoder 128,
# encoder 512, d 512, 8 heads of 64, ff 2048). T = 8 * 128 = 1024 tokens,
# a (T, d) fp32 tensor 2,097,152 bytes, E = 8 * 512 encoder tokens.
#  self-attention: norm output, * weight, the cache's k and v copies, q's
#    bmm copy, the head-merge copy, the residual sum: 7 (T, d); the rstd
#    (T) fp32; softmax output and dropout output (8, 8, 128, 128) fp32 2 *
#    4,194,304 + the dropout mask (bool) 1,048,576; the output dropout's mask
#    (T, d) bool 524,288
#  cross-attention: norm, * weight, q copy, merge copy, sum: 5 (T, d); rstd;
#    k and v of the encoder output (cache copies) 2 * E * d * 4 =
#    16,777,216; scores on (128, 512): softmax and dropout outputs 2 *
#    16,777,216 + mask 4,194,304; output mask 524,288
#  feed-forward: norm, * weight, sum: 3 (T, d); rstd; ReLU and dropout
#    outputs 2 * (T, 2048) fp32 = 16,777,216 + mask 2,097,152; output mask
#    524,288
# 15 * 2,097,152 + 3 * 4,096 + 3 * 524,288 + 9,437,184 + 37,748,736 +
# 16,777,216 + 16,777,216 + 2,097,152 = 115,879,936
got = saved(r'rms_norm +-> %\d+\[8,128,512\]', 0, 3)
check(got == 115879936, "one decoder layer saves 115,879,936 bytes (decoder 128, cross-attention on 512)",
      f"one decoder layer saves {got}, by hand 115,879,936")
check(has(r'softmax +-> %\d+\[8,8,128,512\]') and not has(r'\[8,8,512,128\]'),
      "cross-attention scores are (8, 8, 128, 512): queries of the decoder, keys of the encoder",
      "no (8, 8, 128, 512) cross-attention scores in the trace")
# the logits (8, 128, 32128) fp32 + the (8, 128) int64 labels
L = 8 * 128 * 32128 * 4 + 8 * 128 * 8
check(J["breakdown"]["logits_loss"] == L == 131604480, "logits + loss = 8 x 128 x 32128 x 4 + labels = 131,604,480",
      f"logits_loss {J['breakdown']['logits_loss']}, by hand {L}")
PY

echo "--- 2. BART (bart-base, eager), input_ids 256, labels 64"
cat > bart.py <<'PY'
import torch
from transformers import BartForConditionalGeneration
model = BartForConditionalGeneration.from_pretrained("facebook/bart-base", attn_implementation="eager").cuda()
model.train()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(10):
    input_ids = torch.randint(0, 50265, (4, 256), device="cuda")
    labels = torch.randint(0, 50265, (4, 64), device="cuda")
    loss = model(input_ids=input_ids, labels=labels).loss
    loss.backward()
    opt.step()
    opt.zero_grad()
PY
trace bart bart.py
verdict bart <<'PY'
# The second decoder layer (post-LN: from after the first layer's last
# LayerNorm to its own; fp32, training, eager, dropout / attention /
# activation dropout 0.1, no cache with labels; b 4, decoder 64, encoder 256,
# d 768, 12 heads of 64, ff 3072). T = 256 tokens; (T, d) fp32 = 786,432.
#  self-attention: q, k^T, v bmm copies, merge copy, sum, LayerNorm output:
#    6 * 786,432; probabilities (4, 12, 64, 64) fp32 softmax and dropout
#    outputs 2 * 786,432 + mask 196,608; output dropout mask 196,608
#  cross-attention: q copy, merge copy, sum, LayerNorm: 4 * 786,432; k^T
#    and v copies of the encoder's (4, 12, 256, 64): 2 * 3,145,728;
#    (4, 12, 64, 256) softmax and dropout outputs 2 * 3,145,728 + mask
#    786,432; output mask 196,608
#  MLP: fc1 output (GELU's input) and activation dropout output 2 * (T, 3072)
#    fp32 = 6,291,456 + mask 786,432; fc2 dropout mask 196,608; sum and
#    LayerNorm 2 * 786,432
# 6,684,672 + 16,711,680 + 8,847,360 = 32,243,712
got = saved(r'layer_norm +-> %\d+\[4,64,768\]', 3, 3, 1)
check(got == 32243712, "one decoder layer saves 32,243,712 bytes (decoder 64, cross-attention on 256)",
      f"one decoder layer saves {got}, by hand 32,243,712")
check(J["params_total"] == 139420416, "BartForConditionalGeneration: 139,420,416 parameters",
      f"params_total {J['params_total']}")
# lm_head (4, 64, 50265) fp32, + final_logits_bias: a second logits tensor
L = 4 * 64 * 50265 * 4
check(has(r'add +-> %\d+\[4,64,50265\]fp32'), "the final_logits_bias add makes its own (4, 64, 50265) tensor",
      "no final_logits_bias add on the logits")
check(has(r'linear +-> %\d+\[4,64,50265\]') and not has(r'\[4,256,50265\]'),
      f"the logits are on the labels' 64 positions ({L} bytes)", "logits not on the decoder's length")
PY

echo "--- 3. Whisper (whisper-tiny, eager): 3000 mel frames -> 1500 positions, labels 100"
cat > whisper.py <<'PY'
import torch
from transformers import WhisperForConditionalGeneration
model = WhisperForConditionalGeneration.from_pretrained("openai/whisper-tiny", attn_implementation="eager").cuda()
model.train()
opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
for step in range(10):
    input_features = torch.randn(2, 80, 3000, device="cuda")
    labels = torch.randint(0, 51865, (2, 100), device="cuda")
    loss = model(input_features=input_features, labels=labels).loss
    loss.backward()
    opt.step()
    opt.zero_grad()
PY
trace whisper whisper.py
verdict whisper <<'PY'
check(has(r'conv1d +-> %\d+\[2,384,3000\]') and has(r'conv1d +-> %\d+\[2,384,1500\]'),
      "conv stem: (2, 80, 3000) -> (2, 384, 3000) -> stride 2 -> (2, 384, 1500)",
      "the conv stem's shapes are not 3000 then 1500")
# The first decoder layer (pre-LN: from its first LayerNorm to the next
# layer's; fp32, training, eager, dropouts 0, the cache on; b 2, decoder 100,
# encoder 1500, d 384, 6 heads of 64, ff 1536). T = 200 tokens; (T, d) fp32
# = 307,200.
#  self-attention: LayerNorm output, the cache's k and v copies, q's bmm
#    copy, merge copy, sum: 6 * 307,200; softmax (2, 6, 100, 100) fp32
#    480,000
#  cross-attention: LayerNorm, q copy, merge copy, sum: 4 * 307,200; the
#    cache's k and v copies of the encoder's (2, 6, 1500, 64): 2 *
#    4,608,000; softmax (2, 6, 100, 1500) fp32 7,200,000
#  MLP: LayerNorm and sum 2 * 307,200; fc1 output and GELU output 2 *
#    (T, 1536) fp32 = 2,457,600
# 2,323,200 + 17,644,800 + 3,072,000 = 23,040,000
got = saved(r'layer_norm +-> %\d+\[2,100,384\]', 0, 3)
check(got == 23040000, "one decoder layer saves 23,040,000 bytes (decoder 100, cross-attention on 1500)",
      f"one decoder layer saves {got}, by hand 23,040,000")
check(J["params_total"] == 37760640 and J["params_trainable"] == 37760640 - 1500 * 384,
      "37,760,640 parameters, the 1500 x 384 encoder positions frozen",
      f"params_total {J['params_total']}, trainable {J['params_trainable']}")
PY

echo "--- 4. Whisper refuses other frame counts, as WhisperEncoder does"
sed 's/80, 3000/80, 2000/' whisper.py > short.py
"$PFC" estimate short.py; echo "exit $?"
