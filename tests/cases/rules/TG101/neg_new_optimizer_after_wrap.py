# Stage one trains the full model; stage two wraps it and builds a new
# optimizer. The old optimizer is not used after the wrap.
import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("gpt2")
opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
for batch in warmup_loader:
    model(**batch).loss.backward()
    opt.step()
    opt.zero_grad()
model = get_peft_model(model, LoraConfig(r=8))
opt = torch.optim.AdamW(model.parameters(), lr=2e-4)
for batch in loader:
    model(**batch).loss.backward()
    opt.step()
    opt.zero_grad()
