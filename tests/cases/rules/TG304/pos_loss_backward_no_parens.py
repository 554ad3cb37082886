# `loss.backward` without parentheses: no gradient is ever computed (TG304).
import torch
import torch.nn as nn
import torch.nn.functional as F


def train_step(model, opt, x, y):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward
    opt.step()
    return loss.item()


net = nn.Linear(8, 3)
train_step(net, torch.optim.SGD(net.parameters(), lr=0.1), torch.randn(4, 8), torch.randint(0, 3, (4,)))
