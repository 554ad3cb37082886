# `timer.step` is a property on an unrelated helper object, not an optimizer (not a finding).
import time

import torch
import torch.nn as nn


class StepTimer:
    def __init__(self):
        self._t = time.perf_counter()

    @property
    def step(self):
        now = time.perf_counter()
        self._t, dt = now, now - self._t
        print(f"step took {dt:.3f}s")
        return dt


timer = StepTimer()
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for i in range(10):
    opt.zero_grad()
    model(torch.randn(2, 4)).sum().backward()
    opt.step()
    timer.step
