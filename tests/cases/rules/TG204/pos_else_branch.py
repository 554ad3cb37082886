# Two heads, one per branch: each step leaves one of them without gradients.
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Linear(32, 32)
        self.cls_head = nn.Linear(32, 10)
        self.reg_head = nn.Linear(32, 1)

    def forward(self, x, task):
        h = self.trunk(x)
        if task == "cls":
            out = self.cls_head(h)
        else:
            out = self.reg_head(h)
        return out


class Trainer:
    def __init__(self, rank):
        self.model = DDP(TwoHeads().to(rank), device_ids=[rank])
