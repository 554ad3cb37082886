# Submodules used inside a loop over the layers: run whenever the loop runs.
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


class Stack(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(8, 8) for _ in range(n)])
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        for i in range(len(self.layers)):
            x = self.proj(self.layers[i](x))
        return x


model = DDP(Stack(4).cuda(), device_ids=[0])
