# Model code in the style of a vision model zoo: forward_features,
# forward_intermediates and forward_head loop over blocks and never call
# backward(). They run under whoever calls the model (not a finding, no fix).
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.mlp = nn.Linear(dim, dim)

    def forward(self, x):
        return x + self.mlp(self.norm(x))


class Tower(nn.Module):
    def __init__(self, dim=64, depth=4, classes=10):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward_intermediates(self, x, indices=(1, 3)):
        feats = []
        for i, blk in enumerate(self.blocks):
            x = blk(x)
            if i in indices:
                feats.append(self.norm(x))
        return x, feats

    def forward_features(self, x):
        for blk in self.blocks:
            x = blk(x)
        return x

    def pool(self, x):
        return x.mean(dim=1)

    def forward_head(self, x):
        return self.head(self.pool(x))

    def forward(self, x):
        return self.forward_head(self.forward_features(x))
