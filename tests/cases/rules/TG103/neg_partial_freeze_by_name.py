# Only the embeddings are frozen (the store is conditional on the name).
import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("gpt2")
for name, param in model.named_parameters():
    if "wte" in name or "wpe" in name:
        param.requires_grad = False
opt = torch.optim.AdamW(filter(lambda p: p.requires_grad, model.parameters()), lr=5e-5)
for batch in loader:
    model(**batch).loss.backward()
    opt.step()
    opt.zero_grad()
