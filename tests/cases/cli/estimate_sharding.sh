# pfc estimate: quantisation and sharding (issue 12): ZeRO 1-3 from DeepSpeed
# JSON configs, FSDP's sharding strategies, the world size from --world-size
# or the environment torchrun sets, paged optimizers, offload, torch.compile.
# Each case's --json output is checked by a python3 verdict against bytes
# worked out by hand in the comments; "ok: ..." when it holds, "WRONG: ..."
# with the numbers when it does not.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
unset WORLD_SIZE LOCAL_WORLD_SIZE

est() { local name=$1; shift; "$PFC" estimate "$@" --json > "$name.res" 2> "$name.err"; echo $? > "$name.rc"; }
verdict() {
    python3 -c "import json, sys
J = [json.load(open(n + '.res')) for n in sys.argv[1:]]
RC = [int(open(n + '.rc').read()) for n in sys.argv[1:]]
def B(j, k): return j['breakdown'][k]
def C(j, k): return j['components'].get(k, 0)
def A(j, s): return any(s in a for a in j['assumptions'])
def check(ok, good, bad): print(('ok: ' + good) if ok else ('WRONG: ' + bad))
P = 8 * 4096 * 4096   # the model below: 8 x Linear(4096, 4096, bias=False) = 134217728 parameters
$(cat)" "$@"
}

# the model: P = 134217728 fp32 parameters in 8 layers (pfc assumes 8 for an
# in-file model): weights 4P = 512 MiB, AdamW's two moments 8P = 1 GiB
model() {
    cat <<PY
import torch
import torch.nn as nn
$1
model = nn.Sequential(*[nn.Linear(4096, 4096, bias=False) for _ in range(8)]).cuda()
PY
}
loop() {
    cat <<'PY'
for step in range(10):
    x = torch.randn(16, 4096, device="cuda")
    loss = engine(x).square().mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
PY
}
ds_script() {
    model "import deepspeed"
    printf 'opt = torch.optim.AdamW(model.parameters(), lr=1e-4)\n'
    printf 'engine, opt, _, _ = deepspeed.initialize(model=model, optimizer=opt, %s)\n' "$1"
    loop
}

echo "--- 1. ZeRO 1, 2, 3 from a DeepSpeed JSON file, 8 ranks"
# ZeRO-1: state 8P / 8 = P = 134217728; gradients whole, 4P = 536870912
# ZeRO-2: + gradients 4P / 8 = 67108864
# ZeRO-3: + weights 4P / 8 + two gathered layers 2 x 4P / 8 = 201326592 per rank
for st in 1 2 3; do
    echo "{\"zero_optimization\": {\"stage\": $st}, \"train_micro_batch_size_per_gpu\": 16}" > ds$st.json
    ds_script "config=\"ds$st.json\"" > zero$st.py
    est zero$st zero$st.py --world-size 8
done
ds_script 'config_params="ds3.json"' > zero3p.py
est zero3p zero3p.py --world-size 8
verdict zero1 zero2 zero3 zero3p <<'PY'
z1, z2, z3, z3p = J
check(C(z1, "optimizer_state") == P and C(z1, "gradients") == 4 * P and B(z1, "weights") == 4 * P,
      "ZeRO-1 x8: state 8P/8 = 134217728, gradients 4P, weights 4P",
      f"ZeRO-1: state {C(z1, 'optimizer_state')}, grads {C(z1, 'gradients')}, weights {B(z1, 'weights')}")
check(C(z2, "optimizer_state") == P and C(z2, "gradients") == 4 * P // 8 and B(z2, "weights") == 4 * P,
      "ZeRO-2 x8: state 134217728, gradients 4P/8 = 67108864, weights 4P",
      f"ZeRO-2: state {C(z2, 'optimizer_state')}, grads {C(z2, 'gradients')}, weights {B(z2, 'weights')}")
check(B(z3, "weights") == 4 * P // 8 + 2 * 4 * P // 8 == 201326592 and C(z3, "gradients") == 4 * P // 8,
      "ZeRO-3 x8: weights 4P/8 + 2 gathered layers = 201326592, gradients 67108864",
      f"ZeRO-3: weights {B(z3, 'weights')}, grads {C(z3, 'gradients')}")
check(z3p["allocated_peak_bytes"] == z3["allocated_peak_bytes"] and C(z3p, "gradients") == 4 * P // 8,
      "config_params= reads the file as config= does",
      f"config_params {z3p['allocated_peak_bytes']} vs config {z3['allocated_peak_bytes']}")
check(z1["batch"] == 16 and A(z1, "ds1.json"), "the file is named in an assumption line, micro-batch 16",
      f"batch {z1['batch']}, assumptions {z1['assumptions']}")
PY

echo "--- 1b. deepspeed.initialize(args=args): --deepspeed_config's argparse default names the file"
# as case 1's ZeRO-3: gradients 4P/8 = 67108864
cat > dsargs.py <<'PY'
import argparse
import torch
import torch.nn as nn
import deepspeed
parser = argparse.ArgumentParser()
parser.add_argument("--deepspeed_config", default="ds3.json")
args = parser.parse_args()
model = nn.Sequential(*[nn.Linear(4096, 4096, bias=False) for _ in range(8)])
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
engine, opt, _, _ = deepspeed.initialize(args=args, model=model, optimizer=opt)
for step in range(10):
    x = torch.randn(16, 4096, device="cuda")
    loss = engine(x).square().mean()
    engine.backward(loss)
    engine.step()
PY
est dsargs dsargs.py --world-size 8
verdict dsargs <<'PY'
d = J[0]
check(C(d, "gradients") == 4 * P // 8 and A(d, "ds3.json"), "args.deepspeed_config = ds3.json: ZeRO-3, gradients 67108864",
      f"gradients {C(d, 'gradients')}, assumptions {d['assumptions']}")
PY

echo "--- 2. the world size from the environment torchrun sets"
# WORLD_SIZE=8 and no --world-size: as case 1's ZeRO-2, and the line says where 8 came from
WORLD_SIZE=8 est env zero2.py
est none zero2.py
verdict env zero2 none <<'PY'
e, z2, n = J
check(e["allocated_peak_bytes"] == z2["allocated_peak_bytes"] and A(e, "WORLD_SIZE"),
      "WORLD_SIZE=8 gives what --world-size 8 gives, and says so",
      f"env {e['allocated_peak_bytes']} vs option {z2['allocated_peak_bytes']}, assumptions {e['assumptions']}")
check(C(n, "optimizer_state") == 8 * P and A(n, "one rank assumed"),
      "no world size: one rank (state 8P = 1073741824), with an assumption line",
      f"state {C(n, 'optimizer_state')}, assumptions {n['assumptions']}")
PY

echo "--- 3. DeepSpeed offload, bf16 and \"auto\""
# offload_optimizer to the CPU: no state and no step temporaries on the GPU.
# bf16 enabled: 16-bit weights 2P = 268435456 on the GPU, fp32 master weights
# and moments in the optimizer 12 B/param, ZeRO-1 x8: 12P/8 = 201326592
echo '{"zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}}}' > off.json
ds_script 'config="off.json"' > off.py
est off off.py --world-size 8
echo '{"zero_optimization": {"stage": 1}, "bf16": {"enabled": true}}' > bf16.json
ds_script 'config="bf16.json"' > bf16.py
est bf16 bf16.py --world-size 8
verdict off bf16 <<'PY'
o, b = J
check(C(o, "optimizer_state") == 0 and B(o, "optimizer_step_temporaries") == 0 and A(o, "offload_optimizer"),
      "offload_optimizer cpu: no optimizer state or step on the GPU",
      f"state {C(o, 'optimizer_state')}, temporaries {B(o, 'optimizer_step_temporaries')}")
check(B(b, "weights") == 2 * P and C(b, "optimizer_state") == 12 * P // 8,
      "bf16 + ZeRO-1 x8: weights 2P = 268435456, state 12P/8 = 201326592",
      f"weights {B(b, 'weights')}, state {C(b, 'optimizer_state')}")
PY

echo "--- 4. a missing or broken DeepSpeed config is a refusal naming it"
ds_script 'config="missing.json"' > missing.py
est missing missing.py
echo '{"zero_optimization": {"stage": 3,}' > broken.json
ds_script 'config="broken.json"' > broken.py
est broken broken.py
verdict missing broken <<'PY'
m, b = [dict(x, error=(x['error'] or {}).get('message')) for x in J]
check(RC[0] == 1 and "missing.json" in (m["error"] or "") and "line 6" in m["error"],
      "missing.json: exit 1, the error names the file and the line", f"rc {RC[0]}, error {m['error']}")
check(RC[1] == 1 and "broken.json" in (b["error"] or "") and "not JSON" in b["error"],
      "broken.json: exit 1, the error names the file", f"rc {RC[1]}, error {b['error']}")
PY

echo "--- 5. FSDP's sharding strategies, 16 ranks"
# FULL_SHARD: weights 4P/16 + 2 x 4P/8 = 33554432 + 134217728 = 167772160; state 8P/16
# SHARD_GRAD_OP: weights whole 4P; gradients 4P/16 = 33554432; state 8P/16 = 67108864
# HYBRID_SHARD with LOCAL_WORLD_SIZE=4: as FULL_SHARD over 4: weights 4P/4 + 4P/4 = 268435456,
#   state 8P/4 = 268435456, gradients 4P/4 = 134217728
# NO_SHARD: replicated: weights 4P, gradients 4P, state 8P
fsdp() {
    model "from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, ShardingStrategy"
    printf 'engine = FSDP(model%s)\n' "$1"
    printf 'opt = torch.optim.AdamW(engine.parameters(), lr=1e-4)\n'
    loop
}
fsdp "" > full.py
fsdp ", sharding_strategy=ShardingStrategy.SHARD_GRAD_OP" > gradop.py
fsdp ", sharding_strategy=ShardingStrategy.HYBRID_SHARD" > hybrid.py
fsdp ", sharding_strategy=ShardingStrategy.NO_SHARD" > noshard.py
est full full.py --world-size 16
est gradop gradop.py --world-size 16
LOCAL_WORLD_SIZE=4 est hybrid hybrid.py --world-size 16
est noshard noshard.py --world-size 16
verdict full gradop hybrid noshard <<'PY'
f, g, h, n = J
check(B(f, "weights") == 4 * P // 16 + 2 * 4 * P // 8 and C(f, "optimizer_state") == 8 * P // 16,
      "FULL_SHARD x16: weights 167772160, state 67108864",
      f"FULL_SHARD: weights {B(f, 'weights')}, state {C(f, 'optimizer_state')}")
check(B(g, "weights") == 4 * P and C(g, "gradients") == 4 * P // 16 and C(g, "optimizer_state") == 8 * P // 16,
      "SHARD_GRAD_OP x16: weights 4P, gradients 33554432, state 67108864",
      f"SHARD_GRAD_OP: weights {B(g, 'weights')}, grads {C(g, 'gradients')}, state {C(g, 'optimizer_state')}")
check(B(h, "weights") == 2 * P and C(h, "optimizer_state") == 2 * P and C(h, "gradients") == P,
      "HYBRID_SHARD over a 4-GPU node: weights 268435456, state 268435456, gradients 134217728",
      f"HYBRID: weights {B(h, 'weights')}, state {C(h, 'optimizer_state')}, grads {C(h, 'gradients')}")
check(B(n, "weights") == 4 * P and C(n, "gradients") == 4 * P and C(n, "optimizer_state") == 8 * P,
      "NO_SHARD: replicated, weights 4P, gradients 4P, state 8P",
      f"NO_SHARD: weights {B(n, 'weights')}, grads {C(n, 'gradients')}, state {C(n, 'optimizer_state')}")
PY

echo "--- 6. paged optimizers: the state in managed memory, outside the allocator's peak"
# PagedAdamW8bit: one byte per value, two values: 2P = 268435456, reported apart;
# PagedAdamW (32-bit): 8P = 1073741824; neither in components.optimizer_state
paged() {
    model "import bitsandbytes as bnb"
    printf 'opt = bnb.optim.%s(model.parameters(), lr=1e-4)\nengine = model\n' "$1"
    loop
}
paged PagedAdamW8bit > p8.py
paged AdamW8bit > a8.py
paged PagedAdamW > p32.py
est p8 p8.py
est a8 a8.py
est p32 p32.py --gpu h100
verdict p8 a8 p32 <<'PY'
p8, a8, p32 = J
check(C(p8, "paged_optimizer_state") == 2 * P and C(p8, "optimizer_state") == 0,
      "PagedAdamW8bit: paged state 2P = 268435456, none in the allocator's",
      f"paged {C(p8, 'paged_optimizer_state')}, allocator state {C(p8, 'optimizer_state')}")
check(C(a8, "optimizer_state") == 2 * P and p8["allocated_peak_bytes"] < a8["allocated_peak_bytes"],
      "AdamW8bit (not paged): the same 2P counted in the allocated peak, which is higher",
      f"AdamW8bit state {C(a8, 'optimizer_state')}, peaks {a8['allocated_peak_bytes']} vs paged {p8['allocated_peak_bytes']}")
check(C(p32, "paged_optimizer_state") == 8 * P and p32["fits"] is True,
      "PagedAdamW: paged state 8P = 1073741824", f"paged {C(p32, 'paged_optimizer_state')}, fits {p32['fits']}")
PY
"$PFC" estimate p32.py --gpu h100 | grep "paged optimizer state"

echo "--- 7. the Trainer: optim=\"paged_adamw_8bit\", deepspeed=\"ds.json\" with \"auto\""
# gpt2: 124439808 parameters (the published count). paged_adamw_8bit: 2 x 124439808 = 248879616 paged.
# ds_auto.json: ZeRO-2, bf16 "auto" = TrainingArguments(bf16=True): 16-bit weights and
# fp32 master weights + moments, 12 B/param over 4 ranks: 12 x 124439808 / 4 = 373319424
trainer() {
    cat <<PY
import torch
from torch.utils.data import Dataset
from transformers import AutoModelForCausalLM, Trainer, TrainingArguments
class Toks(Dataset):
    def __len__(self):
        return 1000
    def __getitem__(self, i):
        ids = torch.randint(0, 50257, (256,))
        return {"input_ids": ids, "labels": ids}
model = AutoModelForCausalLM.from_pretrained("gpt2")
args = TrainingArguments(output_dir="out", per_device_train_batch_size=4, bf16=True, $1)
trainer = Trainer(model=model, args=args, train_dataset=Toks())
trainer.train()
PY
}
trainer 'optim="paged_adamw_8bit"' > tpaged.py
est tpaged tpaged.py
echo '{"zero_optimization": {"stage": 2}, "bf16": {"enabled": "auto"}, "train_micro_batch_size_per_gpu": "auto"}' > ds_auto.json
trainer 'deepspeed="ds_auto.json"' > tds.py
est tds tds.py --world-size 4
verdict tpaged tds <<'PY'
t, d = J
G = 124439808
check(t["params_trainable"] == G and C(t, "paged_optimizer_state") == 2 * G,
      "Trainer paged_adamw_8bit: gpt2 124439808 params, paged state 248879616",
      f"params {t['params_trainable']}, paged {C(t, 'paged_optimizer_state')}")
check(C(d, "optimizer_state") == 12 * G // 4 and A(d, "bf16.enabled \"auto\"") and d["batch"] == 4,
      "deepspeed=ds_auto.json: ZeRO-2 x4, bf16 auto from TrainingArguments, state 373319424, batch 4",
      f"state {C(d, 'optimizer_state')}, batch {d['batch']}, assumptions {d['assumptions']}")
PY

echo "--- 8. torch.compile is flagged; a distributed script of unknown width says so"
{ model ""; printf 'engine = torch.compile(model)\nopt = torch.optim.AdamW(model.parameters())\n'; loop; } > comp.py
est comp comp.py
{ model "import torch.distributed as dist"; printf 'dist.init_process_group("nccl")\nengine = model\nopt = torch.optim.AdamW(model.parameters())\n'; loop; } > dist.py
est dist dist.py
verdict comp dist <<'PY'
c, d = J
check(c.get("torch_compile", "").startswith("unmeasured") and A(c, "torch.compile"),
      "torch.compile: flagged unmeasured in the JSON, with an assumption line",
      f"torch_compile {c.get('torch_compile')}, assumptions {c['assumptions']}")
check(A(d, "runs distributed"), "init_process_group without a world size: one rank, said",
      f"assumptions {d['assumptions']}")
PY
