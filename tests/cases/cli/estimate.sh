# pfc estimate: a Hugging Face model by name, LoRA, an in-file model, the
# verdict against a GPU with the changes that would make it fit, --json's
# fields, overrides, and scripts it cannot read (exit 1, with the reason).
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat > full.py <<'PY'
import torch
from transformers import AutoModelForCausalLM
NAME = "meta-llama/Llama-2-7b-hf"
model = AutoModelForCausalLM.from_pretrained(NAME).cuda()
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
cat > lora.py <<'PY'
import torch
from transformers import AutoModelForCausalLM
from peft import LoraConfig, get_peft_model
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.bfloat16)
model.gradient_checkpointing_enable()
model = get_peft_model(model, LoraConfig(r=16, target_modules=["q_proj", "v_proj"]))
model.cuda().train()
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=2e-4)
ids = torch.randint(0, 32000, (4, 1024), device="cuda")
out = model(input_ids=ids, labels=ids)
out.loss.backward()
opt.step()
PY
cat > own.py <<'PY'
import torch
import torch.nn as nn
class Net(nn.Module):
    def __init__(self, width=4096):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(1024, width), nn.ReLU(), nn.Linear(width, 10))
    def forward(self, x):
        return self.body(x)
model = Net().cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for _ in range(3):
    x = torch.randn(4096, 1024, device="cuda")
    y = torch.randint(0, 10, (4096,), device="cuda")
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
PY
printf 'import torch\nmodel = torch.nn.Linear(2, 2)\n' > nothing.py
printf 'from transformers import AutoModel\nm = AutoModel.from_pretrained("no/such-model")\nm(input_ids=None).loss.backward()\n' > unknown.py
echo "--- full fine-tune, text, against an A100 80GB"
"$PFC" estimate full.py --gpu a100-80gb; echo "status $?"
echo "--- fits on an H200? and the fitting case lists no changes"
"$PFC" estimate lora.py --gpu h200 > lora.txt; echo "status $?"; head -n 1 lora.txt; grep -c "What would" lora.txt
echo "--- the same, --json"
"$PFC" estimate full.py --gpu a100-80gb --json | grep -E '"(allocated_peak_bytes|params_total|params_trainable|fits|error)"|"weights"'
echo "--- LoRA"
"$PFC" estimate lora.py --json | grep -E '"(params_trainable|allocated_peak_bytes|peak_phase)"'
echo "--- model defined in the file, --batch override"
"$PFC" estimate own.py | head -n 3
"$PFC" estimate own.py --batch 1024 --json | grep -E '"(batch|allocated_peak_bytes)"'
echo "--- cannot read"
"$PFC" estimate nothing.py; echo "status $?"
"$PFC" estimate unknown.py --json > unknown.json; echo "status $?"; grep '"error"' unknown.json
"$PFC" estimate own.py --gpu no-such-gpu; echo "status $?"
"$PFC" estimate own.py --batch zero; echo "status $?"
