# `hasattr(model, "eval")` and `callable(optimizer.step)` checks are not bare attribute statements (not a finding).
import torch
import torch.nn as nn

model = nn.Linear(4, 4)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

if hasattr(model, "eval") and callable(optimizer.step):
    model.eval()
    optimizer.zero_grad()
print(model.training)
