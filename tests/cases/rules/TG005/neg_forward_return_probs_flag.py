# forward returns probabilities only when return_probs=True; training calls model(x), which returns logits (not a finding).
import torch
import torch.nn as nn
import torch.nn.functional as F


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(40, 64), nn.ReLU(), nn.Linear(64, 5))

    def forward(self, x, return_probs=False):
        logits = self.net(x)
        if return_probs:
            return F.softmax(logits, dim=-1)
        return logits


def train_step(model, opt, x, y):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()


clf = Classifier()
train_step(clf, torch.optim.Adam(clf.parameters()), torch.randn(8, 40), torch.randint(0, 5, (8,)))
