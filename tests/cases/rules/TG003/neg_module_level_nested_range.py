# Nested module-level `range` loops are counters, not data loops: the inner
# loop accumulates losses that do reach backward() (not a finding).
import torch
import torch.nn as nn

model = nn.Linear(8, 1).cuda()
opt = torch.optim.Adam(model.parameters())

for step in range(100):
    losses = []
    for micro in range(4):
        x = torch.randn(32, 8, device="cuda")
        losses.append(model(x).square().mean())
    loss = sum(losses) / len(losses)
    opt.zero_grad()
    loss.backward()
    opt.step()
