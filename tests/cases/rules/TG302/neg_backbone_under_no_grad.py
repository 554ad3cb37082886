# forward runs the backbone under no_grad: it gets no gradients, so leaving it
# out of the optimizer is correct.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Probe(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Linear(512, 512)
        self.head = nn.Linear(512, 10)

    def forward(self, x):
        with torch.no_grad():
            feats = self.backbone(x)
        return self.head(feats)


model = Probe()
opt = torch.optim.Adam(model.head.parameters(), lr=1e-3)
for x, y in loader:
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
