# A helper that steps once, outside any loop (a single fine-tuning step
# after loading): no gradients can pile up.
import torch
import torch.nn as nn
import torch.nn.functional as F


def one_step(model, opt, x, y):
    F.cross_entropy(model(x), y).backward()
    opt.step()


model = nn.Linear(10, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
one_step(model, opt, x0, y0)
