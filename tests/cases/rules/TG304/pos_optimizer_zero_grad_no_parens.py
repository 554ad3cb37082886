# `optimizer.zero_grad` without parentheses: the gradients are never reset (TG304).
import torch
import torch.nn as nn

model = nn.Linear(10, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
x, y = torch.randn(100, 10), torch.randn(100, 1)

for step in range(100):
    optimizer.zero_grad
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
