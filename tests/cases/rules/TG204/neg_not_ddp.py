# Single-GPU training: skipping a branch is harmless.
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(64, 64)
        self.aux = nn.Linear(64, 64)

    def forward(self, x, use_aux=False):
        h = torch.relu(self.body(x))
        if use_aux:
            h = h + self.aux(h)
        return h


model = Net().cuda()
