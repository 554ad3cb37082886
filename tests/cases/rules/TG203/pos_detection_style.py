# Detection-style training: big images, batch of 2, BatchNorm3d backbone.
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader


class Backbone3d(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv3d(1, 16, 3)
        self.bn = nn.BatchNorm3d(16)

    def forward(self, x):
        return self.bn(self.stem(x))


def build(rank):
    model = DDP(Backbone3d().cuda(rank), device_ids=[rank])
    loader = DataLoader(scans, batch_size=2, num_workers=8, pin_memory=True)
    return model, loader
