# `model.zero_grad` without parentheses (TG304).
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(6, 6), nn.Tanh(), nn.Linear(6, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)


def train_step(x, y):
    model.zero_grad
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()


train_step(torch.randn(16, 6), torch.randn(16, 1))
