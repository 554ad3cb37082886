# pfc estimate's report (issue 12): the verdict on the first line (fits,
# does not fit, borderline when the range crosses the usable capacity; the
# projected peak without --gpu), both views of the breakdown (resident at
# the peak, and each component's total over the step: a full fine-tune's
# gradients), the range in one line, DDP as replication and FSDP as
# sharding, --json's inputs, version, path and verdict, and a JSON error
# object for every failure.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
# An MLP of three 4096-wide layers with AdamW on a batch of 245760 rows:
# activations of about 18.75 GiB, allocated peak about 19.1 GiB, so the
# range (+0.25% to +20% allocator slack, + 0.67 GiB context: 19.8 to 23.6
# GiB) crosses an A10G's 21.89 GiB usable while the projection (+6%:
# 20.9 GiB) sits below it.
cat > mlp.py <<'PY'
import torch
import torch.nn as nn
model = nn.Sequential(nn.Linear(4096, 4096), nn.ReLU(), nn.Linear(4096, 4096), nn.ReLU(), nn.Linear(4096, 10)).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(10):
    x = torch.randn(245760, 4096, device="cuda")
    y = torch.randint(0, 10, (245760,), device="cuda")
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
PY
# A full fine-tune of Llama-2-7b, fp32 weights under bf16 autocast: its
# peak is in the second step's forward, when the gradients are freed
# (set_to_none) but a full fine-tune still has 6.74 B x 4 B = 25.10 GiB of
# gradients over the step.
cat > full.py <<'PY'
import torch
from transformers import AutoModelForCausalLM
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf").cuda()
model.train()
opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
for step in range(10):
    ids = torch.randint(0, 32000, (4, 2048), device="cuda")
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    opt.step()
    opt.zero_grad()
PY
wrapped() {   # wrapped IMPORT WRAP: the MLP (batch 64) under a data-parallel wrapper
    cat <<PY
import torch
import torch.nn as nn
$1
model = nn.Sequential(nn.Linear(4096, 4096), nn.ReLU(), nn.Linear(4096, 10)).cuda()
model = $2(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
x = torch.randn(64, 4096, device="cuda")
y = torch.randint(0, 10, (64,), device="cuda")
nn.functional.cross_entropy(model(x), y).backward()
opt.step()
PY
}
wrapped "from torch.nn.parallel import DistributedDataParallel as DDP" DDP > ddp.py
wrapped "from torch.distributed.fsdp import FullyShardedDataParallel as FSDP" FSDP > fsdp.py
cat > qlora.py <<'PY'
import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig
from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training
bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_use_double_quant=True, bnb_4bit_compute_dtype=torch.bfloat16)
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", quantization_config=bnb,
                                             attn_implementation="eager")
model = prepare_model_for_kbit_training(model)
model = get_peft_model(model, LoraConfig(r=32, lora_dropout=0.05, target_modules=["q_proj", "k_proj", "v_proj", "o_proj"]))
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=2e-4)
ids = torch.randint(0, 32000, (2, 512), device="cuda")
model(input_ids=ids, labels=ids).loss.backward()
opt.step()
PY
cat > vision.py <<'PY'
import torch
import torchvision
model = torchvision.models.resnet18(num_classes=100).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
x = torch.randn(32, 3, 160, 160, device="cuda")
y = torch.randint(0, 100, (32,), device="cuda")
torch.nn.functional.cross_entropy(model(x), y).backward()
opt.step()
PY

echo "--- 1. fits: the verdict, the GPU, the projected peak and its share on the first line"
"$PFC" estimate mlp.py --batch 8192 --gpu h100 > fits.txt; echo "status $?"
head -n 1 fits.txt
echo "--- 2. does not fit: the full fine-tune on an A10G, the whole report"
"$PFC" estimate full.py --gpu a10g; echo "status $?"
echo "--- 3. borderline: the range crosses the usable capacity (exit 0: the projection fits)"
"$PFC" estimate mlp.py --gpu a10g > border.txt; echo "status $?"
head -n 1 border.txt
grep -E "^  range|^  projected peak" border.txt
"$PFC" estimate mlp.py --gpu a10g --json | grep -E '"(fits|verdict)"'
echo "--- 4. no GPU: the first line says the projected peak and its range"
"$PFC" estimate mlp.py | head -n 1; echo "status $?"
"$PFC" estimate mlp.py --json | grep -E '"(target|fits|verdict)"'
echo "--- 5. a full fine-tune: gradients 0 at the peak, their total over the step"
"$PFC" estimate full.py | grep -E "at the peak|^  (weights|gradients|optimizer state) "
"$PFC" estimate full.py --json | grep -E '"components"'
echo "--- 6. DDP replicates (no world size needed), FSDP shards over the ranks"
"$PFC" estimate ddp.py > ddp.txt
grep -E "^Config|assumed" ddp.txt
echo "lines that call DDP sharding: $(grep -ci shard ddp.txt)"
"$PFC" estimate ddp.py --world-size 8 | grep -E "^Config|^Projected"
"$PFC" estimate fsdp.py | grep -E "^Config|assumed"
"$PFC" estimate fsdp.py --world-size 8 | grep -E "^Config|^Projected"
"$PFC" estimate fsdp.py --world-size 8 --json | grep -E '"inputs"'
echo "--- 7. --json carries the inputs it read, pfc's version, the script and the verdict"
"$PFC" estimate qlora.py --gpu l4 --json > qlora.json; echo "status $?"
"$PFC" estimate vision.py --gpu l4 --json > vision.json; echo "status $?"
python3 - <<'PY'
import json
for name in ("qlora", "vision"):
    j = json.load(open(name + ".json"))
    print(name, "pfc_version", j["pfc_version"], "script", j["script"], "verdict", j["verdict"], "error", j["error"])
    print(name, "inputs", json.dumps(j["inputs"], sort_keys=True))
PY
"$PFC" estimate vision.py | sed -n 3p
echo "--- 8. every failure: a JSON error object (code, message, path, line), numbers null, non-zero exit"
printf 'import torch\nmodel = torch.nn.Linear(2, 2)\n' > nothing.py
printf 'import torch\ndef f(:\n    pass\n' > syntax.py
cat > huge.py <<'PY'
import torch
import torch.nn as nn
model = nn.Linear(8, 8).cuda()
x = torch.randn(4, 8, device="cuda")
y = model(x).view(2**62, 2**62)
y.sum().backward()
PY
printf 'from transformers import AutoModel\nm = AutoModel.from_pretrained("no/such-model")\nm(input_ids=None).loss.backward()\n' > unknown.py
mkdir dir.py
fails() {   # fails NAME ARGS...: the JSON's error, exit status, and the text mode's stderr
    local name=$1; shift
    "$PFC" estimate "$@" --json > "$name.json" 2> "$name.err"; local status=$?
    python3 - "$name" "$status" <<'PY'
import json, sys
name, status = sys.argv[1], sys.argv[2]
j = json.load(open(name + ".json"))
e = j["error"]
nulls = all(j[k] is None for k in ("projected_peak_bytes", "allocated_peak_bytes", "params_total", "inputs"))
print("%s: exit %s, code %s, path %s, line %s, numbers null %s, stderr %d bytes\n  message: %s"
      % (name, status, e["code"], e["path"], e["line"], nulls, len(open(name + ".err").read()), e["message"]))
PY
    "$PFC" estimate "$@" > /dev/null 2> "$name.err"; echo "  text: exit $?, $(head -n 1 "$name.err")"
}
fails bad-option mlp.py --frob
fails bad-value mlp.py --batch zero
fails bad-precision mlp.py --precision fp8
fails no-value mlp.py --gpu
fails no-value-before-json mlp.py --seq
fails no-script
fails two-scripts mlp.py full.py
fails unknown-gpu mlp.py --gpu a100-80g
fails missing missing.py
fails directory dir.py
fails syntax syntax.py
fails nothing nothing.py
fails too-large huge.py
fails not-in-snapshot unknown.py
