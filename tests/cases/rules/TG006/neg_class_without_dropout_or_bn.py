# In-file model with only Linear/ReLU: eval mode changes nothing, so the leak is harmless (not a finding).
import torch
import torch.nn as nn
import torch.nn.functional as F


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(10, 64)
        self.fc2 = nn.Linear(64, 1)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


model = Regressor()
opt = torch.optim.Adam(model.parameters())
for epoch in range(20):
    for x, y in torch.load("train.pt"):
        opt.zero_grad()
        F.mse_loss(model(x), y).backward()
        opt.step()
    model.eval()
