# pfc estimate: convolution, pooling, normalisation and resampling layers in
# 1 to 3 spatial dimensions (torchlib_conv.c), data_parallel() and classes
# derived from ModuleList/Sequential. Each case is a small script; a python3
# verdict checks the parameter count and the shapes the trace records
# against numbers worked out by hand in the comments (torch's output-size
# formulas), and what each op keeps for the backward. A line says "ok: ..."
# when the mechanism holds and "WRONG: ..." with the numbers when not.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

# est NAME SCRIPT: NAME.json (--json), NAME.trace (--trace) and NAME.rc
est() {
    "$PFC" estimate "$2" --json > "$1.json" 2> /dev/null; echo $? > "$1.rc"
    "$PFC" estimate "$2" --trace > "$1.trace" 2> /dev/null
}
# verdict NAME <<'PY': J (the JSON), RC, OPS (the trace's ops: name, output
# shape, inputs as (shape, dtype, saved)), ops(name), check(ok, good, bad)
verdict() {
    python3 -c "import json, re, sys
J = json.load(open(sys.argv[1] + '.json'))
RC = int(open(sys.argv[1] + '.rc').read())
OPS = []
for l in open(sys.argv[1] + '.trace'):
    m = re.match(r'\s*\d+ (\S+) +-> %\d+\[([\d,]*)\](\w+).*?(?:  from (.*))?$', l)
    if m:
        ins = [(tuple(int(d) for d in s.split(',') if d), dt, rest.startswith(' saved'))
               for s, dt, rest in re.findall(r'%\d+\[([\d,]*)\](\w+)((?: saved)?)', m.group(4) or '')]
        OPS.append((m.group(1), tuple(int(d) for d in m.group(2).split(',') if d), m.group(3), ins))
def ops(name): return [o for o in OPS if o[0] == name]
def shapes(name): return [o[1] for o in ops(name)]
def E(): return (J['error'] or {}).get('message', '')
def check(ok, good, bad): print(('ok: ' + good) if ok else ('WRONG: ' + bad))
$(cat)" "$1"
}
# step NAME MODEL INPUT: one SGD step of MODEL on INPUT, on the GPU
step() {
    cat > "$1.py" <<PY
import torch
import torch.nn as nn
import torch.nn.functional as F
$4
model = $2.cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = $3
loss = model(x).float().pow(2).mean()
loss.backward()
opt.step()
PY
    est "$1" "$1.py"
}

echo "--- 1. Conv2d with per-side kernel, stride, padding and dilation, and groups"
# Conv2d(16, 32, (3, 5), stride=(1, 2), padding=(1, 2), dilation=(2, 1), groups=4):
#   weight 32 x 16/4 x 3 x 5 = 1920, bias 32: 1952
#   H = floor((32 + 2*1 - 2*(3-1) - 1) / 1) + 1 = 30; W = floor((32 + 2*2 - 1*(5-1) - 1) / 2) + 1 = 16
# depthwise Conv2d(32, 32, 3, padding=1, groups=32, bias=False): 32 x 1 x 9 = 288, (30, 16) kept
step c1 'nn.Sequential(nn.Conv2d(16, 32, (3, 5), stride=(1, 2), padding=(1, 2), dilation=(2, 1), groups=4),
                      nn.Conv2d(32, 32, 3, padding=1, groups=32, bias=False))' \
     'torch.randn(8, 16, 32, 32, device="cuda")'
verdict c1 <<'PY'
check(J['params_total'] == 1952 + 288, "1952 + 288 = 2240 parameters", f"params {J['params_total']}")
check(shapes('conv2d') == [(8, 32, 30, 16), (8, 32, 30, 16)], "outputs (8, 32, 30, 16) twice",
      f"conv2d outputs {shapes('conv2d')}")
check(all(o[3][0][2] for o in ops('conv2d')), "each conv keeps its input", f"{ops('conv2d')}")
PY

echo "--- 2. Conv1d, ConvTranspose1d, Conv3d, ConvTranspose3d"
# Conv1d(6, 12, 5, stride=2): 12*6*5 + 12 = 372, L = floor((50 - 4 - 1) / 2) + 1 = 23
# ConvTranspose1d(12, 6, 4, stride=2, padding=1): 12*6*4 + 6 = 294, L = (23-1)*2 - 2 + 3 + 1 = 46
step c2a 'nn.Sequential(nn.Conv1d(6, 12, 5, stride=2), nn.ConvTranspose1d(12, 6, 4, stride=2, padding=1))' \
     'torch.randn(4, 6, 50, device="cuda")'
verdict c2a <<'PY'
check(J['params_total'] == 372 + 294, "372 + 294 = 666 parameters", f"params {J['params_total']}")
check(shapes('conv1d') == [(4, 12, 23)] and shapes('conv_transpose1d') == [(4, 6, 46)],
      "(4, 6, 50) -> (4, 12, 23) -> (4, 6, 46)", f"{shapes('conv1d')} {shapes('conv_transpose1d')}")
PY
# Conv3d(3, 8, 3, stride=(1, 2, 2), padding=1): 8*3*27 + 8 = 656; D = (8 + 2 - 2 - 1) + 1 = 8,
#   H = W = floor((16 + 2 - 2 - 1) / 2) + 1 = 8
# ConvTranspose3d(8, 4, 2, stride=2): 8*4*8 + 4 = 260; each side (8-1)*2 + (2-1) + 1 = 16
step c2b 'nn.Sequential(nn.Conv3d(3, 8, 3, stride=(1, 2, 2), padding=1), nn.ConvTranspose3d(8, 4, 2, stride=2))' \
     'torch.randn(2, 3, 8, 16, 16, device="cuda")'
verdict c2b <<'PY'
check(J['params_total'] == 656 + 260, "656 + 260 = 916 parameters", f"params {J['params_total']}")
check(shapes('conv3d') == [(2, 8, 8, 8, 8)] and shapes('conv_transpose3d') == [(2, 4, 16, 16, 16)],
      "(2, 3, 8, 16, 16) -> (2, 8, 8, 8, 8) -> (2, 4, 16, 16, 16)",
      f"{shapes('conv3d')} {shapes('conv_transpose3d')}")
PY

echo "--- 3. padding='same' and 'valid', padding_mode='reflect'"
# Conv2d(3, 4, 4, padding="same"): 4*3*16 + 4 = 196; the total padding 3 is odd, so torch pads
#   one more element right and bottom first: a (2, 3, 21, 21) copy, which the conv keeps; out 20 x 20
# Conv2d(4, 4, 3, padding="valid"): 148, 18 x 18
# Conv2d(4, 4, 3, padding=1, padding_mode="reflect"): 148; F.pad(reflect) to 20 x 20 (its input
#   kept: reflection_pad's backward reads it), then the conv without padding: 18 x 18
step c3 'nn.Sequential(nn.Conv2d(3, 4, 4, padding="same"), nn.Conv2d(4, 4, 3, padding="valid"),
                      nn.Conv2d(4, 4, 3, padding=1, padding_mode="reflect"))' \
     'torch.randn(2, 3, 20, 20, device="cuda")'
verdict c3 <<'PY'
check(J['params_total'] == 196 + 148 + 148, "196 + 148 + 148 = 492 parameters", f"params {J['params_total']}")
check(shapes('constant_pad_nd') == [(2, 3, 21, 21)] and ops('conv2d')[0][3][0] == ((2, 3, 21, 21), 'fp32', True),
      "'same' with an even kernel: the conv keeps a (2, 3, 21, 21) padded copy", f"{OPS[:3]}")
check(shapes('conv2d') == [(2, 4, 20, 20), (2, 4, 18, 18), (2, 4, 18, 18)], "20 x 20, 18 x 18, 18 x 18",
      f"{shapes('conv2d')}")
r = ops('reflection_pad')
check(len(r) == 1 and r[0][1] == (2, 4, 20, 20) and r[0][3][0][2], "reflect: a (2, 4, 20, 20) pad keeping its input",
      f"{r}")
PY

echo "--- 4. pooling in 1 and 3 dimensions, ceil_mode, adaptive sizes with None"
# Conv1d(4, 4, 1): 20. MaxPool1d(2, ceil_mode=True) on 9: ceil((9 - 2) / 2) + 1 = 5 (the last
#   window starts at 8 < 9: kept); keeps its input and (2, 4, 5) int64 indices
# AvgPool1d(3, stride=1, padding=1): (5 + 2 - 3) + 1 = 5; AdaptiveAvgPool1d(2): 2
step c4a 'nn.Sequential(nn.Conv1d(4, 4, 1), nn.MaxPool1d(2, ceil_mode=True), nn.AvgPool1d(3, stride=1, padding=1),
                       nn.AdaptiveAvgPool1d(2))' 'torch.randn(2, 4, 9, device="cuda")'
verdict c4a <<'PY'
m = ops('max_pool1d')
check(J['params_total'] == 20, "20 parameters", f"params {J['params_total']}")
check(len(m) == 1 and m[0][1] == (2, 4, 5) and m[0][3][1] == ((2, 4, 5), 'int64', True) and m[0][3][0][2],
      "max pool: (2, 4, 5), its input and int64 indices kept", f"{m}")
check(shapes('avg_pool1d') == [(2, 4, 5)] and shapes('adaptive_avg_pool1d') == [(2, 4, 2)],
      "avg pool (2, 4, 5), adaptive (2, 4, 2)", f"{shapes('avg_pool1d')} {shapes('adaptive_avg_pool1d')}")
PY
# Conv3d(2, 2, 1): 6. MaxPool3d((2, 3, 3)) on (6, 6, 6): (3, 2, 2). AvgPool3d(2, ceil_mode=True):
#   D ceil((3 - 2) / 2) + 1 = 2, H = W floor((2 - 2) / 2) + 1 = 1. AdaptiveAvgPool3d((1, None, 1)):
#   (1, 1, 1), the None side kept; an all-ones average is a mean, which keeps nothing
step c4b 'nn.Sequential(nn.Conv3d(2, 2, 1), nn.MaxPool3d((2, 3, 3)), nn.AvgPool3d(2, ceil_mode=True),
                       nn.AdaptiveAvgPool3d((1, None, 1)))' 'torch.randn(1, 2, 6, 6, 6, device="cuda")'
verdict c4b <<'PY'
check(shapes('max_pool3d') == [(1, 2, 3, 2, 2)] and shapes('avg_pool3d') == [(1, 2, 2, 1, 1)] and
      shapes('adaptive_avg_pool3d') == [(1, 2, 1, 1, 1)], "(3, 2, 2), (2, 1, 1), (1, 1, 1)",
      f"{shapes('max_pool3d')} {shapes('avg_pool3d')} {shapes('adaptive_avg_pool3d')}")
PY

echo "--- 5. BatchNorm1d/3d and InstanceNorm"
# Linear(16, 16): 272; BatchNorm1d(16): 32 parameters, buffers 16*4*2 + 8 = 136 bytes;
# BatchNorm1d(16, affine=False, track_running_stats=False): none of either
step c5a 'nn.Sequential(nn.Linear(16, 16), nn.BatchNorm1d(16), nn.BatchNorm1d(16, affine=False,
                       track_running_stats=False))' 'torch.randn(8, 16, device="cuda")'
step c5b 'nn.Sequential(nn.Linear(16, 16), nn.BatchNorm1d(16))' 'torch.randn(8, 16, device="cuda")'
step c5e 'nn.Sequential(nn.Linear(16, 16), nn.BatchNorm1d(16, track_running_stats=False))' \
     'torch.randn(8, 16, device="cuda")'
verdict c5a <<'PY'
check(J['params_total'] == 272 + 32, "304 parameters", f"params {J['params_total']}")
check(len(ops('batch_norm')) == 2 and all(o[1] == (8, 16) for o in ops('batch_norm')),
      "BatchNorm1d on (N, C) twice", f"{ops('batch_norm')}")
PY
# the running mean and variance (16 fp32: 64 bytes each) and num_batches_tracked (8 bytes) are
# three buffers of 512 bytes as allocated: 1536 resident beside the weights, none untracked
verdict c5b <<'PY'
a, e = json.load(open('c5a.json')), json.load(open('c5e.json'))
w = lambda j: j['breakdown']['weights']
check(w(J) - w(e) == 3 * 512 and w(a) == w(J), "tracked statistics: 3 x 512 buffer bytes; untracked: none",
      f"weights at the peak {w(J)} tracked, {w(e)} untracked, {w(a)} with an untracked second")
PY
# Conv2d(3, 3, 1): 12; InstanceNorm2d(3, affine=True): 6; InstanceNorm2d(3, track_running_stats=True): 0
# each keeps its input and a mean and inverse std per (sample, channel): 2 * 3 = 6 fp32
step c5c 'nn.Sequential(nn.Conv2d(3, 3, 1), nn.InstanceNorm2d(3, affine=True), nn.InstanceNorm2d(3,
                       track_running_stats=True))' 'torch.randn(2, 3, 8, 8, device="cuda")'
verdict c5c <<'PY'
n = ops('instance_norm')
check(J['params_total'] == 18, "12 + 6 = 18 parameters", f"params {J['params_total']}")
check(len(n) == 2 and all(o[1] == (2, 3, 8, 8) and o[3][0][2] for o in n), "two instance norms keep their input",
      f"{n}")
PY
# Conv3d(3, 3, 1): 12; BatchNorm3d(3): 6, on the 5-D input
step c5d 'nn.Sequential(nn.Conv3d(3, 3, 1), nn.BatchNorm3d(3))' 'torch.randn(2, 3, 4, 4, 4, device="cuda")'
verdict c5d <<'PY'
check(J['params_total'] == 12 + 6 and shapes('batch_norm') == [(2, 3, 4, 4, 4)], "BatchNorm3d: 6 parameters, 5-D",
      f"params {J['params_total']}, {shapes('batch_norm')}")
PY

echo "--- 6. Upsample, interpolate, PixelShuffle/Unshuffle, padding layers and F.pad"
# Conv2d(4, 8, 1): 40 on (2, 4, 8, 8). Upsample(scale_factor=2): (16, 16); Upsample(size=(20, 30),
# mode="bilinear"): (20, 30); PixelUnshuffle(2): (32, 10, 15); PixelShuffle(2): (8, 20, 30);
# ReflectionPad2d((1, 2, 3, 4)): W 30 + 1 + 2 = 33, H 20 + 3 + 4 = 27, its input kept;
# ZeroPad2d(1): (29, 35); F.interpolate(scale_factor=(0.5, 1.5)): floor(29 * 0.5) = 14,
# floor(35 * 1.5) = 52; F.pad((1, 1), mode="replicate"): W 54, its input kept.
# None of the resampling ops keeps anything for the backward.
cat > c6.py <<'PY'
import torch
import torch.nn as nn
import torch.nn.functional as F

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 8, 1)
        self.body = nn.Sequential(nn.Upsample(scale_factor=2), nn.Upsample(size=(20, 30), mode="bilinear"),
                                  nn.PixelUnshuffle(2), nn.PixelShuffle(2), nn.ReflectionPad2d((1, 2, 3, 4)),
                                  nn.ZeroPad2d(1))
    def forward(self, x):
        h = self.body(self.conv(x))
        h = F.interpolate(h, scale_factor=(0.5, 1.5))
        return F.pad(h, (1, 1), mode="replicate")

model = Net().cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 4, 8, 8, device="cuda")
loss = model(x).pow(2).mean()
loss.backward()
opt.step()
PY
est c6 c6.py
verdict c6 <<'PY'
want = [('upsample_nearest2d', (2, 8, 16, 16)), ('upsample_bilinear2d', (2, 8, 20, 30)),
        ('pixel_unshuffle', (2, 32, 10, 15)), ('pixel_shuffle', (2, 8, 20, 30)), ('reflection_pad', (2, 8, 27, 33)),
        ('constant_pad_nd', (2, 8, 29, 35)), ('upsample_nearest2d', (2, 8, 14, 52)), ('replication_pad', (2, 8, 14, 54))]
got = [(o[0], o[1]) for o in OPS if o[0] in {w[0] for w in want}]
check(J['params_total'] == 40 and got == want, "40 parameters; the eight shapes as worked out",
      f"params {J['params_total']}, {got}")
kept = {o[0]: o[3][0][2] for o in OPS if o[0] in ('reflection_pad', 'replication_pad', 'pixel_shuffle', 'constant_pad_nd')}
check(kept == {'reflection_pad': True, 'replication_pad': True, 'pixel_shuffle': False, 'constant_pad_nd': False},
      "reflection and replication keep their input; shuffle and zero padding do not", f"{kept}")
check(J['ops_assumed'] == 0, "no op assumed", f"ops_assumed {J['ops_assumed']}")
PY
# under bf16 autocast the conv writes bf16 and interpolation (on autocast's fp32 list) fp32
cat > c6b.py <<'PY'
import torch
import torch.nn as nn
import torch.nn.functional as F
model = nn.Conv2d(4, 8, 1).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 4, 8, 8, device="cuda")
with torch.autocast("cuda", dtype=torch.bfloat16):
    y = F.interpolate(model(x), size=16, mode="bicubic")
loss = y.pow(2).mean()
loss.backward()
opt.step()
PY
est c6b c6b.py
verdict c6b <<'PY'
c, u = ops('conv2d'), ops('upsample_bicubic2d')
check(c and c[0][2] == 'bf16' and u and u[0][1] == (2, 8, 16, 16) and u[0][2] == 'fp32',
      "autocast: conv bf16, bicubic interpolation fp32 (2, 8, 16, 16)", f"{c} {u}")
PY

echo "--- 7. torch.nn.parallel.data_parallel(module, inputs, device_ids) runs module(inputs)"
# Linear(64, 128): 8320; Linear(128, 10): 1290; 9610
cat > c7.py <<'PY'
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self, ngpu):
        super().__init__()
        self.ngpu = ngpu
        self.main = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    def forward(self, x):
        return nn.parallel.data_parallel(self.main, x, range(self.ngpu))

model = Net(2).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(32, 64, device="cuda")
loss = model(x).sum()
loss.backward()
opt.step()
PY
est c7 c7.py
verdict c7 <<'PY'
check(RC == 0 and J['params_total'] == 9610 and shapes('linear') == [(32, 128), (32, 10)],
      "9610 parameters, the whole batch of 32 through both linears",
      f"rc {RC}, params {J['params_total']}, {shapes('linear')}, {E()}")
check(any('data_parallel' in a and 'upper bound' in a for a in J['assumptions']), "the report says how it is taken",
      f"{J['assumptions']}")
PY

echo "--- 8. classes of the script derived from nn.ModuleList and nn.Sequential"
# Blocks(ModuleList) of 3 Linear(64, 64) and Stack(Sequential) of 2: 5 * (64*64 + 64) = 20800;
# the forward iterates the list, indexes it and takes its len(): 3 + 1 + 3 + 2 = 9 linears
cat > c8.py <<'PY'
import torch
import torch.nn as nn

class Blocks(nn.ModuleList):
    pass

class Stack(nn.Sequential):
    def __init__(self, n, d):
        super().__init__(*[nn.Linear(d, d) for _ in range(n)])

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = Blocks([nn.Linear(64, 64) for _ in range(3)])
        self.stack = Stack(2, 64)
    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        x = self.blocks[0](x)
        for i in range(len(self.blocks)):
            x = self.blocks[i](x)
        return self.stack(x)

model = Net().cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 64, device="cuda")
loss = model(x).sum()
loss.backward()
opt.step()
PY
est c8 c8.py
verdict c8 <<'PY'
check(J['params_total'] == 20800 and len(ops('linear')) == 9 and J['ops_assumed'] == 0 and not J['assumptions'],
      "20800 parameters, 9 linears, nothing assumed",
      f"params {J['params_total']}, {len(ops('linear'))} linears, {J['assumptions']}")
PY

echo "--- 9. what torch refuses, pfc refuses"
step r1 'nn.Conv2d(6, 4, 3, groups=4)' 'torch.randn(2, 6, 8, 8, device="cuda")'
verdict r1 <<'PY'
check(RC == 1 and 'divisible by groups' in E(), "in_channels 6 with groups 4", f"rc {RC}: {E()}")
PY
step r2 'nn.Conv2d(3, 4, 3, stride=2, padding="same")' 'torch.randn(2, 3, 8, 8, device="cuda")'
verdict r2 <<'PY'
check(RC == 1 and "padding='same' with a stride" in E(), "padding='same' with stride 2", f"rc {RC}: {E()}")
PY
step r3 'nn.Sequential(nn.Linear(8, 8), nn.BatchNorm2d(8))' 'torch.randn(4, 8, device="cuda")'
verdict r3 <<'PY'
check(RC == 1 and 'BatchNorm2d expects a 4-D input' in E(), "BatchNorm2d on a 2-D input", f"rc {RC}: {E()}")
PY
step r4 'nn.Sequential(nn.Conv2d(3, 3, 1), nn.MaxPool2d(9))' 'torch.randn(2, 3, 8, 8, device="cuda")'
verdict r4 <<'PY'
check(RC == 1 and 'larger than its padded input' in E(), "a 9-wide pool on 8", f"rc {RC}: {E()}")
PY

echo "--- 10. a ResNet-style builder: *args, **kwargs and a class attribute read off the class passed in"
# widths (4, 8), depth 2, Block.expansion 2, so each width w gives convs to 2w channels:
#   3 -> 8: 3*8*9 = 216; 8 -> 8: 576; 8 -> 16: 1152; 16 -> 16: 2304; Linear(16, 10): 170; 4418
cat > c10.py <<'PY'
import torch
import torch.nn as nn

class Block(nn.Module):
    expansion = 2
    def __init__(self, cin, planes):
        super().__init__()
        self.conv = nn.Conv2d(cin, planes * self.expansion, 3, padding=1, bias=False)
    def forward(self, x):
        return self.conv(x)

class Net(nn.Module):
    def __init__(self, block, *widths, depth=1):
        super().__init__()
        layers = []
        cin = 3
        for w in widths:
            for _ in range(depth):
                layers.append(block(cin, w))
                cin = w * block.expansion
        self.body = nn.Sequential(*layers)
        self.fc = nn.Linear(cin, 10)
    def forward(self, x):
        return self.fc(self.body(x).mean((2, 3)))

def build(*args, **kwargs):
    return Net(Block, *args, **kwargs)

model = build(4, 8, depth=2).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 3, 16, 16, device="cuda")
loss = model(x).sum()
loss.backward()
opt.step()
PY
est c10 c10.py
verdict c10 <<'PY'
check(J['params_total'] == 4418 and shapes('conv2d') == [(2, 8, 16, 16), (2, 8, 16, 16), (2, 16, 16, 16), (2, 16, 16, 16)]
      and not J['assumptions'], "4418 parameters, four convs to 8, 8, 16, 16 channels, nothing assumed",
      f"params {J['params_total']}, {shapes('conv2d')}, {J['assumptions']}")
PY
