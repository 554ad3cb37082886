# A scalar loss appended to a list after backward() keeps every step's graph nodes alive (TG001 warning).
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Linear(128, 10)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [(torch.randn(32, 128), torch.randint(0, 10, (32,))) for _ in range(100)]

losses = []
for x, y in data:
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    losses.append(loss)

print(sum(l.item() for l in losses) / len(losses))
