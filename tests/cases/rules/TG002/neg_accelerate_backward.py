# Accelerate: accelerator.backward(loss) with the user's own zero_grad() (not a finding).
import torch
from accelerate import Accelerator
from transformers import AutoModelForCausalLM

accelerator = Accelerator()
model = AutoModelForCausalLM.from_pretrained("gpt2")
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-5)
loader = torch.load("loader.pt")
model, optimizer, loader = accelerator.prepare(model, optimizer, loader)

for batch in loader:
    out = model(**batch)
    accelerator.backward(out.loss)
    optimizer.step()
    optimizer.zero_grad()
