# A helper that calls opt.zero_grad() is called in every iteration (not a finding).
import torch
import torch.nn as nn


def reset_grads(opt):
    opt.zero_grad(set_to_none=True)


model = nn.Linear(12, 3)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(500):
    x, y = torch.randn(32, 12), torch.randint(0, 3, (32,))
    reset_grads(optimizer)
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
