# pfc estimate follows a model class's bases (issue 12): inherited methods,
# super().__init__() / super().forward() chains and class attributes, with
# the bases in the script or in other modules of the project (imported by
# name, through a module, relatively), and dataclass fields inherited from
# a base dataclass. Each case prints the parameters and fp32 weight bytes.
#   Base(d) = Linear(d, 512):          256*512 + 512 = 131,584 parameters
#   Net adds Linear(512, 256):         512*256 + 256 = 131,328
#   Base + Net:                        262,912 parameters, 1,051,648 bytes
summary=$(pwd)/estimate_summary.py
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
show() {
    echo "--- $1"
    "$PFC" estimate "$2" --json > out.json 2> err.txt
    echo "exit $?"
    python3 "$summary" out.json weights
}
# step SETUP MODEL: a training step of MODEL on a (64, 256) batch
step() {
    cat <<PY
import torch
import torch.nn as nn
$1
model = $2.cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(64, 256, device="cuda")
loss = model(x).pow(2).mean()
loss.backward()
opt.step()
PY
}
base='class Base(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.up = nn.Linear(d, 512)

    def forward(self, x):
        return self.up(x)'
net_of() {
    cat <<PY
class Net($1):
    def __init__(self):
        $2
        self.down = nn.Linear(512, 256)

    def forward(self, x):
        return self.down(super().forward(x))
PY
}
printf 'import torch.nn as nn\n\n%s\n' "$base" > layers.py

step "$base
$(net_of Base 'super().__init__(256)')" Net\(\) > in_file.py
show "super() chain in the script: 262,912 parameters" in_file.py

step "from layers import Base
class Net(Base):
    pass" "Net(256)" > inherit.py
show "a subclass that defines nothing runs its imported base's __init__ and forward: 131,584" inherit.py

step "from layers import Base
$(net_of Base 'super().__init__(256)')" Net\(\) > chain.py
show "super().__init__() and super().forward() into another module: 262,912" chain.py

step "import layers
$(net_of layers.Base 'super(Net, self).__init__(256)')" Net\(\) > module_base.py
show "a base named through its module, super(Net, self): 262,912" module_base.py

# three levels over a package: models/base.py's Base <- models/mid.py's Mid
# (relative import; its width a class attribute of Base) <- the script's Top.
#   Base: Linear(256, 512) 131,584; Mid: Linear(512, 512) 262,656;
#   Top: Linear(512, 256) 131,328; total 525,568 parameters, 2,102,272 bytes
mkdir -p models
cat > models/__init__.py <<'PY'
PY
cat > models/base.py <<'PY'
import torch.nn as nn

class Base(nn.Module):
    width = 512

    def __init__(self, d):
        super().__init__()
        self.up = nn.Linear(d, self.width)

    def forward(self, x):
        return self.up(x)
PY
cat > models/mid.py <<'PY'
import torch.nn as nn
from .base import Base

class Mid(Base):
    def __init__(self, d):
        super().__init__(d)
        self.mid = nn.Linear(self.width, self.width)

    def forward(self, x):
        return self.mid(super().forward(x))
PY
step "from models.mid import Mid
class Top(Mid):
    def __init__(self):
        super().__init__(256)
        self.down = nn.Linear(self.width, 256)

    def forward(self, x):
        return self.down(super().forward(x))" "Top()" > three.py
show "three levels, a relative import and an inherited class attribute: 525,568" three.py

# A config dataclass that extends one of another module:
#   BaseConfig.d = 256, Config.hidden = 1024 (and d overridden to 128 by the
#   call): Linear(128, 1024) + Linear(1024, 128) = 132,096 + 131,200 = 263,296
cat > cfg.py <<'PY'
from dataclasses import dataclass

@dataclass
class BaseConfig:
    d: int = 256
PY
cat > dc.py <<'PY'
import torch
import torch.nn as nn
from dataclasses import dataclass
from cfg import BaseConfig

@dataclass
class Config(BaseConfig):
    hidden: int = 1024

class Net(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.up = nn.Linear(c.d, c.hidden)
        self.down = nn.Linear(c.hidden, c.d)

    def forward(self, x):
        return self.down(self.up(x))

model = Net(Config(128)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(64, 128, device="cuda")
loss = model(x).pow(2).mean()
loss.backward()
opt.step()
PY
show "dataclass fields inherited from another module's dataclass, positional: 263,296" dc.py
