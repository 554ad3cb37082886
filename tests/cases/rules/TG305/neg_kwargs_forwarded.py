# The arguments come from a dict: training may be in it; pfc cannot tell.
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, dim, **drop_kw):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.drop_kw = drop_kw

    def forward(self, x):
        return self.fc(F.dropout(x, **self.drop_kw))
