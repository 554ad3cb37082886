# Trainer method steps self.optimizer after backward() without ever resetting gradients (TG002 at self.optimizer.step()).
import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        self.criterion = nn.CrossEntropyLoss()

    def train_epoch(self):
        self.model.train()
        for images, labels in self.loader:
            logits = self.model(images)
            loss = self.criterion(logits, labels)
            loss.backward()
            self.optimizer.step()


Trainer(nn.Linear(32, 4), torch.load("loader.pt")).train_epoch()
