# Accelerate script: the auxiliary head was meant to add a second loss but
# forward never calls it; under DDP (accelerate launch) the first step fails.
import torch
import torch.nn as nn
from accelerate import Accelerator


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 32, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.head = nn.Linear(32, 10)
        self.aux_head = nn.Linear(32, 10)

    def forward(self, x):
        return self.head(self.backbone(x).flatten(1))


accelerator = Accelerator()
model = Net()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
for images, labels in loader:
    loss = nn.functional.cross_entropy(model(images), labels)
    accelerator.backward(loss)
    optimizer.step()
    optimizer.zero_grad()
