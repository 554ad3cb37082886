# A linear probe: the backbone is frozen, only the head is optimised.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Probe(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 32, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        return self.head(self.backbone(x))


model = Probe()
model.backbone.requires_grad_(False)
opt = torch.optim.SGD(model.head.parameters(), lr=0.1)
for x, y in loader:
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
