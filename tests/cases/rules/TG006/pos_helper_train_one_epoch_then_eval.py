# The epoch loop calls train_one_epoch (backward inside) then evaluate(model) (eval inside); train() is never called (TG006).
import torch
import torch.nn as nn
import torch.nn.functional as F


def train_one_epoch(model, loader, opt):
    for x, y in loader:
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()


def evaluate(model, loader):
    model.eval()
    with torch.no_grad():
        return sum((model(x).argmax(1) == y).sum().item() for x, y in loader)


net = nn.Sequential(nn.Linear(30, 30), nn.Dropout(0.25), nn.Linear(30, 5))
optimizer = torch.optim.Adam(net.parameters())
for epoch in range(10):
    train_one_epoch(net, torch.load("train.pt"), optimizer)
    print(evaluate(net, torch.load("val.pt")))
