# A subclass of nn.Linear is a module: the evaluation loop over it runs with
# autograd recording.
import torch
import torch.nn as nn


class ScaledHead(nn.Linear):
    def forward(self, x):
        return super().forward(x) * 0.5


head = ScaledHead(256, 10)


def evaluate(loader):
    head.eval()
    total = 0.0
    for feats, y in loader:
        total += (head(feats).argmax(-1) == y).float().mean().item()
    return total
