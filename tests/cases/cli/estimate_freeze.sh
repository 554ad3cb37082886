# pfc estimate: frozen parameters and the parameters an optimizer is given.
# Autograd makes a .grad only for parameters that require grad; an optimizer
# keeps state only for the parameters it holds; an op saves its input for a
# weight's gradient only when the weight trains. Each case's numbers are
# worked out by hand below; a line says "ok: ..." when they hold and
# "WRONG: ..." with the numbers when not.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

est() { local name=$1; shift; "$PFC" estimate "$@" --json > "$name.json" 2> "$name.err"; echo $? > "$name.rc"; }
verdict() {
    python3 -c "import json, sys
J = [json.load(open(n + '.json')) for n in sys.argv[1:]]
def C(j, k): return j['components'][k]
def A(j, text): return [a for a in j['assumptions'] if text in a]
def check(ok, good, bad): print(('ok: ' + good) if ok else ('WRONG: ' + bad))
$(cat)" "$@"
}

# The model of most cases: features = Linear(1024, 1024), ReLU, Linear(1024, 1024);
# fc = Linear(1024, 10). Parameters: 2 * (1024*1024 + 1024) = 2099200 in features,
# 1024*10 + 10 = 10250 in fc; 2109450 in all.
model() {
cat <<'PY'
import random
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 1024))
        self.fc = nn.Linear(1024, 10)

    def forward(self, x):
        return self.fc(torch.relu(self.features(x)))

model = Net().cuda()
PY
}
step() {
cat <<'PY'
x = torch.randn(64, 1024, device="cuda")
y = torch.randint(0, 10, (64,), device="cuda")
for it in range(10):
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad()
PY
}
script() { { model; cat; step; } > "$1"; }

echo "--- 1. freezing all but fc: gradients and Adam state for fc's 10250 parameters only"
# fc: 10250 fp32 parameters: gradients 4 * 10250 = 41000 bytes, Adam 2 * 41000 = 82000.
# All trainable: gradients 4 * 2109450 = 8437800, Adam 16875600.
script all.py <<'PY'
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
PY
script named.py <<'PY'
for name, p in model.named_parameters():
    if "fc" not in name:
        p.requires_grad = False
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
PY
script module.py <<'PY'
model.requires_grad_(False)
model.fc.requires_grad_(True)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
PY
script loop.py <<'PY'
for p in model.features.parameters():
    p.requires_grad = False
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
PY
script loop_call.py <<'PY'
for p in model.features.parameters():
    p.requires_grad_(False)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
PY
script startswith.py <<'PY'
for name, param in model.named_parameters():
    if name.startswith("features.") or name in ("features.0.weight",):
        param.requires_grad = False
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
PY
for n in all named module loop loop_call startswith; do est $n $n.py; done
verdict all named module loop loop_call startswith <<'PY'
a = J[0]
check(a['params_trainable'] == 2109450 and C(a, 'gradients') == 8437800 and C(a, 'optimizer_state') == 16875600,
      'nothing frozen: 2109450 trainable, gradients 8437800, Adam 16875600',
      f"{a['params_trainable']} {C(a, 'gradients')} {C(a, 'optimizer_state')}")
for name, j in zip(['named_parameters with "fc" not in name', 'requires_grad_(False), fc requires_grad_(True)',
                    'for p in model.features.parameters(): p.requires_grad = False',
                    'p.requires_grad_(False) in the loop',
                    'name.startswith("features.") or name in (...)'], J[1:]):
    check(j['params_trainable'] == 10250 and C(j, 'gradients') == 41000 and C(j, 'optimizer_state') == 82000
          and C(j, 'weights') == C(a, 'weights') and not A(j, 'cannot evaluate'),
          f'{name}: 10250 trainable, gradients 41000, Adam 82000, weights unchanged',
          f"{name}: {j['params_trainable']} {C(j, 'gradients')} {C(j, 'optimizer_state')} {j['assumptions']}")
PY

echo "--- 2. frozen layers save nothing for the backward"
# Trainable: each ReLU saves its output (also the next Linear's input, which that
# Linear saves for its weight's gradient): two saved (64, 1024) outputs of relu and
# linear ops. Frozen features: no gradient flows into them, so only the last relu's
# output is saved (fc saves it; fc's weight trains): one.
"$PFC" estimate all.py --trace 2>&1 | grep -c '^ *[0-9]* \(relu\|linear\) .*-> %[0-9]*\[64,1024\]fp32 saved'
"$PFC" estimate named.py --trace 2>&1 | grep -c '^ *[0-9]* \(relu\|linear\) .*-> %[0-9]*\[64,1024\]fp32 saved'

echo "--- 3. a condition pfc cannot evaluate: the parameters stay trainable, said with the line"
script random.py <<'PY'
for name, p in model.named_parameters():
    if random.random() < 0.5:
        p.requires_grad = False
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
PY
script format.py <<'PY'
for name, p in model.named_parameters():
    if name.format(1).isdigit():
        p.requires_grad = False
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
PY
est random random.py
est format format.py
verdict random format <<'PY'
j = J[0]
check(j['params_trainable'] == 2109450 and A(j, 'line 17: whether this loop freezes a parameter depends on a value '
                                               'pfc cannot evaluate: 6 of 6 parameters (features.0.weight, ...)'),
      'random condition: all 2109450 trainable, and the report says so for line 17',
      f"{j['params_trainable']} {j['assumptions']}")
j = J[1]
check(j['params_trainable'] == 2109450 and A(j, 'line 17: whether this loop freezes'),
      'string methods pfc does not model (format, isdigit): all trainable, said with the line',
      f"{j['params_trainable']} {j['assumptions']}")
PY

echo "--- 4. an optimizer over a subset: state for what it holds, gradients for all that train"
# Adam over fc only: state 82000; every parameter still requires grad, so the gradients
# are 8437800. Features' .grad (2 * (4194304 + 4096) = 8396800 bytes) are never freed
# by opt.zero_grad(): in the second step they are resident through the forward.
script subset.py <<'PY'
opt = torch.optim.Adam(model.fc.parameters(), lr=1e-3)
PY
script groups.py <<'PY'
opt = torch.optim.Adam([{"params": model.features.parameters()},
                        {"params": model.fc.parameters(), "lr": 1e-3}], lr=1e-4)
PY
script filtered.py <<'PY'
model.features.requires_grad_(False)
opt = torch.optim.Adam(filter(lambda p: p.requires_grad, model.parameters()), lr=1e-3)
PY
script frozen_subset.py <<'PY'
model.features.requires_grad_(False)
opt = torch.optim.Adam(model.fc.parameters(), lr=1e-3)
PY
for n in subset groups filtered frozen_subset; do est $n $n.py; done
verdict subset groups filtered frozen_subset all <<'PY'
s, g, f, fs, a = J
check(C(s, 'optimizer_state') == 82000 and C(s, 'gradients') == 8437800 and s['params_trainable'] == 2109450
      and A(s, 'the optimizers hold 10250 of the 2109450 trainable parameters'),
      'Adam(model.fc.parameters()): state 82000, gradients 8437800, said in the report',
      f"{C(s, 'optimizer_state')} {C(s, 'gradients')} {s['assumptions']}")
held = s['allocated_peak_bytes'] - fs['allocated_peak_bytes']
check(held >= 8396800, f"features' .grad outlive zero_grad(): the peak is {held} bytes above the frozen one (>= 8396800)",
      f'only {held} bytes above the frozen one')
check(C(g, 'optimizer_state') == 16875600 and not A(g, 'the optimizers hold'),
      'parameter groups over features and fc: state for all 2109450 (16875600)', f"{C(g, 'optimizer_state')}")
check(C(f, 'optimizer_state') == 82000 and C(f, 'gradients') == 41000,
      'filter(lambda p: p.requires_grad, ...) after freezing features: state 82000, gradients 41000',
      f"{C(f, 'optimizer_state')} {C(f, 'gradients')}")
PY

echo "--- 5. torchvision: freeze the backbone, replace fc, SGD with momentum over the new head"
# resnet50's head for 10 classes: 2048*10 + 10 = 20490 parameters; gradients 4 * 20490
# = 81960 bytes, momentum buffers as many. Frozen, nothing of the backbone is saved for
# a weight's gradient and no gradient flows into it.
cat > vision.py <<'PY'
import torch
import torch.nn as nn
import torchvision

model = torchvision.models.resnet50()
for param in model.parameters():
    param.requires_grad = False
model.fc = nn.Linear(model.fc.in_features, 10)
model = model.cuda()
opt = torch.optim.SGD(model.fc.parameters(), lr=1e-3, momentum=0.9)
x = torch.randn(32, 3, 224, 224, device="cuda")
y = torch.randint(0, 10, (32,), device="cuda")
loss = nn.functional.cross_entropy(model(x), y)
loss.backward()
opt.step()
PY
sed 's/^for param in model.parameters():/for name, param in model.named_parameters():\n    if "fc" in name: continue/' vision.py > vision_named.py
sed '/^for param/,/requires_grad = False/d' vision.py > vision_full.py
est vision vision.py
est vision_named vision_named.py
est vision_full vision_full.py
verdict vision vision_named vision_full <<'PY'
v, n, full = J
check(v['params_trainable'] == 20490 and C(v, 'gradients') == 81960 and C(v, 'optimizer_state') == 81960,
      'frozen resnet50 with a new fc: 20490 trainable, gradients 81960, momentum 81960',
      f"{v['params_trainable']} {C(v, 'gradients')} {C(v, 'optimizer_state')}")
check(v['breakdown']['activations'] < full['breakdown']['activations'] / 4,
      'the frozen backbone saves less than a quarter of what the trained one does',
      f"{v['breakdown']['activations']} vs {full['breakdown']['activations']}")
check(n['params_trainable'] == full['params_trainable'] and A(n, 'line 8: whether this loop freezes'),
      "a condition on a built-in model's names (which pfc does not know): all trainable, said with the line",
      f"{n['params_trainable']} {n['assumptions']}")
PY

echo "--- 6. an unreadable dropout probability is a note; an absent one is PyTorch's 0.5, silently"
cat > dropout.py <<'PY'
import random
import torch
import torch.nn as nn
import torch.nn.functional as F
P = random.random()

class Net(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.l1 = nn.Linear(1024, 1024)
        self.drop = nn.Dropout(p)
        self.drop2 = nn.Dropout()
        self.l2 = nn.Linear(1024, 10)

    def forward(self, x):
        return self.l2(F.dropout(self.drop2(self.drop(torch.relu(self.l1(x)))), p=P))

model = Net(P).cuda()
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
x = torch.randn(64, 1024, device="cuda")
y = torch.randint(0, 10, (64,), device="cuda")
loss = nn.functional.cross_entropy(model(x), y)
loss.backward()
opt.step()
PY
"$PFC" estimate dropout.py | grep -i dropout
