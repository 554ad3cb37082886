# Registered and used under the same config flag: present means used.
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


class Net(nn.Module):
    def __init__(self, use_pos):
        super().__init__()
        self.use_pos = use_pos
        self.body = nn.Linear(16, 16)
        if use_pos:
            self.pos = nn.Linear(16, 16)

    def forward(self, x):
        if self.use_pos:
            x = x + self.pos(x)
        return self.body(x)


model = DDP(Net(True).cuda(), device_ids=[0])
