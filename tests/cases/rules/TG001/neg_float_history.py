# `history.append(float(loss))` stores a Python float (not a finding).
import torch
import torch.nn as nn

model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
history = []

for epoch in range(50):
    x = torch.randn(32, 4)
    y = x.sum(dim=1, keepdim=True)
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    history.append(float(loss))
