# `optimizer.zero_grad` and `model.train` passed as callbacks, not bare statements (not a finding).
import torch
import torch.nn as nn


def run_hooks(hooks):
    for hook in hooks:
        hook()


model = nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(5):
    run_hooks([optimizer.zero_grad, model.train])
    model(torch.randn(4, 3)).sum().backward()
    optimizer.step()
