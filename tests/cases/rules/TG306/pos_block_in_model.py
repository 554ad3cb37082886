# A library file: the top-level model may be used by importers, but Block is
# built only here, inside Transformer, and its third norm is never applied.
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.norm3 = nn.LayerNorm(dim)

    def forward(self, x):
        h = self.norm1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.norm2(x))


class Transformer(nn.Module):
    def __init__(self, dim, depth, heads):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim, heads) for _ in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
