# The list is re-created at the top of every iteration: its contents die with the iteration (not a finding).
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(10, 10), nn.ReLU(), nn.Linear(10, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

for step in range(500):
    parts = []
    for _ in range(4):
        x = torch.randn(16, 10)
        parts.append(model(x).pow(2).mean())
    loss = sum(parts) / len(parts)
    opt.zero_grad()
    loss.backward()
    opt.step()
