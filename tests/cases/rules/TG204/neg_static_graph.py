# static_graph=True: DDP learns the set of used parameters and copes with the
# skipped branch (from torch's own DDP tests).
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP


class ControlFlow(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin1 = nn.Linear(10, 10, bias=False)
        self.lin2 = nn.Linear(10, 10, bias=False)

    def forward(self, x):
        if torch.equal(x, torch.ones_like(x)):
            return self.lin2(F.relu(self.lin1(x)))
        return F.relu(self.lin1(x))


model = DDP(ControlFlow().cuda(0), device_ids=[0], static_graph=True)
