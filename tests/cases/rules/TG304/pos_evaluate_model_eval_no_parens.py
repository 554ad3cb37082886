# An evaluate helper writes `model.eval` without the call (TG304).
import torch
import torch.nn as nn


@torch.no_grad()
def evaluate(model, loader):
    model.eval
    return sum((model(x).argmax(1) == y).sum().item() for x, y in loader)


net = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.2), nn.Linear(8, 2))
print(evaluate(net, torch.load("val.pt")))
