# `total_loss += loss.item()` stores a Python float: nothing attached outlives the step (not a finding).
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Linear(128, 10)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [(torch.randn(32, 128), torch.randint(0, 10, (32,))) for _ in range(100)]

total_loss = 0.0
for x, y in data:
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    total_loss += loss.item()

print(total_loss / len(data))
