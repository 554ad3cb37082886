# The correct version: find_unused_parameters=True.
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(64, 64)
        self.aux = nn.Linear(64, 64)

    def forward(self, x, use_aux=False):
        h = torch.relu(self.body(x))
        if use_aux:
            h = h + self.aux(h)
        return h


model = DDP(Net().cuda(), device_ids=[0], find_unused_parameters=True)
