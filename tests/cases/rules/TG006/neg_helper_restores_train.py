# evaluate(model) switches to eval() and restores model.train() before returning (not a finding).
import torch
import torch.nn as nn
import torch.nn.functional as F


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    loss = sum(F.cross_entropy(model(x), y).item() for x, y in loader) / len(loader)
    model.train()
    return loss


model = nn.Sequential(nn.Linear(20, 50), nn.BatchNorm1d(50), nn.ReLU(), nn.Linear(50, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(10):
    for x, y in torch.load("train.pt"):
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
    print(epoch, evaluate(model, torch.load("val.pt")))
