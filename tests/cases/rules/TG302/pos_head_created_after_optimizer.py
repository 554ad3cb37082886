# The projection head is created after the optimizer and trained with the
# backbone, but no optimizer holds it.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 64, 3, padding=1)

    def forward(self, x):
        return F.adaptive_avg_pool2d(F.relu(self.conv(x)), 1).flatten(1)


backbone = Backbone().cuda()
optimizer = torch.optim.SGD(backbone.parameters(), lr=0.1, momentum=0.9)
head = nn.Linear(64, 100).cuda()
for epoch in range(10):
    for images, labels in loader:
        logits = head(backbone(images.cuda()))
        loss = F.cross_entropy(logits, labels.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
