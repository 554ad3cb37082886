# An nn.Parameter used only for masked batches.
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


class Embed(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.mask_token = nn.Parameter(torch.zeros(dim))

    def forward(self, ids, mask=None):
        h = self.tok(ids)
        if mask is not None:
            h = torch.where(mask.unsqueeze(-1), self.mask_token, h)
        return h


model = DDP(Embed(1000, 64).cuda(), device_ids=[0])
