# A trainer builds self.train_loader with default workers and trains on CUDA in a method (TG004).
import torch
import torch.nn as nn
from torch.utils.data import DataLoader


class Trainer:
    def __init__(self, model, dataset):
        self.model = model.cuda()
        self.train_loader = DataLoader(dataset, batch_size=32, shuffle=True)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-3)

    def train_epoch(self):
        for x, y in self.train_loader:
            x, y = x.cuda(), y.cuda()
            self.optimizer.zero_grad()
            nn.functional.cross_entropy(self.model(x), y).backward()
            self.optimizer.step()


Trainer(nn.Linear(16, 4), torch.load("ds.pt")).train_epoch()
