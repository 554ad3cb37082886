# model.train() at the top of every epoch, eval() at the end: no backward runs in eval mode (not a finding).
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Sequential(nn.Linear(10, 40), nn.Dropout(0.1), nn.Linear(40, 2))
opt = torch.optim.Adam(model.parameters())

for epoch in range(5):
    model.train()
    for x, y in torch.load("train.pt"):
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        acc = sum((model(x).argmax(1) == y).float().mean().item() for x, y in torch.load("val.pt"))
    print(epoch, acc)
