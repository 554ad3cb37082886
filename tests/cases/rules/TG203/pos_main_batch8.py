# In a main() with a literal batch of 8.
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


def main(rank):
    dist.init_process_group("nccl")
    net = ConvNet().to(rank)
    net = DDP(net, device_ids=[rank])
    loader = DataLoader(ds, batch_size=8, shuffle=True, num_workers=2)
    return net, loader
