# HF-style model output: out.loss is the model's graph; detached copies only
# go to the logger.
import torch

for step, batch in enumerate(loader):
    out = model(**batch)
    loss = out.loss / accum
    log_loss = loss.detach().float()
    loss.backward()
    if (step + 1) % accum == 0:
        opt.step()
        opt.zero_grad()
    print(log_loss.item())
