# evaluate() decorated with @torch.no_grad() (not a finding).
import torch
import torch.nn as nn
import torch.nn.functional as F


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    total = 0.0
    for x, y in loader:
        total += F.cross_entropy(model(x), y).item()
    return total / len(loader)


net = nn.Linear(50, 5)
print(evaluate(net, torch.load("val.pt")))
