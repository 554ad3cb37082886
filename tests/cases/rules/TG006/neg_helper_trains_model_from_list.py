# k-fold: the model of each fold comes out of a list; validate() puts it in
# eval mode and train_epoch() puts it back in train mode before its own
# backward(). Not a finding: the helper switches back first.
import torch
import torch.nn as nn
import torch.nn.functional as F


def train_epoch(model, loader, opt):
    model.train()
    for x, y in loader:
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()


def validate(model, loader):
    model.eval()
    with torch.no_grad():
        return sum(F.cross_entropy(model(x), y).item() for x, y in loader)


models = [nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5), nn.Linear(8, 2)) for _ in range(5)]
opts = [torch.optim.SGD(m.parameters(), lr=0.1) for m in models]
for epoch in range(10):
    for fold in range(5):
        model, opt = models[fold], opts[fold]
        train_epoch(model, train_loaders[fold], opt)
        print(validate(model, val_loaders[fold]))
