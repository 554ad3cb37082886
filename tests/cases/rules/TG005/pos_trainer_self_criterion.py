# A trainer's self.criterion = nn.CrossEntropyLoss() receives softmax probabilities (TG005).
import torch
import torch.nn as nn
import torch.nn.functional as F


class Trainer:
    def __init__(self):
        self.model = nn.Sequential(nn.Linear(12, 24), nn.ReLU(), nn.Linear(24, 6))
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.Adam(self.model.parameters())

    def step(self, x, y):
        self.optimizer.zero_grad()
        probs = F.softmax(self.model(x), dim=1)
        loss = self.criterion(probs, y)
        loss.backward()
        self.optimizer.step()


Trainer().step(torch.randn(4, 12), torch.randint(0, 6, (4,)))
