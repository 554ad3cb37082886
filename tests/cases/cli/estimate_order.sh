# Python's order in code pfc evaluates on demand (the top level, and a
# function whose values are asked for without running it: estimator/demand.c).
# Each case fails on a pfc that takes every join's first operand and drops
# the stores: the numbers are what Python would compute.
summary=$(pwd)/estimate_summary.py
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
step() {   # the training step on `model` with a batch of $1 rows of $2
    cat <<PY
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn($1, $2).cuda()
loss = model(x).sum()
loss.backward()
opt.step()
PY
}
run() {   # run FILE KEYS...: the figures pfc reads
    echo "== $1"
    $PFC estimate "$1" --json > out.json
    python3 "$summary" out.json "${@:2}"
}

# 1. A store to the parsed arguments: the batch is 256 / 4 = 64 rows; the
#    read before the store still sees 256 (the Linear's width).
{ cat <<'PY'
import argparse
import torch
import torch.nn as nn
p = argparse.ArgumentParser()
p.add_argument("--batch_size", type=int, default=256)
args = p.parse_args()
width = args.batch_size
args.batch_size = int(args.batch_size / 4)
model = nn.Linear(1024, width).cuda()
PY
step args.batch_size 1024; } > store_attr.py
run store_attr.py batch   # params 1024*256 + 256 = 262,400

# 2. An if/else on a constant takes the branch Python takes; the other
#    branch's layer is never built: Linear(16, 16) = 272 parameters.
{ cat <<'PY'
import torch
import torch.nn as nn
use_big = False
if use_big:
    model = nn.Linear(4096, 4096).cuda()
else:
    model = nn.Linear(16, 16).cuda()
PY
step 8 16; } > branch.py
run branch.py

# 3. A store_true option left unset: the `if` is false, the model stays
#    Linear(32, 32) = 1,056 parameters.
{ cat <<'PY'
import argparse
import torch
import torch.nn as nn
p = argparse.ArgumentParser()
p.add_argument("--big", action="store_true")
args = p.parse_args()
model = nn.Linear(32, 32)
if args.big:
    model = nn.Linear(8192, 8192)
model = model.cuda()
PY
step 8 32; } > branch_option.py
run branch_option.py

# 4. A dict store: the batch is cfg["bs"] = 32, the width 16 (unchanged).
{ cat <<'PY'
import torch
import torch.nn as nn
cfg = {"bs": 8, "width": 16}
cfg["bs"] = 32
model = nn.Linear(cfg["width"], 16).cuda()
PY
step 'cfg["bs"]' 16; } > store_dict.py
run store_dict.py batch

# 5. The stores of a function evaluated on demand reach the function it
#    calls (which runs): batch 256 // 4 = 64.
cat > store_in_main.py <<'PY'
import argparse
import torch
import torch.nn as nn


def train(model, args):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(2):
        x = torch.randn(args.batch_size, 1024, device="cuda")
        loss = model(x).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--batch-size", type=int, default=256)
    args = p.parse_args()
    args.batch_size = args.batch_size // 4
    model = nn.Linear(1024, 1024).cuda()
    train(model, args)


if __name__ == "__main__":
    main()
PY
run store_in_main.py batch

# 6. Fine-tuning heads: resnet18 with fc = Linear(512, 2):
#    11,689,512 - (512*1000 + 1000) + (512*2 + 2) = 11,177,538;
#    vgg16 with classifier[6] = Linear(4096, 10), in_features read from it:
#    138,357,544 - (4096*1000 + 1000) + (4096*10 + 10) = 134,301,514.
head() {   # head MODEL REPLACEMENT CLASSES
    cat <<PY
import torch
import torch.nn as nn
import torchvision
model = torchvision.models.$1()
$2
model = model.cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(4, 3, 224, 224).cuda()
y = torch.zeros(4, dtype=torch.long).cuda()
loss = nn.functional.cross_entropy(model(x), y)
loss.backward()
opt.step()
PY
}
head resnet18 'model.fc = nn.Linear(model.fc.in_features, 2)' > head_fc.py
run head_fc.py notes
head vgg16 'model.classifier[6] = nn.Linear(model.classifier[6].in_features, 10)' > head_vgg.py
run head_vgg.py notes
# A head pfc cannot fit (a Sequential) is said, not silently dropped:
# resnet18 + Linear(512, 256) + Linear(256, 2) = 11,689,512 + 131,328 + 514.
head resnet18 'model.fc = nn.Sequential(nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 2))' > head_seq.py
run head_seq.py notes

# 7. A submodule replaced after construction: the old head leaves the
#    model. Linear(64, 64) + Linear(64, 2) = 4,160 + 130 = 4,290 (with the
#    1000-class head it would be 69,160).
cat > replace_submodule.py <<'PY'
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(64, 64)
        self.head = nn.Linear(64, 1000)

    def forward(self, x):
        return self.head(self.body(x))


model = Net()
model.head = nn.Linear(64, 2)
model = model.cuda()
PY
step 8 64 >> replace_submodule.py
run replace_submodule.py

# 8. A config completed in place (`cfg.update(...)`) before the model reads
#    it: Linear(cfg["d"], 8) with d = 128 from the update: 128*8 + 8 = 1,032.
cat > dict_update.py <<'PY'
import torch
import torch.nn as nn
cfg = {"bias": True}
sizes = {"small": {"d": 128}, "large": {"d": 4096}}
cfg.update(sizes["small"])
model = nn.Linear(cfg["d"], 8, bias=cfg["bias"]).cuda()
PY
step 8 128 >> dict_update.py
run dict_update.py

# 9. The per-GPU batch of a script that divides by the GPU count: 256 on one
#    GPU, 256 / 4 = 64 with --world-size 4 (torch.cuda.device_count() is the
#    node's GPUs, said in a note).
{ cat <<'PY'
import argparse
import torch
import torch.nn as nn
p = argparse.ArgumentParser()
p.add_argument("--batch-size", type=int, default=256)
args = p.parse_args()
args.nprocs = torch.cuda.device_count()
args.batch_size = int(args.batch_size / args.nprocs)
model = nn.Linear(32, 32).cuda()
PY
step args.batch_size 32; } > per_gpu_batch.py
run per_gpu_batch.py batch notes
echo "== per_gpu_batch.py --world-size 4"
$PFC estimate per_gpu_batch.py --world-size 4 --json > out.json
python3 "$summary" out.json batch notes

# 10. A dtype chosen on the command line and read back with eval(): the
#     default 'torch.bfloat16' is not float16, so the model is Linear(16, 16)
#     = 272 parameters (the float16 branch would build Linear(8, 8) = 72).
{ cat <<'PY'
import argparse
import torch
import torch.nn as nn
p = argparse.ArgumentParser()
p.add_argument("--dtype", default="torch.bfloat16")
args = p.parse_args()
dtype = eval(args.dtype)
if dtype == torch.float16:
    model = nn.Linear(8, 8).cuda()
else:
    model = nn.Linear(16, 16).cuda()
PY
step 8 16; } > eval_dtype.py
run eval_dtype.py

# 11. An unknown condition is taken as true, as the report says, unless its
#     body only raises: the check before the model does not end the
#     constructor. Linear(64, 64) = 4,160 parameters.
cat > raise_arm.py <<'PY'
import torch
import torch.nn as nn
import os


class Net(nn.Module):
    def __init__(self, mode):
        super().__init__()
        if mode is None:
            mode = "fast"
        if mode not in os.environ:
            raise ValueError(mode)
        self.body = nn.Linear(64, 64)

    def forward(self, x):
        return self.body(x)


model = Net("fast").cuda()
PY
step 8 64 >> raise_arm.py
run raise_arm.py notes
