# nn.Dropout follows model.train()/model.eval() by itself.
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Dropout(0.5), nn.Linear(256, 10))
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        return self.net(self.drop(x))
