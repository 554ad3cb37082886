# training given as the third positional argument.
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, dim, p):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.p = p

    def forward(self, h):
        return self.proj(F.dropout(h, self.p, self.training))
