# The rate comes from the config, the mode from nowhere.
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.p = cfg.dropout
        self.proj = nn.Linear(cfg.dim, cfg.dim)

    def forward(self, h):
        return self.proj(F.dropout(h, p=self.p))
