# Accelerate: the value handed to accelerator.backward() was rebuilt from a float.
import torch
from accelerate import Accelerator

accelerator = Accelerator()
model, opt, loader = accelerator.prepare(model, opt, loader)
for batch in loader:
    loss = model(**batch).loss
    scaled = torch.tensor(loss.item() * 0.5, requires_grad=True)
    accelerator.backward(scaled)
    opt.step()
    opt.zero_grad()
