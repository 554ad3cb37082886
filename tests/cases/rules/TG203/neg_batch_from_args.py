# The batch size comes from the command line: pfc cannot tell.
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


def main(args):
    model = DDP(ConvNet().cuda(), device_ids=[args.gpu])
    loader = DataLoader(ds, batch_size=args.batch_size, num_workers=4)
    return model, loader
