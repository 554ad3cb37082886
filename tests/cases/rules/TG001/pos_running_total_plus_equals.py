# `running_loss += loss` (a tensor, not .item()) across training steps keeps each step's graph nodes (TG001 warning).
import torch
from torch import nn

model = nn.Linear(16, 1)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
xs, ys = torch.randn(512, 16), torch.randn(512, 1)

for epoch in range(10):
    running_loss = 0.0
    for i in range(0, 512, 32):
        optimizer.zero_grad()
        loss = criterion(model(xs[i:i + 32]), ys[i:i + 32])
        loss.backward()
        optimizer.step()
        running_loss += loss
    print(epoch, running_loss / 16)
