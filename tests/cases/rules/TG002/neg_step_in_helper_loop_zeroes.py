# The helper steps; the loop that calls it resets the gradients first.
import torch
import torch.nn as nn
import torch.nn.functional as F


def train_step(model, opt, x, y):
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss.item()


model = nn.Linear(10, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    opt.zero_grad()
    train_step(model, opt, x, y)
