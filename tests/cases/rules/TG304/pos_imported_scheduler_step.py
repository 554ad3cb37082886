# `from torch.optim.lr_scheduler import CosineAnnealingLR`; `sched.step` without parentheses (TG304).
import torch
from torch import nn
from torch.optim.lr_scheduler import CosineAnnealingLR

model = nn.Linear(3, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = CosineAnnealingLR(opt, T_max=100)


def train_step(x):
    opt.zero_grad()
    (model(x) - x).pow(2).mean().backward()
    opt.step()
    sched.step


train_step(torch.randn(4, 3))
