# `from torch import nn, optim as O`: the aliased optimizer steps every batch, gradients never reset (TG002).
import torch
from torch import nn, optim as O

net = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
opt = O.RMSprop(net.parameters(), lr=1e-3)
loss_fn = nn.L1Loss()

for step in range(300):
    x = torch.randn(64, 8)
    y = x.mean(dim=1, keepdim=True)
    loss = loss_fn(net(x), y)
    loss.backward()
    opt.step()
