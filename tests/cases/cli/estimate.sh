# pfc estimate (first part): exact components of a known model; LoRA; the
# Trainer's default optimizer; a script it cannot read says why (exit 1).
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat > full.py <<'PY'
import torch
from transformers import AutoModelForCausalLM
NAME = "gpt2"
model = AutoModelForCausalLM.from_pretrained(NAME)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
PY
cat > lora.py <<'PY'
import torch
from transformers import AutoModelForCausalLM
from peft import LoraConfig, get_peft_model
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.bfloat16)
model = get_peft_model(model, LoraConfig(r=16, target_modules=["q_proj", "v_proj"]))
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=2e-4)
PY
cat > sgd.py <<'PY'
import torch
from transformers import AutoModelForCausalLM
model = AutoModelForCausalLM.from_pretrained("gpt2-medium").half()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
PY
printf 'import torch\nmodel = torch.nn.Linear(2, 2)\n' > own.py
for f in full.py lora.py sgd.py; do
    echo "--- $f"
    "$PFC" estimate --json "$f" | grep -E '"params_|"breakdown|"error|"model'
done
echo "--- text"
"$PFC" estimate full.py
echo "--- own model"
"$PFC" estimate --json own.py | grep '"error"'; echo "status $?"
"$PFC" estimate own.py; echo "status $?"
