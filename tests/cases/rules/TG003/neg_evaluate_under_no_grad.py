# evaluate() wraps its loop in torch.no_grad() (not a finding).
import torch
import torch.nn as nn


def evaluate(model, loader):
    model.eval()
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(1) == y).sum().item()
    model.train()
    return correct


net = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 3))
print(evaluate(net, torch.load("val.pt")))
