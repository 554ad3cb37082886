# `losses.append(loss.detach())`: the stored value is detached (not a finding).
import torch
from torch import nn

model = nn.Linear(16, 1)
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters())

losses = []
for step in range(200):
    x, y = torch.randn(64, 16), torch.randn(64, 1)
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    losses.append(loss.detach())

print(torch.stack(losses).mean())
