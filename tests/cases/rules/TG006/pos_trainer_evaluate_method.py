# The training loop calls self.evaluate(), which switches self.model to eval() and never back (TG006 at the eval() in evaluate).
import torch
import torch.nn as nn
import torch.nn.functional as F


class Trainer:
    def __init__(self, train_data, val_data):
        self.model = nn.Sequential(nn.Linear(8, 8), nn.BatchNorm1d(8), nn.Linear(8, 3))
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.train_data, self.val_data = train_data, val_data

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        return sum(F.cross_entropy(self.model(x), y).item() for x, y in self.val_data)

    def train(self, epochs):
        for epoch in range(epochs):
            for x, y in self.train_data:
                self.opt.zero_grad()
                F.cross_entropy(self.model(x), y).backward()
                self.opt.step()
            print(epoch, self.evaluate())


Trainer(torch.load("train.pt"), torch.load("val.pt")).train(10)
