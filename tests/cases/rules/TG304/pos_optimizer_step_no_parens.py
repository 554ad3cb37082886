# `optimizer.step` without parentheses: the weights never change (TG304).
import torch
import torch.nn as nn

net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)


def train_step(x, y):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(net(x), y)
    loss.backward()
    optimizer.step
    return loss.item()


train_step(torch.randn(8, 4), torch.randn(8, 1))
