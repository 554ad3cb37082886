# evaluate(model) calls model.eval() and the epoch loop never calls model.train() afterwards (TG006 at the eval() in the helper).
import torch
import torch.nn as nn
import torch.nn.functional as F


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    return sum(F.cross_entropy(model(x), y).item() for x, y in loader) / len(loader)


model = nn.Sequential(nn.Linear(20, 50), nn.BatchNorm1d(50), nn.ReLU(), nn.Linear(50, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
train_data, val_data = torch.load("train.pt"), torch.load("val.pt")
for epoch in range(10):
    for x, y in train_data:
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
    print(epoch, evaluate(model, val_data))
