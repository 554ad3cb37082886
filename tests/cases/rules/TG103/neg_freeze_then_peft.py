# The correct order: freeze the base, then add the adapters.
import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("gpt2")
model.requires_grad_(False)
model = get_peft_model(model, LoraConfig(r=8, target_modules=["c_attn"]))
optimizer = torch.optim.AdamW(filter(lambda p: p.requires_grad, model.parameters()), lr=2e-4)
for batch in loader:
    model(**batch).loss.backward()
    optimizer.step()
    optimizer.zero_grad()
