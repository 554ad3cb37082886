# Trainer.fit calls self.model.eval() for validation inside the epoch loop and never switches back (TG006).
import torch
import torch.nn as nn
import torch.nn.functional as F


class Trainer:
    def __init__(self):
        self.model = nn.Sequential(nn.Linear(16, 32), nn.Dropout(0.2), nn.Linear(32, 2))
        self.optimizer = torch.optim.Adam(self.model.parameters())

    def fit(self, train_data, val_data, epochs):
        self.model.train()
        for epoch in range(epochs):
            for x, y in train_data:
                self.optimizer.zero_grad()
                F.cross_entropy(self.model(x), y).backward()
                self.optimizer.step()
            self.model.eval()
            with torch.no_grad():
                print(epoch, sum(F.cross_entropy(self.model(x), y).item() for x, y in val_data))


Trainer().fit(torch.load("train.pt"), torch.load("val.pt"), epochs=5)
