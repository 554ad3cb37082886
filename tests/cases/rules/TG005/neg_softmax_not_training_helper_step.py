# forward applies softmax only when `not self.training`; a train_step helper calls F.cross_entropy on model(x): training sees logits (not a finding).
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


def train_step(model, opt, x, y):
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()


m = Classifier()
train_step(m, torch.optim.Adam(m.parameters()), torch.randn(2, 100), torch.randint(0, 4, (2,)))
