# pfc estimate: the mechanisms behind the numbers, each case a small script
# whose --json output a python3 verdict checks against what the mechanism
# implies (an exact count worked out by hand, a ratio, one number against
# another). A line says "ok: ..." when the mechanism holds and "WRONG: ..."
# with the numbers when it does not, so a regression changes this file's
# output without depending on the estimator's calibration.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

# est NAME SCRIPT [OPTIONS]: NAME.json (the --json output) and NAME.rc (exit status)
est() { local name=$1; shift; "$PFC" estimate "$@" --json > "$name.json" 2> "$name.err"; echo $? > "$name.rc"; }
# verdict NAME... <<'PY' (python): runs the python on stdin with J[0], J[1], ...
# the JSON of each NAME and RC[i] its exit status; B(j, k) and C(j, k) read
# the breakdown and the components; check() prints the verdict line
verdict() {
    python3 -c "import json, sys
J = [json.load(open(n + '.json')) for n in sys.argv[1:]]
RC = [int(open(n + '.rc').read()) for n in sys.argv[1:]]
def B(j, k): return j['breakdown'][k]
def C(j, k): return j['components'][k]
def E(j): return (j['error'] or {}).get('message', '')   # the error object's message ('' when none)
def check(ok, good, bad): print(('ok: ' + good) if ok else ('WRONG: ' + bad))
$(cat)" "$@"
}

echo "--- 1. an in-file MLP with Adam: parameters, optimizer state, gradients"
# nn.Linear(784, 256): 784*256 + 256 = 200960; nn.Linear(256, 10): 256*10 + 10 = 2570;
# params = 203530. Adam: exp_avg + exp_avg_sq, fp32: 2 * 4 * 203530 = 1628240 bytes;
# fp32 gradients: 4 * 203530 = 814120 bytes; fp32 weights likewise 814120.
cat > mlp.py <<'PY'
import torch
import torch.nn as nn
model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10)).cuda()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(100):
    x = torch.randn(64, 784, device="cuda")
    y = torch.randint(0, 10, (64,), device="cuda")
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
PY
est mlp mlp.py
verdict mlp <<'PY'
j = J[0]
P = 784 * 256 + 256 + 256 * 10 + 10
check(j["params_total"] == P == 203530 and j["params_trainable"] == P,
      "params_total = params_trainable = 203530",
      f"params_total {j['params_total']}, trainable {j['params_trainable']}, by hand {P}")
check(C(j, "optimizer_state") == 2 * 4 * P, "optimizer_state = 2 x 4 bytes x params = 1628240",
      f"optimizer_state {C(j, 'optimizer_state')}, expected {2 * 4 * P}")
check(C(j, "weights") == 4 * P, "weights = 4 bytes x params = 814120",
      f"weights {C(j, 'weights')}, expected {4 * P}")
check(C(j, "gradients") == 4 * P, "gradients = 4 bytes x params = 814120",
      f"components.gradients {C(j, 'gradients')}, expected 4 x params = {4 * P}")
check(j["batch"] == 64 and j["training"] is True, "batch 64, training",
      f"batch {j['batch']}, training {j['training']}")
PY

echo "--- 2. batch scaling: --batch 2x doubles the activations"
# the model of cases 2 and 3
net() {
    cat <<'PY'
import torch
import torch.nn as nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 4096), nn.ReLU(),
                                  nn.Linear(4096, 10))
    def forward(self, x):
        return self.body(x)
model = Net().cuda()
PY
}
{ net; cat <<'PY'
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(3):
    x = torch.randn(1024, 1024, device="cuda")
    y = torch.randint(0, 10, (1024,), device="cuda")
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
PY
} > wide.py
est b1 wide.py
est b2 wide.py --batch 2048
verdict b1 b2 <<'PY'
a, b = J
check(a["batch"] == 1024 and b["batch"] == 2048, "batch 1024 as written, 2048 with --batch 2048",
      f"batch {a['batch']} and {b['batch']}")
r = B(b, "activations") / max(B(a, "activations"), 1)
check(B(a, "activations") > 0 and 1.8 <= r <= 2.2, "activations x1.8 to x2.2 for twice the batch",
      f"activations {B(a, 'activations')} -> {B(b, 'activations')} (x{r:.2f})")
check(C(a, "weights") == C(b, "weights"), "weights unchanged by the batch",
      f"weights {C(a, 'weights')} -> {C(b, 'weights')}")
PY

echo "--- 3. evaluation under torch.no_grad() saves nothing"
# the model of case 2 at batch 4096: evaluated under no_grad, and trained
sed 's/1024, 1024, device/4096, 1024, device/; s/(1024,)/(4096,)/' wide.py > train4096.py
{ net; cat <<'PY'
model.eval()
correct = 0
with torch.no_grad():
    for _ in range(10):
        x = torch.randn(4096, 1024, device="cuda")
        out = model(x)
        correct += (out.argmax(-1) == 0).sum().item()
PY
} > eval.py
est ev eval.py
est tr train4096.py
verdict ev tr <<'PY'
e, t = J
check(e["training"] is False and t["training"] is True, "the eval loop is evaluation, the other training",
      f"training {e['training']} / {t['training']}")
check(e["batch"] == t["batch"] == 4096, "batch 4096 in both", f"batch {e['batch']} / {t['batch']}")
over_e = e["allocated_peak_bytes"] - B(e, "weights")
over_t = t["allocated_peak_bytes"] - B(t, "weights")
check(over_e * 2 < over_t, "the peak beyond the weights is under half of training's",
      f"beyond the weights: evaluation {over_e}, training {over_t}")
check(B(e, "gradients") == 0 and B(e, "optimizer_state") == 0, "no gradients, no optimizer state",
      f"gradients {B(e, 'gradients')}, optimizer state {B(e, 'optimizer_state')}")
PY
saved=$("$PFC" estimate eval.py --trace | grep -c ' saved')
[ "$saved" = 0 ] && echo "ok: --trace shows no saved tensor under no_grad" || echo "WRONG: $saved ops show saved tensors"
saved=$("$PFC" estimate train4096.py --trace | grep -c ' saved')
[ "$saved" -gt 0 ] && echo "ok: --trace shows saved tensors when training" || echo "WRONG: nothing saved when training"

echo "--- 4. a running total of losses keeps every iteration's graph"
# one iteration's graph: x [2048,1024] fp32 saved by the first linear (8 MiB),
# the relu's output [2048,4096] fp32 (32 MiB), log_softmax's output [2048,10]
# fp32 (81920) and the int64 targets (16384): 42041344 bytes. range(6) with
# no backward: the sixth forward runs with five earlier graphs alive.
cat > leak.py <<'PY'
import torch
import torch.nn as nn
model = nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 10)).cuda()
total = 0
for i in range(6):
    x = torch.randn(2048, 1024, device="cuda")
    y = torch.randint(0, 10, (2048,), device="cuda")
    loss = nn.functional.cross_entropy(model(x), y)
    total += loss
print(total)
PY
sed 's/total += loss/total += loss.item()/' leak.py > noleak.py
# the same with a language model's head: the loss's log_softmax output
# [8*512, 50000] fp32 (819200000) dominates the graph, with the embedding's
# output [8,512,256] fp32 (4194304) and the int64 ids (32768): 823427072
cat > leak_lm.py <<'PY'
import torch
import torch.nn as nn
import torch.nn.functional as F
class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50000, 256)
        self.head = nn.Linear(256, 50000)
    def forward(self, idx):
        return self.head(self.emb(idx))
model = LM().cuda()
total = 0
for i in range(6):
    idx = torch.randint(0, 50000, (8, 512), device="cuda")
    logits = model(idx)
    loss = F.cross_entropy(logits.view(-1, 50000), idx.view(-1))
    total += loss
PY
est leak leak.py
est noleak noleak.py
est leak_lm leak_lm.py
verdict leak noleak leak_lm <<'PY'
l, n, lm = J
graph = 2048 * 1024 * 4 + 2048 * 4096 * 4 + 2048 * 10 * 4 + 2048 * 8
r = B(l, "retained_across_iterations") / (5 * graph)
check(0.95 <= r <= 1.05, "retained_across_iterations = 5 x one iteration's graph (within 5%)",
      f"retained {B(l, 'retained_across_iterations')}, 5 x graph = {5 * graph} (x{r:.3f})")
check(B(n, "retained_across_iterations") == 0, "loss.item() keeps nothing",
      f"loss.item(): retained {B(n, 'retained_across_iterations')}")
check(l["allocated_peak_bytes"] - n["allocated_peak_bytes"] == B(l, "retained_across_iterations"),
      "the leak adds exactly what it retains to the peak",
      f"peaks {l['allocated_peak_bytes']} and {n['allocated_peak_bytes']}")
graph = 8 * 512 * 50000 * 4 + 8 * 512 * 256 * 4 + 8 * 512 * 8
r = B(lm, "retained_across_iterations") / (5 * graph)
check(0.95 <= r <= 1.05, "LM head: retained = 5 x the graph with the loss's log_softmax (within 5%)",
      f"LM head: retained {B(lm, 'retained_across_iterations')}, 5 x graph = {5 * graph} (x{r:.3f})")
PY

echo "--- 5. hyperparameters from argparse, a dataclass config, the environment"
cat > argp.py <<'PY'
import argparse
import torch
import torch.nn as nn
parser = argparse.ArgumentParser()
parser.add_argument("--batch_size", type=int, default=40)
parser.add_argument("--lr", type=float, default=1e-3)
args = parser.parse_args()
model = nn.Sequential(nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=args.lr)
for _ in range(10):
    x = torch.randn(args.batch_size, 512, device="cuda")
    y = torch.randint(0, 10, (args.batch_size,), device="cuda")
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
PY
cat > argp_main.py <<'PY'
import argparse
import torch
import torch.nn as nn

def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--batch-size", type=int, default=36)
    p.add_argument("--hidden", type=int, default=2048)
    return p.parse_args()

def main():
    args = get_args()
    model = nn.Sequential(nn.Linear(512, args.hidden), nn.ReLU(), nn.Linear(args.hidden, 10)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(10):
        x = torch.randn(args.batch_size, 512, device="cuda")
        loss = model(x).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()

if __name__ == "__main__":
    main()
PY
cat > config.py <<'PY'
from dataclasses import dataclass
import torch
import torch.nn as nn
from torch.nn import functional as F

@dataclass
class GPTConfig:
    block_size: int = 200
    vocab_size: int = 1024
    n_embd: int = 128
    batch_size: int = 12

class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        self.fc = nn.Linear(config.n_embd, 4 * config.n_embd)
        self.head = nn.Linear(4 * config.n_embd, config.vocab_size)
    def forward(self, idx, targets):
        x = self.head(F.gelu(self.fc(self.wte(idx))))
        return F.cross_entropy(x.view(-1, x.size(-1)), targets.view(-1))

config = GPTConfig()
model = Model(config).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
for it in range(100):
    idx = torch.randint(0, config.vocab_size, (config.batch_size, config.block_size), device="cuda")
    loss = model(idx, idx)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
PY
cat > environ.py <<'PY'
import os
import torch
import torch.nn as nn
BATCH = int(os.environ.get("BATCH", "24"))
model = nn.Sequential(nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(10):
    x = torch.randn(BATCH, 512, device="cuda")
    y = torch.randint(0, 10, (BATCH,), device="cuda")
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
PY
est argp argp.py
est argp_main argp_main.py
est config config.py
BATCH=7 est environ environ.py
verdict argp argp_main config environ <<'PY'
a, m, c, e = J
check(a["batch"] == 40, "argparse default: batch 40", f"argparse: batch {a['batch']}, expected 40")
# 512*2048 + 2048 + 2048*10 + 10 = 1071114 with the default --hidden
check(m["batch"] == 36 and m["params_total"] == 1071114,
      "argparse in main(): batch 36, --hidden 2048 (1071114 params)",
      f"argparse in main(): batch {m['batch']} (expected 36), params {m['params_total']} (expected 1071114)")
# 1024*128 + 128*512 + 512 + 512*1024 + 1024 = 722432
check(c["batch"] == 12 and c["seq"] == 200 and c["params_total"] == 722432,
      "dataclass defaults: batch 12, seq 200, 722432 params",
      f"dataclass: batch {c['batch']}, seq {c['seq']}, params {c['params_total']} (expected 12, 200, 722432)")
check(e["batch"] == 24, "os.environ.get default: batch 24 (the script, not this shell)",
      f"os.environ: batch {e['batch']}, expected 24")
PY

echo "--- 6. a DataLoader over an in-file Dataset of dicts, into GPT-2 by name"
cat > loader.py <<'PY'
import torch
from torch.utils.data import Dataset, DataLoader
from transformers import AutoModelForCausalLM

class TokenDataset(Dataset):
    def __init__(self, n, seq_len):
        self.n = n
        self.seq_len = seq_len
    def __len__(self):
        return self.n
    def __getitem__(self, i):
        ids = torch.randint(0, 50257, (self.seq_len,))
        return {"input_ids": ids, "labels": ids.clone()}

model = AutoModelForCausalLM.from_pretrained("gpt2").cuda()
model.train()
loader = DataLoader(TokenDataset(1000, 384), batch_size=6, shuffle=True)
opt = torch.optim.AdamW(model.parameters(), lr=5e-5)
for batch in loader:
    out = model(**batch)
    out.loss.backward()
    opt.step()
    opt.zero_grad()
PY
# the common form: the batch moved to the GPU by a dict comprehension
sed 's/    out = model(\*\*batch)/    batch = {k: v.cuda() for k, v in batch.items()}\n    out = model(**batch)/' \
    loader.py > loader_comp.py
est loader loader.py
est loader_comp loader_comp.py
verdict loader loader_comp <<'PY'
for name, j in zip(["model(**batch)", "dict comprehension then model(**batch)"], J):
    check(j["error"] is None and j["batch"] == 6 and j["seq"] == 384 and j["params_total"] == 124439808,
          f"{name}: gpt2, batch 6, seq 384",
          f"{name}: batch {j.get('batch')}, seq {j.get('seq')}, error {j['error']!r}")
PY

echo "--- 7. the Hugging Face Trainer: bf16, gradient checkpointing"
trainer() {
    cat <<PY
import torch
from torch.utils.data import Dataset
from transformers import AutoModelForCausalLM, Trainer, TrainingArguments

class Toks(Dataset):
    def __len__(self):
        return 1000
    def __getitem__(self, i):
        ids = torch.randint(0, 50257, (512,))
        return {"input_ids": ids, "labels": ids}

model = AutoModelForCausalLM.from_pretrained("gpt2")
args = TrainingArguments(output_dir="out", per_device_train_batch_size=4, bf16=True,
                         gradient_checkpointing=$1, gradient_accumulation_steps=$2)
trainer = Trainer(model=model, args=args, train_dataset=Toks())
trainer.train()
PY
}
trainer True 1 > trainer_gc.py
trainer False 1 > trainer_nogc.py
est gc trainer_gc.py
est nogc trainer_nogc.py
verdict gc nogc <<'PY'
g, n = J
for name, j in (("checkpointing", g), ("no checkpointing", n)):
    check(j["training"] is True and j["batch"] == 4 and j["seq"] == 512,
          f"{name}: training, batch 4, seq 512",
          f"{name}: training {j['training']}, batch {j['batch']}, seq {j['seq']}")
    check(B(j, "autocast_cache") > 0, f"{name}: bf16=True autocasts (weight copies at the peak)",
          f"{name}: autocast_cache 0")
check(n["allocated_peak_bytes"] > g["allocated_peak_bytes"], "gradient_checkpointing=False peaks higher",
      f"peaks: with checkpointing {g['allocated_peak_bytes']}, without {n['allocated_peak_bytes']}")
check(B(n, "activations") > 2 * B(g, "activations"), "checkpointing more than halves the activations",
      f"activations: with {B(g, 'activations')}, without {B(n, 'activations')}")
PY

echo "--- 8. gradient accumulation keeps the gradients through the next backward"
# the same micro-batch (4096) and SGD without momentum (no state, no step
# temporaries), so the peak is a backward: from the second micro-step on,
# the earlier micro-steps' .grad (all parameters, fp32) are alive during it
accum() {
    cat <<PY
import torch
import torch.nn as nn
model = nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 4096), nn.ReLU(),
                      nn.Linear(4096, 10)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(10):
PY
    if [ "$1" = inner ]; then
        cat <<'PY'
    for micro in range(4):
        x = torch.randn(4096, 1024, device="cuda")
        y = torch.randint(0, 10, (4096,), device="cuda")
        loss = nn.functional.cross_entropy(model(x), y) / 4
        loss.backward()
    opt.step()
    opt.zero_grad()
PY
    else
        cat <<'PY'
    x = torch.randn(4096, 1024, device="cuda")
    y = torch.randint(0, 10, (4096,), device="cuda")
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad()
PY
    fi
}
accum inner > accum.py
accum none > single.py
est accum accum.py
est single single.py
trainer True 4 > trainer_accum.py
est tacc trainer_accum.py
verdict accum single gc tacc <<'PY'
a, s, g, ta = J
check(a["batch"] == s["batch"] == 4096, "micro-batch 4096 in both", f"batch {a['batch']} / {s['batch']}")
# the breakdown counts allocations (each tensor rounded to 512 bytes), the
# components the raw numel x 4: equal up to that rounding
check(a["allocated_peak_bytes"] > s["allocated_peak_bytes"] and 0 <= B(a, "gradients") - C(a, "gradients") < 512 * 6,
      "inner range(4) loop: the peak is higher, with every gradient alive",
      f"inner range(4) loop: peak {a['allocated_peak_bytes']} ({a['peak_phase']}), without "
      f"accumulation {s['allocated_peak_bytes']}; gradients at the peak {B(a, 'gradients')} of {C(a, 'gradients')}")
check(ta["allocated_peak_bytes"] > g["allocated_peak_bytes"] and "accumulation" in ta["peak_phase"],
      "Trainer gradient_accumulation_steps=4: the peak is an accumulation micro-step, higher",
      f"Trainer accumulation: peak {ta['allocated_peak_bytes']} ({ta['peak_phase']}), without {g['allocated_peak_bytes']}")
PY

echo "--- 9. autocast with fp32 weights, and bf16 weights"
# params: 1024*4096 + 4096 + 4096*1024 + 1024 = 8393728
cat > amp.py <<'PY'
import torch
import torch.nn as nn
model = nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 1024)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(10):
    x = torch.randn(4096, 1024, device="cuda")
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(x).float().pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
PY
cat > bf16.py <<'PY'
import torch
import torch.nn as nn
model = nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 1024)).cuda()
model.to(torch.bfloat16)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(10):
    x = torch.randn(4096, 1024, device="cuda", dtype=torch.bfloat16)
    loss = model(x).float().pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
PY
est amp amp.py
est bf16 bf16.py
verdict amp bf16 <<'PY'
a, b = J
P = 1024 * 4096 + 4096 + 4096 * 1024 + 1024
check(a["params_total"] == b["params_total"] == P, "8393728 params in both",
      f"params {a['params_total']} / {b['params_total']}, expected {P}")
check(C(a, "weights") == 4 * P and B(a, "autocast_cache") > 0,
      "autocast: fp32 weights (4 x params) and 16-bit weight copies at the peak",
      f"autocast: weights {C(a, 'weights')} (expected {4 * P}), autocast_cache {B(a, 'autocast_cache')}")
check(C(b, "weights") == 2 * P and B(b, "autocast_cache") == 0,
      "model.to(torch.bfloat16): weights = 2 x params = 16787456, no copies",
      f"bf16: weights {C(b, 'weights')} (expected {2 * P}), autocast_cache {B(b, 'autocast_cache')}")
PY

echo "--- 10. the verdict against a GPU"
cat > llama.py <<'PY'
import torch
from transformers import AutoModelForCausalLM
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf").cuda()
model.train()
opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
for step in range(10):
    ids = torch.randint(0, 32000, (2, 1024), device="cuda")
    loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    opt.step()
    opt.zero_grad()
PY
est llama llama.py --gpu rtx-4090
est small mlp.py --gpu h200
verdict llama small <<'PY'
l, s = J
rem = l["remediation"]
check(RC[0] == 1 and l["fits"] is False and l["target"]["gpu"] == "rtx-4090" and l["target"]["count"] == 1,
      "Llama-2-7b full fine-tune on an RTX 4090: fits false, exit 1",
      f"fits {l['fits']}, exit {RC[0]}, target {l['target']}")
check(len(rem) > 0 and all(isinstance(r.get("projected_peak_bytes"), int) and isinstance(r.get("fits"), bool)
                           and r.get("change") for r in rem),
      "remediation: each change has projected_peak_bytes and a fits flag",
      f"remediation {rem}")
same = [r["change"] for r in rem if r["projected_peak_bytes"] >= l["projected_peak_bytes"]]
check(not same, "every change lowers the projected peak",
      f"changes that do not lower the projection (its peak is the {l['peak_phase']}): " + "; ".join(same))
check(RC[1] == 0 and s["fits"] is True and s["remediation"] == [] and s["smallest_fitting_gpu"] is None,
      "the MLP on an H200: fits true, no changes, exit 0",
      f"fits {s['fits']}, remediation {s['remediation']}, exit {RC[1]}")
PY

echo "--- 11. scripts it cannot read, and instance names"
printf 'import torch\ndef f(:\n    pass\n' > syntax.py
: > empty.py
python3 -c "
n = 5000
open('deep.py', 'w').write('import torch\nx = ' + '(' * n + '1' + ')' * n + '\n')
open('chain.py', 'w').write('import torch\nimport torch.nn as nn\nmodel = nn.Linear(8, 8).cuda()\n'
                            'y = model(torch.randn(4, 8, device=\"cuda\"))\nz = ' + ' + '.join(['y'] * n) +
                            '\nz.sum().backward()\n')
"
est syntax syntax.py
est empty empty.py
est deep deep.py
est chain chain.py
est p4de mlp.py --gpu p4de.24xlarge
verdict syntax empty deep chain p4de <<'PY'
sy, em, de, ch, p4 = J
check(RC[0] == 1 and E(sy).startswith("syntax error at 2:6: ") and sy["error"]["line"] == 2 and sy["allocated_peak_bytes"] is None,
      "a syntax error: exit 1, the error gives its line and column, no numbers", f"exit {RC[0]}, error {sy['error']!r}")
check(RC[1] == 1 and "nothing to estimate" in E(em), "an empty file: exit 1, nothing to estimate",
      f"exit {RC[1]}, error {em['error']!r}")
# CPython rejects more than 200 nested parentheses ("too many nested parentheses")
check(RC[2] == 1 and "syntax" in E(de), "5000 nested parentheses: a syntax error, no crash",
      f"exit {RC[2]}, error {de['error']!r}")
# (CPython's own parser gives up on it with a RecursionError; pfc must not crash)
check(RC[3] == 0 and ch["error"] is None and ch["batch"] == 4,
      "a 5000-term sum in the step: estimated, no crash", f"exit {RC[3]}, error {ch['error']!r}")
check(p4["target"] == {"gpu": "a100-80gb", "name": "NVIDIA A100 80GB", "count": 8,
                       "usable_bytes": p4["target"]["usable_bytes"]} and p4["fits"] is True,
      "--gpu p4de.24xlarge: 8 x a100-80gb", f"target {p4['target']}")
PY
"$PFC" estimate syntax.py; echo "text mode: status $?"

echo "--- 12. Hugging Face heads by class, Accelerate, assumptions"
# bert-base-uncased: BertModel 109,482,240 (embeddings 23,837,184 + 12 x 7,087,872
# + pooler 590,592); AutoModelForSequenceClassification(num_labels=3) adds the
# classifier 768*3 + 3 = 2,307 -> 109,484,547; AutoModelForMaskedLM drops the pooler
# and adds the prediction head: 109,514,298.
cat > cls.py <<'PY'
import torch
from transformers import AutoModelForSequenceClassification
model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased", num_labels=3).cuda()
model.train()
opt = torch.optim.AdamW(model.parameters(), lr=2e-5)
for step in range(4):
    ids = torch.randint(0, 30522, (16, 256), device="cuda")
    labels = torch.randint(0, 3, (16,), device="cuda")
    out = model(input_ids=ids, labels=labels)
    out.loss.backward()
    opt.step()
    opt.zero_grad()
PY
sed 's/AutoModelForSequenceClassification/AutoModelForMaskedLM/; s/, num_labels=3//; s/labels = torch.randint(0, 3, (16,), device="cuda")/labels = ids/' cls.py > mlm.py
# Accelerate: prepare() returns the same objects; mixed_precision="bf16" runs the
# model under autocast; accelerator.backward(loss) is the backward; its
# gradient_accumulation_steps keeps .grad through the micro-steps
cat > acc.py <<'PY'
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset
from transformers import AutoModelForCausalLM
accelerator = Accelerator(mixed_precision="bf16", gradient_accumulation_steps=2)
model = AutoModelForCausalLM.from_pretrained("gpt2")
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
loader = DataLoader(TensorDataset(torch.randint(0, 50257, (64, 512))), batch_size=8)
model, opt, loader = accelerator.prepare(model, opt, loader)
model = torch.compile(model)
model.train()
for (ids,) in loader:
    out = model(input_ids=ids, labels=ids)
    accelerator.backward(out.loss)
    opt.step()
    opt.zero_grad()
PY
est cls cls.py
est mlm mlm.py
est acc acc.py
verdict cls mlm acc <<'PY'
c, m, a = J
check(c["params_total"] == 109484547 and m["params_total"] == 109514298,
      "bert-base-uncased: sequence classification (3 labels) 109,484,547, masked LM 109,514,298",
      f"bert params: classification {c['params_total']}, masked LM {m['params_total']}")
check(B(m, "logits_loss") > 100 * max(B(c, "logits_loss"), 1),
      "the masked LM's vocabulary logits dwarf the classifier's",
      f"logits+loss: masked LM {B(m, 'logits_loss')}, classification {B(c, 'logits_loss')}")
check(a["error"] is None and a["batch"] == 8 and a["seq"] == 512 and B(a, "autocast_cache") > 0
      and "accumulation" in a["peak_phase"],
      "Accelerate: batch 8 x 512 from the prepared loader, bf16 autocast, accumulation micro-step peak",
      f"Accelerate: batch {a.get('batch')}, seq {a.get('seq')}, copies {a['breakdown'].get('autocast_cache')}, "
      f"peak at {a.get('peak_phase')!r}, error {a['error']!r}")
check(not any("eval()" in s for s in c["assumptions"]),
      "model.train() was called: no eval() assumption", f"assumptions {c['assumptions']}")
PY
sed 's/^model.train()$//' cls.py > noeval.py
est noeval noeval.py
verdict noeval <<'PY'
j = J[0]
check(any("eval()" in s for s in j["assumptions"]),
      "without model.train(): the eval() default (dropout off) is listed as an assumption",
      f"assumptions {j['assumptions']}")
PY

echo "--- 13. nn.TransformerEncoder and nn.MultiheadAttention in a model of the script"
# params: embedding 30000*512; 6 layers of (in_proj 3*512*512 + 3*512, out_proj
# 512*512 + 512, linear1 512*2048 + 2048, linear2 2048*512 + 512, two LayerNorms
# 4*512) = 3,152,384 each; the extra attention 1,050,624; head 512*4 + 4:
# 15,360,000 + 18,914,304 + 1,050,624 + 2,052 = 35,326,980 (the layer passed to
# TransformerEncoder is deep-copied: its own parameters are not the model's)
cat > tenc.py <<'PY'
import torch
import torch.nn as nn

class Classifier(nn.Module):
    def __init__(self, vocab=30000, d=512, heads=8, layers=6, classes=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        layer = nn.TransformerEncoderLayer(d, heads, dim_feedforward=2048, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=layers)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.head = nn.Linear(d, classes)

    def forward(self, x):
        h = self.encoder(self.emb(x))
        h, _ = self.attn(h, h, h, need_weights=NEED)
        return self.head(h.mean(dim=1))

model = Classifier().cuda()
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
for step in range(5):
    x = torch.randint(0, 30000, (32, 256), device="cuda")
    y = torch.randint(0, 4, (32,), device="cuda")
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad()
PY
sed 's/need_weights=NEED/need_weights=True/' tenc.py > tenc_w.py
sed 's/need_weights=NEED/need_weights=False/' tenc.py > tenc_sdpa.py
est tw tenc_w.py
est ts tenc_sdpa.py
verdict tw ts <<'PY'
w, s = J
check(w["params_total"] == s["params_total"] == 35326980, "35,326,980 parameters",
      f"params {w['params_total']} / {s['params_total']}")
# the explicit path keeps (N*heads, S, S) fp32 weights, their softmax output:
# 32*8*256*256*4 bytes = 64 MiB at least
check(w["allocated_peak_bytes"] - s["allocated_peak_bytes"] >= 32 * 8 * 256 * 256 * 4,
      "need_weights=True materialises the attention weights (>= 64 MiB more than SDPA)",
      f"peaks {w['allocated_peak_bytes']} vs {s['allocated_peak_bytes']}")
PY

echo "--- 14. torchvision datasets, several models, other optimizers"
# torchvision.datasets.MNIST yields (1, 28, 28) images: the batch is the
# DataLoader's 64; Net: conv 1->32 (320) + conv 32->64 (18,496) + fc 9216->128
# (1,179,776) + fc 128->10 (1,290) = 1,199,882 parameters; Adadelta keeps two
# state tensors per parameter: 2 * 4 * 1,199,882 = 9,599,056 bytes
cat > mnist.py <<'PY'
import argparse
import torch
import torch.nn as nn
import torch.nn.functional as F
from torchvision import datasets, transforms

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.relu(self.conv2(F.relu(self.conv1(x))))
        x = torch.flatten(F.max_pool2d(x, 2), 1)
        return F.log_softmax(self.fc2(F.relu(self.fc1(x))), dim=1)

def train(model, device, loader, optimizer):
    model.train()
    for data, target in loader:
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()
    transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    loader = torch.utils.data.DataLoader(datasets.MNIST("../data", train=True, download=True, transform=transform),
                                         batch_size=args.batch_size)
    model = Net().to("cuda")
    optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
    train(model, "cuda", loader, optimizer)

if __name__ == "__main__":
    main()
PY
# a GAN: two models, each with its optimizer; the generator is only reached
# through its optimizer from the discriminator's step. G: ConvTranspose2d
# 100->64 k4 (102,400) + BN (128) + ConvTranspose2d 64->3 k4 (3,072) = 105,600;
# D: Conv2d 3->64 k4 (3,072) + Conv2d 64->1 k4 (1,024) = 4,096
cat > gan.py <<'PY'
import torch
import torch.nn as nn
G = nn.Sequential(nn.ConvTranspose2d(100, 64, 4, 1, 0, bias=False), nn.BatchNorm2d(64), nn.ReLU(True),
                  nn.ConvTranspose2d(64, 3, 4, 2, 1, bias=False), nn.Tanh()).cuda()
D = nn.Sequential(nn.Conv2d(3, 64, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
                  nn.Conv2d(64, 1, 4, 1, 0, bias=False), nn.Sigmoid()).cuda()
optD = torch.optim.Adam(D.parameters(), lr=2e-4)
optG = torch.optim.Adam(G.parameters(), lr=2e-4)
criterion = nn.BCELoss()
for step in range(10):
    real = torch.randn(128, 3, 8, 8, device="cuda")
    D.zero_grad()
    errD = criterion(D(real).view(-1), torch.ones(128, device="cuda"))
    errD.backward()
    optD.step()
PY
est mnist mnist.py
est gan gan.py
verdict mnist gan <<'PY'
m, g = J
check(m["error"] is None and m["batch"] == 64 and m["params_total"] == 1199882
      and C(m, "optimizer_state") == 2 * 4 * 1199882,
      "MNIST: batch 64 from the loader, 1,199,882 parameters, Adadelta's two state tensors",
      f"MNIST: batch {m.get('batch')}, params {m.get('params_total')}, "
      f"state {m.get('components', {}).get('optimizer_state')}, error {m['error']!r}")
check(g["params_total"] == 105600 + 4096 and C(g, "optimizer_state") == 2 * 4 * (105600 + 4096),
      "GAN: both models' parameters and Adam states (109,696 parameters)",
      f"GAN: params {g['params_total']}, state {C(g, 'optimizer_state')}")
PY

echo "--- 15. DeepSpeed: ZeRO stage, bf16 with fp32 master weights, world size"
cat > ds.py <<'PY'
import torch
import deepspeed
from transformers import AutoModelForCausalLM
ds_config = {
    "bf16": {"enabled": True},
    "zero_optimization": {"stage": STAGE},
    "optimizer": {"type": "AdamW", "params": {"lr": 1e-5}},
}
model = AutoModelForCausalLM.from_pretrained("gpt2-medium")
engine, optimizer, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=ds_config)
engine.train()
for step in range(10):
    ids = torch.randint(0, 50257, (4, 1024), device="cuda")
    loss = engine(input_ids=ids, labels=ids).loss
    engine.backward(loss)
    engine.step()
PY
sed 's/STAGE/1/' ds.py > ds1.py
sed 's/STAGE/2/' ds.py > ds2.py
est ds1 ds1.py --world-size 8
est ds1one ds1.py
est ds2 ds2.py --world-size 8
verdict ds1 ds1one ds2 <<'PY'
one8, one1, two8 = J
P = 354823168
# bf16 weights on the GPU; the optimizer keeps fp32 master weights and two fp32
# moments (12 bytes a parameter), split over the 8 ranks by ZeRO-1
check(C(one1, "weights") == 2 * P and C(one1, "optimizer_state") == 12 * P,
      "DeepSpeed bf16: 2-byte weights, 12 bytes of optimizer state a parameter",
      f"weights {C(one1, 'weights')}, state {C(one1, 'optimizer_state')}")
check(one8["allocated_peak_bytes"] < one1["allocated_peak_bytes"] and
      two8["allocated_peak_bytes"] <= one8["allocated_peak_bytes"] and
      any("world size is unknown" in s for s in one1["assumptions"]),
      "ZeRO-1 over 8 ranks needs less than one rank; ZeRO-2 no more than ZeRO-1; without --world-size it says so",
      f"peaks {one8['allocated_peak_bytes']}, {one1['allocated_peak_bytes']}, {two8['allocated_peak_bytes']}; "
      f"assumptions {one1['assumptions']}")
PY

echo "--- 16. a list of losses still attached (no backward, no no_grad) keeps every graph"
cat > losses.py <<'PY'
import torch
from transformers import AutoModelForCausalLM
model = AutoModelForCausalLM.from_pretrained("gpt2").cuda()
model.eval()
losses = []
for i in range(6):
    ids = torch.randint(0, 50257, (8, 1024), device="cuda")
    out = model(input_ids=ids, labels=ids)
    losses.append(OUT)
print(sum(losses) / 6)
PY
sed 's/OUT/out.loss/' losses.py > attached.py
sed 's/OUT/out.loss.item()/' losses.py > items.py
est attached attached.py
est items items.py
verdict attached items <<'PY'
a, i = J
check(B(a, "retained_across_iterations") > 5 * 8 * 1024 * 50257 * 4 and B(i, "retained_across_iterations") == 0,
      "appending attached losses keeps 5 more graphs (each with its fp32 log-softmax); .item() keeps nothing",
      f"retained {B(a, 'retained_across_iterations')} vs {B(i, 'retained_across_iterations')}")
PY

echo "--- 17. an opaque data pipeline: the reason, and --seq / --batch to give the shape"
cat > clm.py <<'PY'
from datasets import load_dataset
from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments
tok = AutoTokenizer.from_pretrained("gpt2")
ds = load_dataset("wikitext", "wikitext-2-raw-v1")["train"].map(lambda e: tok(e["text"]), batched=True)
model = AutoModelForCausalLM.from_pretrained("gpt2")
args = TrainingArguments("out", per_device_train_batch_size=4, bf16=True)
Trainer(model=model, args=args, train_dataset=ds).train()
PY
est opaque clm.py
est given clm.py --seq 512
verdict opaque given <<'PY'
o, g = J
check(RC[0] == 1 and "--seq" in E(o), "without --seq: exit 1, and the error says --seq gives it",
      f"exit {RC[0]}, error {o['error']!r}")
check(g["error"] is None and g["batch"] == 4 and g["seq"] == 512 and g["training"]
      and any("could not be read" in s for s in g["assumptions"]),
      "with --seq 512: the Trainer's batch 4 x 512, a training step, and the assumption listed",
      f"batch {g.get('batch')}, seq {g.get('seq')}, error {g['error']!r}, assumptions {g['assumptions']}")
PY

echo "--- 18. recurrent layers: bidirectional LSTM and GRU parameters"
# LSTM(1024, 1024, 4 layers, bidirectional): per layer and direction
# 4h(in + h) + 8h, with in = 1024 for the first layer and 2h after:
# 2 * (8,396,800 + 3 * 12,591,104) = 92,340,224; embedding 33278*1024 and the
# decoder 2048 -> 33278 with bias: 194,603,518 in all. GRU(256, 512, 2): per
# layer 3h(in + h) + 6h: 1,182,720 + 1,575,936 = 2,758,656. LSTM(64, 64, 12):
# 12 * (4h(in + h) + 8h) = 12 * 33,280 = 399,360 (every layer has its weights,
# however many there are).
cat > rnn.py <<'PY'
import torch
import torch.nn as nn
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(33278, 1024)
        self.rnn = nn.LSTM(1024, 1024, 4, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2048, 33278)
    def forward(self, x):
        h, _ = self.rnn(self.emb(x))
        return self.out(h)
model = M().cuda()
opt = torch.optim.Adam(model.parameters())
x = torch.randint(0, 33278, (8, 128), device="cuda")
loss = nn.functional.cross_entropy(model(x).view(-1, 33278), x.view(-1))
loss.backward()
opt.step()
PY
cat > gru.py <<'PY'
import torch
import torch.nn as nn
rnn = nn.GRU(256, 512, 2, batch_first=True).cuda()
opt = torch.optim.SGD(rnn.parameters(), lr=0.1)
out, _ = rnn(torch.randn(32, 100, 256, device="cuda"))
out.sum().backward()
opt.step()
PY
sed 's/nn.GRU(256, 512, 2, batch_first=True)/nn.LSTM(64, 64, 12, batch_first=True)/; s/(32, 100, 256/(32, 100, 64/' gru.py > deep.py
est rnn rnn.py
est gru gru.py
est deep deep.py
verdict rnn gru deep <<'PY'
r, g, d = J
check(r["params_total"] == 194603518, "bidirectional 4-layer LSTM LM: 194,603,518 parameters",
      f"params {r['params_total']}")
check(g["params_total"] == 2758656, "2-layer GRU: 2,758,656 parameters", f"params {g['params_total']}")
check(d["params_total"] == 399360, "12-layer LSTM: 399,360 parameters", f"params {d['params_total']}")
PY

echo "--- 19. Conv1d on (batch, channels, length), and a reduction along a dimension keeps the graph"
# Conv1d(40, 128, 5) 25,728 + Conv1d(128, 128, 3) 49,280 + Linear(128, 10) 1,290 = 76,298
cat > conv1d.py <<'PY'
import torch
import torch.nn as nn
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(40, 128, 5, padding=2)
        self.c2 = nn.Conv1d(128, 128, 3, stride=2, padding=1)
        self.fc = nn.Linear(128, 10)
    def forward(self, x):
        h = torch.relu(self.c2(torch.relu(self.c1(x))))
        return self.fc(h.mean(dim=2))
m = M().cuda()
opt = torch.optim.Adam(m.parameters())
x = torch.randn(64, 40, 1000, device="cuda")
y = torch.randint(0, 10, (64,), device="cuda")
loss = nn.functional.cross_entropy(m(x), y)
loss.backward()
opt.step()
PY
est conv1d conv1d.py
"$PFC" estimate --trace conv1d.py > conv1d.trace
verdict conv1d <<'PY'
j = J[0]
trace = open("conv1d.trace").read().splitlines()
convs = [l for l in trace if " conv1d " in l]
reduce = [l for l in trace if " reduce " in l]
check(j["params_total"] == 76298 and len(convs) == 2 and "[64,128,1000]" in convs[0] and "[64,128,500]" in convs[1],
      "Conv1d: 76,298 parameters, outputs (64, 128, 1000) then (64, 128, 500)",
      f"params {j['params_total']}, convs {convs}")
check(len(reduce) == 1 and "nograd" not in reduce[0].split("from")[0],
      "h.mean(dim=2) stays in the graph (the convolutions get gradients)", f"reduce {reduce}")
PY

echo "--- 20. hand-written Llama pieces: type_as, Parameter operands, stack, einsum, gathers, F.pad"
# RMSNorm as Llama writes it: x.float() ... .type_as(x), then * self.weight (an nn.Parameter
# of 64 values). Before: .type_as() was unknown and every op after it vanished.
cat > llama_bits.py <<'PY'
import torch
import torch.nn as nn
import torch.nn.functional as F
class RMSNorm(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
    def forward(self, x):
        h = x.float()
        return (h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6)).type_as(x) * self.weight
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(1000, 64)
        self.norm = RMSNorm(64)
        self.W = nn.Parameter(torch.randn(128, 64))
        self.pos = nn.Parameter(torch.zeros(1, 32, 128))
        self.head = nn.Linear(128, 1000)
    def forward(self, ids):
        h = self.norm(self.emb(ids))               # [8, 32, 64]
        h = h @ self.W.T + self.pos[:, :ids.size(1)]   # [8, 32, 128]: a linear on W
        a, b = h.split([64, 64], dim=-1)          # two [8, 32, 64] views
        s = torch.stack([a, b], dim=1)            # [8, 2, 32, 64]: a new axis
        att = torch.einsum("bnid,bnjd->bnij", s, s)   # [8, 2, 32, 32]
        o = torch.einsum("bnij,bnjd->bnid", att.softmax(-1), s)
        o = F.pad(o, (0, 0, 0, 0, 0, 1))          # [8, 3, 32, 64]
        last = o[:, :, torch.tensor([31])]        # a gather: [8, 3, 1, 64]
        y = o.flatten(1, 2).mean(1) + last.mean((1, 2)).sum() * 0
        return self.head(torch.special.erf(torch.cat([y, y], -1)))
m = M().cuda()
opt = torch.optim.Adam(m.parameters())
ids = torch.randint(0, 1000, (8, 32), device="cuda")
loss = F.cross_entropy(m(ids), ids[:, 0])
loss.backward()
opt.step()
PY
est llama_bits llama_bits.py
"$PFC" estimate --trace llama_bits.py > llama_bits.trace
verdict llama_bits <<'PY'
j = J[0]
trace = open("llama_bits.trace").read().splitlines()
def ops(name): return [l for l in trace if l.split()[1:2] == [name]]
mulp, lin, cat, ein, gat = ops("mul_param"), ops("linear"), ops("cat"), ops("einsum"), ops("gather")
check(len(mulp) == 1 and "[8,32,64]" in mulp[0] and "saved" in mulp[0].split("from")[1],
      "RMSNorm after type_as: `* self.weight` keeps its [8, 32, 64] input for the weight's gradient",
      f"mul_param ops {mulp}")
check(any("[8,32,128]" in l for l in lin) and any("[8,1000]" in l for l in lin),
      "h @ self.W.T is a linear to [8, 32, 128]; the head is still reached", f"linear ops {lin}")
check(any("[8,2,32,64]" in l.split("from")[0] for l in cat), "torch.stack adds an axis: [8, 2, 32, 64]",
      f"cat ops {cat}")
check(len(ein) == 2 and "[8,2,32,32]" in ein[0] and "[8,2,32,64]" in ein[1],
      "einsum: [8, 2, 32, 32] scores, then [8, 2, 32, 64]", f"einsum ops {ein}")
check(len(gat) == 1 and "[8,3,1,64]" in gat[0], "F.pad then an index tensor: a [8, 3, 1, 64] gather",
      f"gather ops {gat}")
check(j["ops_assumed"] == 1 and any("line 29" in a and "torch.special.erf" in a for a in j["assumptions"]),
      "torch.special.erf: one op assumed elementwise, listed with its line",
      f"ops_assumed {j['ops_assumed']}, assumptions {j['assumptions']}")
PY

echo "--- 21. bare-name conditions: a constructor's flags decide which submodules exist"
# Block(64, cross=False): fc 64*64+64 = 4160; `if cross:` false, so no cross (64*1000+1000);
# hidden = 4*d if wide else d with wide=None: d, so up is 64*64+64 = 4160. Total 8320.
# With cross=True and wide=1: 4160 + 65000 + (64*256+256 = 16640) = 85800.
cat > flags.py <<'PY'
import torch
import torch.nn as nn
class Block(nn.Module):
    def __init__(self, d, cross=False, wide=None):
        super().__init__()
        self.fc = nn.Linear(d, d)
        if cross:
            self.cross = nn.Linear(d, 1000)
        hidden = 4 * d if wide else d
        self.up = nn.Linear(d, hidden)
    def forward(self, x):
        return self.up(self.fc(x))
def build(use_cross, wide=None):
    return Block(64, cross=use_cross, wide=wide)
model = build(False).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 64, device="cuda")
loss = model(x).sum()
loss.backward()
opt.step()
PY
sed 's/model = build(False)/model = build(True, wide=1)/' flags.py > flags_on.py
est flags flags.py
est flags_on flags_on.py
verdict flags flags_on <<'PY'
off, on = J
check(off["params_total"] == 8320 and not off["assumptions"],
      "flags off: 8,320 parameters, no condition assumed", f"params {off['params_total']}, {off['assumptions']}")
check(on["params_total"] == 85800 and not on["assumptions"],
      "flags on: 85,800 parameters", f"params {on['params_total']}, {on['assumptions']}")
PY

echo "--- 22. QLoRA: bitsandbytes 4-bit weights, prepare_model_for_kbit_training, 8-bit"
# Llama-2-7b: per layer q,k,v,o are 4096 x 4096 and gate,up,down 4096 x 11008, all quantized;
# NF4 with double quantization stores n/2 bytes + one byte per 64-value block + 4 bytes per
# 256 blocks. The embeddings, head and 65 norms stay unquantized, cast to fp32 by
# prepare_model_for_kbit_training; LoRA r=16 on q,k,v,o adds 32*4*2*16*4096 fp32 values.
cat > qlora.py <<'PY'
import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig, TrainingArguments, Trainer
from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training
bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4",
                         bnb_4bit_use_double_quant=True, bnb_4bit_compute_dtype=torch.bfloat16)
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", quantization_config=bnb)
model = prepare_model_for_kbit_training(model)
config = LoraConfig(r=16, lora_alpha=32, target_modules=["q_proj", "k_proj", "v_proj", "o_proj"])
model = get_peft_model(model, config)
args = TrainingArguments(output_dir="out", per_device_train_batch_size=4, bf16=True)
Trainer(model=model, args=args, train_dataset=None).train()
PY
# the same model loaded in 8 bits with torch_dtype=float16, no prepare: a byte per quantized
# value, the rest fp16; and 4-bit without torch_dtype (transformers loads the rest in fp16)
cat > int8.py <<'PY'
import torch
from transformers import AutoModelForCausalLM, TrainingArguments, Trainer
from peft import LoraConfig, get_peft_model
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", load_in_8bit=True,
                                             torch_dtype=torch.float16)
model = get_peft_model(model, LoraConfig(r=16, target_modules=["q_proj", "k_proj", "v_proj", "o_proj"]))
args = TrainingArguments(output_dir="out", per_device_train_batch_size=4, fp16=True)
Trainer(model=model, args=args, train_dataset=None).train()
PY
sed -e 's/model = prepare_model_for_kbit_training(model)//' qlora.py > nodtype.py
est qlora qlora.py --seq 512
est int8 int8.py --seq 512
est nodtype nodtype.py --seq 512
verdict qlora int8 nodtype <<'PY'
q, i8, nd = J
d, ff, L, V = 4096, 11008, 32, 32000
def nf4_dq(n):
    blocks = (n + 63) // 64
    return (n + 1) // 2 + blocks + (blocks + 255) // 256 * 4
quant4 = L * (4 * nf4_dq(d * d) + 3 * nf4_dq(d * ff))
rest = 2 * V * d + (2 * L + 1) * d
lora = L * 4 * 2 * 16 * d
check(C(q, "weights") == quant4 + 4 * rest + 4 * lora == 4457521152,
      "4-bit NF4 + double quant, the rest fp32 after prepare: 4,457,521,152 bytes of weights",
      f"weights {C(q, 'weights')}, by hand {quant4 + 4 * rest + 4 * lora}")
check(q["params_trainable"] == lora and B(q, "activations") * 4 < B(nd, "activations"),
      "only the adapters train; prepare_model_for_kbit_training turns checkpointing on (activations < 1/4)",
      f"trainable {q['params_trainable']}, activations {B(q, 'activations')} vs {B(nd, 'activations')} without")
quant8 = L * (4 * d * d + 3 * d * ff)
check(C(i8, "weights") == quant8 + 2 * rest + 4 * lora,
      "8-bit: a byte per quantized value, the rest fp16", f"weights {C(i8, 'weights')}, by hand {quant8 + 2 * rest + 4 * lora}")
check(C(nd, "weights") == quant4 + 2 * rest + 4 * lora and any("float16" in a for a in nd["assumptions"]),
      "4-bit without torch_dtype: the rest in fp16, said so",
      f"weights {C(nd, 'weights')}, by hand {quant4 + 2 * rest + 4 * lora}, {nd['assumptions']}")
PY

echo "--- 23. FSDP: the backward reduce-scatters each gradient, a rank keeps its shard"
# Llama-2-7b in bf16: 6,738,415,616 parameters, 13,476,831,232 bytes of gradients in all;
# over 8 ranks a rank holds 1,684,603,904 at any point of the backward (the old estimate
# kept every gradient whole until the step).
cat > fsdp.py <<'PY'
import torch
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from transformers import AutoModelForCausalLM
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.bfloat16)
model = FSDP(model)
model.train()
ids = torch.randint(0, 32000, (1, 16), device="cuda")
out = model(input_ids=ids, labels=ids)
out.loss.backward()
PY
est fsdp1 fsdp.py --world-size 1
est fsdp8 fsdp.py --world-size 8
verdict fsdp1 fsdp8 <<'PY'
one, eight = J
check(B(one, "gradients") == 13476831232, "one rank: every gradient whole, 13,476,831,232 bytes",
      f"gradients at the peak {B(one, 'gradients')}")
check(B(eight, "gradients") == 13476831232 // 8, "8 ranks: a rank's shards, 1,684,603,904 bytes",
      f"gradients at the peak {B(eight, 'gradients')} ({eight['peak_phase']})")
PY

echo "--- 24. nn.Transformer, nn.TransformerDecoder(Layer): parameters, the graph, masks, custom parts"
# Parameters, d = 512, ff = 2048 (torch/nn/modules/transformer.py): an
# attention is in_proj 3d*d + 3d and out_proj d*d + d = 1,050,624; the
# feed-forward linear1 d*ff + ff = 1,050,624 and linear2 ff*d + d = 1,049,088;
# a LayerNorm 2d = 1,024. An encoder layer: attention + feed-forward + 2
# norms = 3,152,384; a decoder layer: 2 attentions + feed-forward + 3 norms =
# 4,204,032. nn.Transformer(): 6 * 3,152,384 + 1,024 (encoder norm) +
# 6 * 4,204,032 + 1,024 (decoder norm) = 18,915,328 + 25,225,216 = 44,140,544.
# bias=False (Linear, LayerNorm and the attentions lose their biases): an
# encoder layer 4d*d + 2*d*ff + 2d = 3,146,752, a decoder layer
# 8d*d + 2*d*ff + 3d = 4,195,840, a norm d = 512:
# 6 * 3,146,752 + 512 + 6 * 4,195,840 + 512 = 44,056,576. (PyTorch's own
# sum(p.numel() for p in m.parameters()) gives 44,140,544, 26,250,216 and
# 83,968 for the models below; bias= is newer than the torch at hand.)
cat > tf.py <<'PY'
import torch
import torch.nn as nn
model = nn.Transformer(ARGS).cuda()
opt = torch.optim.AdamW(model.parameters())
src = torch.randn(128, 16, 512, device="cuda")
tgt = torch.randn(64, 16, 512, device="cuda")
loss = model(src, tgt).sum()
loss.backward()
opt.step()
PY
sed 's/ARGS//' tf.py > tf_default.py
sed 's/ARGS/bias=False/' tf.py > tf_nobias.py
sed 's/ARGS/activation="swish"/' tf.py > tf_swish.py
sed 's/from x//; s/ARGS/custom_encoder=Encoder(dim=512, depth=6)/; 2a from x_transformers import Encoder' tf.py > tf_custom.py
# a decoder-only model: TransformerDecoder(layer, 6, norm) = 6 * 4,204,032 +
# 1,024 = 25,225,216, with an embedding 1000 * 512 and a head 512 * 1000 + 1000:
# 26,250,216; the layer handed to TransformerDecoder is deep-copied (its own
# parameters are not the model's)
cat > tdec.py <<'PY'
import torch
import torch.nn as nn
class Captioner(nn.Module):
    def __init__(self, vocab=1000, d=512):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        layer = nn.TransformerDecoderLayer(d, 8, dim_feedforward=2048, batch_first=True, activation="gelu")
        self.decoder = nn.TransformerDecoder(layer, num_layers=6, norm=nn.LayerNorm(d))
        self.head = nn.Linear(d, vocab)
    def forward(self, tokens, memory):
        T = tokens.size(1)
        mask = nn.Transformer.generate_square_subsequent_mask(T, device=tokens.device)
        return self.head(self.decoder(self.emb(tokens), memory, tgt_mask=mask, tgt_is_causal=True))
model = Captioner().cuda()
opt = torch.optim.AdamW(model.parameters())
tokens = torch.randint(0, 1000, (16, 64), device="cuda")
memory = torch.randn(16, 196, 512, device="cuda")
logits = model(tokens, memory)
loss = nn.functional.cross_entropy(logits.view(-1, 1000), tokens.view(-1))
loss.backward()
opt.step()
PY
# a stack's norm of a class pfc cannot read: the stack's output is kept
# (taken as elementwise on the last layer's), and the report says so
sed 's/model = nn.Transformer(ARGS)/from apex.normalization import FusedLayerNorm\
model = nn.TransformerEncoder(nn.TransformerEncoderLayer(512, 8), 2, norm=FusedLayerNorm(512))/; s/model(src, tgt)/model(src)/' tf.py > tf_norm.py
est tfd tf_default.py
est tfn tf_nobias.py
est tfs tf_swish.py
est tfc tf_custom.py
est tdec tdec.py
est tfnorm tf_norm.py
verdict tfd tfn tfs tfc tdec tfnorm <<'PY'
d, n, s, c, dec, norm = J
check(d["params_total"] == 44140544 and not d["assumptions"], "nn.Transformer(): 44,140,544 parameters, nothing assumed",
      f"params {d['params_total']}, assumptions {d['assumptions']}")
check(d["batch"] == 16, "sequence first: (128, 16, 512) is a batch of 16", f"batch {d['batch']}")
check(n["params_total"] == 44056576, "nn.Transformer(bias=False): 44,056,576 parameters", f"params {n['params_total']}")
check(RC[2] != 0 and "swish" in E(s), "activation=\"swish\" is refused (PyTorch raises)", f"rc {RC[2]}, error {E(s)!r}")
check(c["params_total"] == 25225216 and any("custom_encoder" in a for a in c["assumptions"])
      and any("encoder is not modelled" in a for a in c["assumptions"]),
      "a custom_encoder of a class pfc cannot read: the decoder's 25,225,216 parameters, both gaps listed",
      f"params {c['params_total']}, assumptions {c['assumptions']}")
check(norm["params_total"] == 2 * 3152384 and any("norm is not modelled" in a for a in norm["assumptions"])
      and norm["ops_assumed"] == 1, "an unknown norm= after a stack: taken as elementwise, listed",
      f"params {norm['params_total']}, assumptions {norm['assumptions']}, ops assumed {norm['ops_assumed']}")
check(dec["params_total"] == 26250216 and B(dec, "logits_loss") > 0,
      "TransformerDecoder over a memory: 26,250,216 parameters, followed to the loss",
      f"params {dec['params_total']}, logits_loss {B(dec, 'logits_loss')}, assumptions {dec['assumptions']}")
PY
# The graph of one small nn.Transformer(d_model=64, nhead=4, 1 + 1 layers,
# dim_feedforward=128), sequence first, src (S=16, N=8, E=64), tgt (T=8, N=8),
# fp32, dropout 0.1, from the running total that keeps it (retained = 1 x the
# graph). Units: x = S*N*E*4 = 32,768 bytes, y = T*N*E*4 = 16,384; a bool
# dropout mask is a quarter of its fp32 tensor; a LayerNorm keeps its input
# and mean and rstd, 2 * 512 (S*N*4 = 512; T*N*4 = 256, rounded up to 512).
# Encoder layer: src (the in-projection's input), the packed (3, S, N, E)
# q/k/v copy (3), SDPA's output, out_proj's (S*N, E) input copy, norm1's
# input, linear1's input (norm1's output), norm2's input: 9x = 294,912; SDPA's
# logsumexp N*h*S*4 = 2,048; dropout1's and dropout2's masks 2 * 8,192; the
# two norms' statistics 2 * 1,024; relu's output and dropout's output
# 2 * S*N*ff*4 = 131,072 and dropout's mask 16,384: 462,848. The encoder's
# norm: x + 1,024 -> 496,640.
# Decoder layer. Self-attention: tgt, packed (3), output, copy, norm1's input
# 7y = 114,688 + logsumexp N*h*T*4 = 1,024 + mask 4,096 + statistics 1,024 =
# 120,832. Cross-attention: norm1's output (q's projection input), q's
# projection (SDPA's q), output, copy, norm2's input 5y = 81,920; the memory
# (the k/v projection's input) and the packed (2, S, N, E) k/v copy 3x =
# 98,304; logsumexp 1,024 + mask 4,096 + statistics 1,024: 186,368.
# Feed-forward: linear1's input and norm3's input 2y = 32,768, relu's and
# dropout's outputs 2 * 32,768, masks 8,192 + 4,096, statistics 1,024:
# 111,616. The decoder's norm y + 1,024 = 17,408. 436,224 in all.
# The graph: 496,640 + 436,224 = 932,864 bytes.
# With src_mask and src_key_padding_mask, tgt_mask and tgt_key_padding_mask,
# and memory_key_padding_mask, F.multi_head_attention_forward adds each
# attn_mask and padding mask into one (N*heads, L, S) fp32 mask that SDPA
# keeps: 8*4*16*16*4 = 32,768 (encoder) + 8*4*8*8*4 = 8,192 (decoder self);
# the padding mask alone (cross-attention) is expanded to (N*heads, 1, S):
# 8*4*16*4 = 2,048. 43,008 bytes more.
cat > tfg.py <<'PY'
import torch
import torch.nn as nn
model = nn.Transformer(d_model=64, nhead=4, num_encoder_layers=1, num_decoder_layers=1,
                       dim_feedforward=128).cuda()
total = 0
for step in range(2):
    src = torch.randn(16, 8, 64, device="cuda")
    tgt = torch.randn(8, 8, 64, device="cuda")
    out = model(src, tgt)
    total += out.sum()
PY
sed 's/out = model(src, tgt)/out = model(src, tgt, src_mask=src_mask, tgt_mask=tgt_mask, src_key_padding_mask=src_pad, tgt_key_padding_mask=tgt_pad, memory_key_padding_mask=src_pad)/' tfg.py > tfm.py
sed -i 's/^    tgt = .*/&\
    src_mask = torch.zeros(16, 16, dtype=torch.bool, device="cuda")\
    tgt_mask = model.generate_square_subsequent_mask(8, device="cuda")\
    src_pad = torch.zeros(8, 16, dtype=torch.bool, device="cuda")\
    tgt_pad = torch.zeros(8, 8, dtype=torch.bool, device="cuda")/' tfm.py
est tfg tfg.py
est tfm tfm.py
verdict tfg tfm <<'PY'
g, m = J
check(g["params_total"] == 83968, "the small nn.Transformer: 83,968 parameters", f"params {g['params_total']}")
check(B(g, "retained_across_iterations") == 932864, "its graph, worked out by hand: 932,864 bytes",
      f"retained {B(g, 'retained_across_iterations')}")
check(B(m, "retained_across_iterations") - B(g, "retained_across_iterations") == 43008 and not m["assumptions"],
      "attn_mask + key_padding_mask: the merged masks SDPA keeps, 43,008 bytes more",
      f"retained {B(m, 'retained_across_iterations')}, assumptions {m['assumptions']}")
PY
