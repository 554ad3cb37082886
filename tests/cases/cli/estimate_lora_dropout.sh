# LoraConfig's lora_dropout as PEFT uses it: nn.Dropout(p) for p > 0, an
# Identity otherwise (a negative p is no dropout, not a negative number in
# the report), and nn.Dropout raises for p > 1: a refusal naming the line.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
lora() {
    cat <<PY
import torch
from transformers import AutoModelForCausalLM
from peft import LoraConfig, get_peft_model
model = AutoModelForCausalLM.from_pretrained("gpt2").cuda()
config = LoraConfig(r=8, target_modules=["c_attn"], lora_dropout=$1)
model = get_peft_model(model, config)
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=2e-4)
x = torch.randint(0, 50257, (4, 128), device="cuda")
loss = model(input_ids=x, labels=x).loss
loss.backward()
opt.step()
PY
}
for p in 0.05 "-(2**40)" 3.5; do
    lora "$p" > s.py
    echo "--- lora_dropout=$p"
    "$PFC" estimate s.py --json > out.json
    echo "exit $?"
    python3 -c "import json
j = json.load(open('out.json'))
e = j['error']
print('dropout', (j.get('inputs') or {}).get('lora', {}).get('dropout') if not e else None)
print('error', e['message'] if e else None, 'line', e['line'] if e else None)"
done
