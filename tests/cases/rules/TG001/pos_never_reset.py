# The same accumulation without the reset: the running loss keeps every
# micro-batch's graph nodes for the whole run.
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
        print(running_loss.item() / (idx + 1))
