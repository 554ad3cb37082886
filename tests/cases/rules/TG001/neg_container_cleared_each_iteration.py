# The buffer is cleared every iteration, so nothing survives into the next one (not a finding).
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Linear(32, 4)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
step_outputs = []

for step in range(100):
    x, y = torch.randn(8, 32), torch.randint(0, 4, (8,))
    step_outputs.clear()
    for chunk_x, chunk_y in zip(x.split(4), y.split(4)):
        step_outputs.append(F.cross_entropy(model(chunk_x), chunk_y))
    opt.zero_grad()
    torch.stack(step_outputs).mean().backward()
    opt.step()
