# Keyed by the step number, the dict keeps every step's output tensor with
# its graph: it grows each iteration.
import torch
import torch.nn.functional as F

model = torch.nn.Linear(16, 16)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
history = {}
for step, (x, y) in enumerate(loader):
    out = model(x)
    loss = F.mse_loss(out, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    history[step] = out
