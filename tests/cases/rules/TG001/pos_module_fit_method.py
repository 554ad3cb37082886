# A Keras-style fit() method on an nn.Module appends the attached loss every step (TG001 warning: scalar after backward).
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 2))

    def forward(self, x):
        return self.body(x)

    def fit(self, loader, epochs=5):
        opt = torch.optim.Adam(self.parameters())
        history = []
        for epoch in range(epochs):
            for x, y in loader:
                opt.zero_grad()
                loss = F.cross_entropy(self(x), y)
                loss.backward()
                opt.step()
                history.append(loss)
        return [h.item() for h in history]


Net().fit(torch.load("train.pt"))
