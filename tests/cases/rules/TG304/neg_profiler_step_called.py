# torch.profiler schedule: `prof.step()` is called; the bare `prof.step_num` is an unrelated attribute (not a finding).
import torch
import torch.nn as nn
from torch.profiler import profile, schedule

model = nn.Linear(64, 64)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
with profile(schedule=schedule(wait=1, warmup=1, active=3)) as prof:
    for _ in range(6):
        opt.zero_grad()
        model(torch.randn(8, 64)).pow(2).mean().backward()
        opt.step()
        prof.step()
        prof.step_num
