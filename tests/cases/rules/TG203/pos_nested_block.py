# The BatchNorm sits in a block class the model builds.
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, padding=1)
        self.norm = nn.BatchNorm2d(c)

    def forward(self, x):
        return self.norm(self.conv(x)).relu()


class UNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.down = Block(64)
        self.up = Block(64)

    def forward(self, x):
        return self.up(self.down(x))


model = DistributedDataParallel(UNet().cuda(), device_ids=[0])
loader = DataLoader(volumes, batch_size=1, num_workers=4)
