# A deque of recent losses (no .item()) keeps attached scalars across steps (TG001 warning).
from collections import deque

import torch
import torch.nn as nn

model = nn.Linear(8, 1)
opt = torch.optim.Adam(model.parameters())
loss_fn = nn.SmoothL1Loss()
window = deque(maxlen=100)

for step in range(1000):
    x, y = torch.randn(16, 8), torch.randn(16, 1)
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    window.append(loss)
    if step % 100 == 0:
        print(step, torch.stack(list(window)).mean().item())
