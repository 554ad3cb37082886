# The loop calls evaluate(model) (which calls eval()) and then model.train() right after (not a finding).
import torch
import torch.nn as nn
import torch.nn.functional as F


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    return sum((model(x).argmax(1) == y).sum().item() for x, y in loader)


net = nn.Sequential(nn.Linear(30, 30), nn.Dropout(0.25), nn.Linear(30, 5))
optimizer = torch.optim.Adam(net.parameters())
for epoch in range(10):
    for x, y in torch.load("train.pt"):
        optimizer.zero_grad()
        F.cross_entropy(net(x), y).backward()
        optimizer.step()
    print(evaluate(net, torch.load("val.pt")))
    net.train()
