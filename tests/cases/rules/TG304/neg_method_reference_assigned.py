# `step_fn = optimizer.step` stores the bound method for later; it is not an expression statement (not a finding).
import torch
import torch.nn as nn

model = nn.Linear(5, 1)
optimizer = torch.optim.Adam(model.parameters())
step_fn = optimizer.step
reset_fn = optimizer.zero_grad

for _ in range(20):
    reset_fn()
    nn.functional.mse_loss(model(torch.randn(8, 5)), torch.randn(8, 1)).backward()
    step_fn()
