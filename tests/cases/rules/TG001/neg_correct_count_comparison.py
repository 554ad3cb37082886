# `correct += (pred == y).sum()` accumulates a comparison result, which is never attached (not a finding).
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Sequential(nn.Linear(30, 30), nn.ReLU(), nn.Linear(30, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
data = torch.load("train.pt")

for epoch in range(3):
    correct, seen = 0, 0
    for x, y in data:
        optimizer.zero_grad()
        out = model(x)
        F.cross_entropy(out, y).backward()
        optimizer.step()
        correct += (out.argmax(1) == y).sum()
        seen += x.size(0)
    print(epoch, correct.item() / seen)
