# A per-call flag from the batch decides whether the text encoder runs.
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


class MultiModal(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.vision = nn.Linear(cfg.vdim, cfg.dim)
        self.text = nn.Embedding(cfg.vocab, cfg.dim)
        self.fuse = nn.Linear(cfg.dim, cfg.dim)

    def forward(self, image, tokens=None):
        h = self.vision(image)
        if tokens is not None:
            h = h + self.text(tokens).mean(1)
        return self.fuse(h)


def setup(cfg, rank):
    model = MultiModal(cfg).cuda(rank)
    return DDP(model, device_ids=[rank])
