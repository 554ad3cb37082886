# evaluate(model, loader) runs the model with autograd recording; only .item() values are kept (TG003 warning).
import torch
import torch.nn as nn


def evaluate(model, loader):
    correct = 0
    total = 0
    for x, y in loader:
        logits = model(x)
        correct += (logits.argmax(1) == y).sum().item()
        total += y.numel()
    return correct / total


net = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 3))
print(evaluate(net, torch.load("val.pt")))
