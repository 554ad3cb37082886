# model.zero_grad() resets the same parameters the optimizer holds (not a finding).
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Sequential(nn.Linear(50, 50), nn.ReLU(), nn.Linear(50, 5))
opt = torch.optim.Adam(model.parameters())
data = [(torch.randn(16, 50), torch.randint(0, 5, (16,))) for _ in range(40)]

for x, y in data:
    model.zero_grad()
    F.cross_entropy(model(x), y).backward()
    opt.step()
