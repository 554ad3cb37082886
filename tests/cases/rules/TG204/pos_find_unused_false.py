# find_unused_parameters=False is the default said out loud.
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel


class Router(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.small = nn.Linear(dim, dim)
        self.large = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        if x.size(1) > 128:
            return self.large(x)
        return self.small(x)


def wrap(rank):
    return DistributedDataParallel(Router(256).to(rank), device_ids=[rank],
                                   find_unused_parameters=False)
