# Models picked from a module by name (issue 12's factory idioms), as
# pytorch/examples' imagenet script and its descendants write them:
# models.__dict__[args.arch](), getattr(models, args.arch)(),
# torchvision.models.get_model(name), and a project package indexed the
# same way. Parameter counts are torchvision's published totals:
# resnet18 11,689,512; resnet34 21,797,672; resnet50 25,557,032.
# The project model is Linear(256, 512) + Linear(512, 256), bias on:
# 256*512 + 512 + 512*256 + 256 = 262,912 parameters.
summary=$(pwd)/estimate_summary.py
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
script() {   # script PICK [ARCH-OPTION]: a training script whose model is PICK
    local arch_option=${2:-"default='resnet18'"}
    cat <<PY
import argparse
import torch
import torchvision.models as models
import torchvision
model_names = sorted(name for name in models.__dict__
                     if name.islower() and not name.startswith("__")
                     and callable(models.__dict__[name]))
p = argparse.ArgumentParser()
p.add_argument("--arch", $arch_option)
p.add_argument("--batch-size", type=int, default=8)
args = p.parse_args()
model = $1.cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    x = torch.randn(args.batch_size, 3, 224, 224, device="cuda")
    y = torch.randint(0, 1000, (args.batch_size,), device="cuda")
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
PY
}
script "models.__dict__[args.arch]()" > dict.py
script "getattr(models, args.arch)()" > getattr.py
script "torchvision.models.get_model('resnet34', weights=None)" > get_model.py
script "models.get_model('nosuch')" > get_model_unknown.py
script "models.__dict__[args.arch]()" "required=True" > required.py
script "getattr(models, args.arch)()" "required=True" > required_getattr.py
mkdir -p proj/nets
cat > proj/nets/__init__.py <<'PY'
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.Linear(256, 512)
        self.down = nn.Linear(512, 256)

    def forward(self, x):
        return self.down(self.up(x).relu())

def small():
    return Net()
PY
cat > proj/train.py <<'PY'
import torch
import nets
name = "small"
model = nets.__dict__[name]().cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.randn(64, 256, device="cuda")).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
PY
run() {
    echo "--- $*"
    "$PFC" estimate "$@" --json > out.json 2> err.txt
    echo "exit $?"
    python3 "$summary" out.json
}
run dict.py
run dict.py -- --arch resnet50
run getattr.py -- --arch resnet34
run get_model.py
run get_model_unknown.py
run required.py
run required_getattr.py
run required.py -- --arch resnet50
run proj/train.py
