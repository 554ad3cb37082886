# A functional helper that takes the mode from its caller's self.training.
import torch
import torch.nn as nn
import torch.nn.functional as F


def ffn(x, w, p, training):
    return F.dropout(torch.relu(x @ w), p, training=training)


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.w = nn.Parameter(torch.randn(dim, dim) * 0.02)

    def forward(self, x):
        return x + ffn(x, self.w, 0.1, self.training)
