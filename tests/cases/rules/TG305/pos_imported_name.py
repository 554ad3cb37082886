# `from torch.nn.functional import dropout`: the same function by another name.
import torch.nn as nn
from torch.nn.functional import dropout


class Head(nn.Module):
    def __init__(self, dim, classes):
        super().__init__()
        self.fc = nn.Linear(dim, classes)

    def forward(self, feats):
        return self.fc(dropout(feats, 0.3))


model = Head(512, 100)
