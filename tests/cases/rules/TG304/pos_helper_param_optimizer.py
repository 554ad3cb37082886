# A helper receives the optimizer as a parameter and writes `opt.zero_grad` without the call (TG304).
import torch
import torch.nn as nn


def train_one_epoch(model, loader, opt):
    for x, y in loader:
        opt.zero_grad
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()


net = nn.Linear(10, 2)
train_one_epoch(net, torch.load("train.pt"), torch.optim.SGD(net.parameters(), lr=0.1))
