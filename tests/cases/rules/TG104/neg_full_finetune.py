# A full fine-tune: no adapters, nothing frozen, checkpointing is fine.
import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("gpt2-large")
model.gradient_checkpointing_enable()
opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
for batch in loader:
    model(**batch).loss.backward()
    opt.step()
    opt.zero_grad()
