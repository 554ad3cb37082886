# The whole PEFT model is frozen after the adapters were added, adapters
# included; the optimizer then selects the parameters that require grad.
import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("gpt2")
model = get_peft_model(model, LoraConfig(r=8, target_modules=["c_attn"]))
model.requires_grad_(False)
optimizer = torch.optim.AdamW(filter(lambda p: p.requires_grad, model.parameters()), lr=2e-4)
for batch in loader:
    model(**batch).loss.backward()
    optimizer.step()
    optimizer.zero_grad()
