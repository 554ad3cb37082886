# evaluate() has no no_grad itself, but its only caller holds torch.no_grad() (not a finding).
import torch
import torch.nn as nn
import torch.nn.functional as F


def evaluate(model, x, y):
    return F.cross_entropy(model(x), y).item()


model = nn.Linear(8, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(100):
    x, y = torch.randn(16, 8), torch.randint(0, 2, (16,))
    opt.zero_grad()
    F.cross_entropy(model(x), y).backward()
    opt.step()
    with torch.no_grad():
        print(evaluate(model, torch.randn(64, 8), torch.randint(0, 2, (64,))))
