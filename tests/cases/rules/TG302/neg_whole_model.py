# The optimizer holds the whole model.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128))
        self.head = nn.Linear(128, 10)

    def forward(self, x):
        return self.head(self.encoder(x))


model = Classifier()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for x, y in loader:
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
