# Every path uses every submodule.
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(8, 8)
        self.b = nn.Linear(8, 8)

    def forward(self, x, flip=False):
        if flip:
            x = -x
        return self.b(self.a(x))


model = DDP(Net().cuda(), device_ids=[0])
