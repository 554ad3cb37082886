# pfc estimate reads the project, not only the file (issue 12): a model
# class imported from another module of the project is interpreted there,
# found the way `python train.py` would find it: the script's directory,
# a package with relative imports, `from x import *`. The model below is
# Linear(256, 512) + Linear(512, 256), bias on: parameters
# 256*512 + 512 + 512*256 + 256 = 262,912; fp32 weights 1,051,648 bytes.
summary=$(pwd)/estimate_summary.py
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
mkdir -p proj/models
cat > proj/models/layers.py <<'PY'
import torch.nn as nn

class Block(nn.Module):
    def __init__(self, d, hidden):
        super().__init__()
        self.up = nn.Linear(d, hidden)
        self.down = nn.Linear(hidden, d)
        self.act = nn.GELU()

    def forward(self, x):
        return self.down(self.act(self.up(x)))
PY
cat > proj/models/__init__.py <<'PY'
from .net import *
PY
cat > proj/models/net.py <<'PY'
import torch.nn as nn
from .layers import Block

WIDTH = 256

class Net(nn.Module):
    def __init__(self, hidden=512):
        super().__init__()
        self.block = Block(WIDTH, hidden)

    def forward(self, x):
        return self.block(x)
PY
train() {
    cat <<PY
import torch
$1
model = $2.cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(10):
    x = torch.randn(64, 256, device="cuda")
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
PY
}
train "from models.net import Net" "Net()" > proj/train_from.py
train "import models.net as M" "M.Net(hidden=512)" > proj/train_module.py
train "from models import *" "Net()" > proj/train_star.py
train "from models import Missing" "Missing()" > proj/train_missing.py
for f in train_from train_module train_star train_missing; do
    echo "--- $f"
    "$PFC" estimate "proj/$f.py" --json > out.json 2> err.txt
    echo "exit $?"
    python3 "$summary" out.json weights
done
echo "--- the report names the file that defines the model's class"
"$PFC" estimate proj/train_from.py | grep '^Model' | sed 's/).*/)/'
