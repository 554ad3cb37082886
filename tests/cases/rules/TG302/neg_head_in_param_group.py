# The head is created separately and is in its own parameter group.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 64, 3, padding=1)

    def forward(self, x):
        return F.adaptive_avg_pool2d(F.relu(self.conv(x)), 1).flatten(1)


backbone = Backbone()
head = nn.Linear(64, 100)
optimizer = torch.optim.SGD([
    {"params": backbone.parameters()},
    {"params": head.parameters(), "lr": 0.5},
], lr=0.1)
for images, labels in loader:
    loss = F.cross_entropy(head(backbone(images)), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
