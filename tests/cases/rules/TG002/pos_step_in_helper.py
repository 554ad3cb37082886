# The optimizer steps inside a helper called once per batch; neither the
# helper nor the loop around the call ever resets the gradients.
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
for epoch in range(3):
    for x, y in loader:
        train_step(model, opt, x, y)
