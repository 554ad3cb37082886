# Trainer.validate(self) calls self.model in a loop without no_grad (TG003 in a validate* method).
import torch
import torch.nn as nn
import torch.nn.functional as F


class Trainer:
    def __init__(self, val_loader):
        self.model = nn.Sequential(nn.Linear(20, 20), nn.ReLU(), nn.Linear(20, 4))
        self.val_loader = val_loader

    def validate(self):
        self.model.eval()
        losses = []
        for x, y in self.val_loader:
            logits = self.model(x)
            losses.append(F.cross_entropy(logits, y).item())
        self.model.train()
        return sum(losses) / len(losses)


print(Trainer(torch.load("val.pt")).validate())
