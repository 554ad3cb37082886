# forward applies softmax only when `not self.training`: training sees logits (path-sensitive, not a finding).
import torch
import torch.nn as nn
import torch.nn.functional as F


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(100, 64), nn.ReLU(), nn.Linear(64, 4))

    def forward(self, x):
        logits = self.body(x)
        if not self.training:
            return F.softmax(logits, dim=-1)
        return logits


model = Classifier()
opt = torch.optim.Adam(model.parameters())
for x, y in torch.load("train.pt"):
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
