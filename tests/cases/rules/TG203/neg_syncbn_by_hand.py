# SyncBatchNorm built by hand in the model.
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 32, 3)
        self.bn = nn.SyncBatchNorm(32)

    def forward(self, x):
        return self.bn(self.conv(x))


model = DDP(Net().cuda(), device_ids=[0])
loader = DataLoader(ds, batch_size=2)
