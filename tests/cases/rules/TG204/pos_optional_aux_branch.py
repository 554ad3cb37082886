# The auxiliary branch runs only when the caller asks for it; under DDP
# without find_unused_parameters a step without it breaks the reducer.
import torch
import torch.nn as nn
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(64, 64)
        self.aux = nn.Linear(64, 64)
        self.head = nn.Linear(64, 10)

    def forward(self, x, use_aux=False):
        h = torch.relu(self.body(x))
        if use_aux:
            h = h + self.aux(h)
        return self.head(h)


dist.init_process_group("nccl")
model = DDP(Net().cuda(), device_ids=[0])
