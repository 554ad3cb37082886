# Attention dropout in a method forward calls: also model code.
import math
import torch
import torch.nn as nn
import torch.nn.functional as F


class SelfAttention(nn.Module):
    def __init__(self, dim, attn_drop=0.1):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.attn_drop = attn_drop

    def _attend(self, q, k, v):
        w = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.size(-1)), dim=-1)
        w = F.dropout(w, self.attn_drop, inplace=False)
        return w @ v

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self._attend(q, k, v)
