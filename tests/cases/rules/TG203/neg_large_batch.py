# A large per-GPU batch: the local statistics are good enough.
import torch
import torch.nn as nn
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 32, 3)
        self.bn = nn.BatchNorm2d(32)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        return self.fc(torch.relu(self.bn(self.conv(x))).mean((2, 3)))


dist.init_process_group("nccl")
model = DDP(ConvNet().cuda(), device_ids=[0])
loader = DataLoader(ds, batch_size=64, num_workers=4)
