# BatchNorm1d in an MLP head, four samples per GPU.
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(512, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Linear(256, 10))

    def forward(self, x):
        return self.net(x)


class Trainer:
    def __init__(self, rank):
        self.model = DDP(Head().to(rank), device_ids=[rank])
        self.loader = DataLoader(train_ds, batch_size=4, drop_last=True)
