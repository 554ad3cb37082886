# Trainer method writes `self.optimizer.zero_grad` without the call (TG304).
import torch
import torch.nn as nn


class Trainer:
    def __init__(self):
        self.model = nn.Linear(32, 4)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-3)

    def training_step(self, x, y):
        self.optimizer.zero_grad
        loss = nn.functional.cross_entropy(self.model(x), y)
        loss.backward()
        self.optimizer.step()
        return loss.detach()


Trainer().training_step(torch.randn(2, 32), torch.randint(0, 4, (2,)))
