# A helper outside the class, called from forward: model code, and the helper
# has no self to read the mode from (reported without a fix).
import torch
import torch.nn as nn
from torch.nn import functional as F


def ffn(x, w1, w2, p):
    return F.dropout(torch.relu(x @ w1), p) @ w2


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.w1 = nn.Parameter(torch.randn(dim, 4 * dim) * 0.02)
        self.w2 = nn.Parameter(torch.randn(4 * dim, dim) * 0.02)

    def forward(self, x):
        return x + ffn(x, self.w1, self.w2, 0.1)
