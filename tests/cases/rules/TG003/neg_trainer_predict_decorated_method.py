# A trainer's predict method decorated with @torch.no_grad() (not a finding).
import torch
import torch.nn as nn


class Trainer:
    def __init__(self):
        self.model = nn.Sequential(nn.Linear(12, 12), nn.ReLU(), nn.Linear(12, 3))

    @torch.no_grad()
    def predict(self, loader):
        self.model.eval()
        return [self.model(x).argmax(-1) for x in loader]


print(Trainer().predict(torch.load("test.pt")))
