# A library module: nothing in this file builds PatchModel, so its importers
# may read `self.cls_token` (a pipeline does); pfc cannot see them and says
# nothing.
import torch
import torch.nn as nn


class PatchModel(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.patch = nn.Conv2d(3, dim, 16, 16)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))

    def forward(self, x):
        return self.patch(x).flatten(2).transpose(1, 2)
