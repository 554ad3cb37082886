# A stochastic branch decided by a random draw.
import random
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


class Block(nn.Module):
    def __init__(self, dim, p):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.ff = nn.Linear(dim, dim)
        self.p = p

    def forward(self, x):
        x = self.norm(x)
        if random.random() > self.p:
            x = x + self.ff(x)
        return x


model = DDP(Block(128, 0.1).cuda(), device_ids=[0])
