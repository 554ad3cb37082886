# EMA of weights kept across steps is updated under no_grad inside a helper: nothing attached is stored (not a finding).
import copy

import torch
import torch.nn as nn


@torch.no_grad()
def ema_update(ema_model, model, decay=0.999):
    for e, p in zip(ema_model.parameters(), model.parameters()):
        e.mul_(decay).add_(p, alpha=1 - decay)


model = nn.Linear(64, 64)
ema = copy.deepcopy(model)
opt = torch.optim.Adam(model.parameters())
snapshots = []
for step in range(1000):
    opt.zero_grad()
    model(torch.randn(8, 64)).pow(2).mean().backward()
    opt.step()
    ema_update(ema, model)
    if step % 100 == 0:
        snapshots.append({k: v.clone() for k, v in ema.state_dict().items()})
