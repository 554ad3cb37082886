# A trainer class optimises only the backbone; the model's forward reaches the
# projection through a helper method.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Linear(128, 128)
        self.proj = nn.Linear(128, 16)

    def embed(self, x):
        return self.proj(F.gelu(x))

    def forward(self, x):
        return self.embed(self.backbone(x))


class Trainer:
    def __init__(self):
        self.model = Net()
        self.opt = torch.optim.Adam(self.model.backbone.parameters(), lr=1e-3)

    def step(self, x, y):
        loss = F.mse_loss(self.model(x), y)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()
