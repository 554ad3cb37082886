# Gradient accumulation: the running loss is summed over the micro-batches of
# one optimizer step and set back to 0 after each step, so it holds one
# window's graph nodes at most, not every step's.
import torch
import torch.nn.functional as F

model = torch.nn.Linear(32, 32)
opt = torch.optim.AdamW(model.parameters())
running_loss = 0
for idx, (x, y) in enumerate(loader):
    loss = F.mse_loss(model(x), y)
    running_loss += loss
    loss.backward()
    if (idx + 1) % 8 == 0:
        opt.step()
        opt.zero_grad()
        print(running_loss.item() / 8)
        running_loss = 0
