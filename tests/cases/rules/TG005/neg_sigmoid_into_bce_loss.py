# sigmoid into nn.BCELoss (not BCEWithLogitsLoss): the pairing is correct (not a finding).
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(30, 16), nn.ReLU(), nn.Linear(16, 1))
criterion = nn.BCELoss()
opt = torch.optim.Adam(model.parameters())


def train_step(x, y):
    opt.zero_grad()
    loss = criterion(torch.sigmoid(model(x)), y)
    loss.backward()
    opt.step()


train_step(torch.randn(64, 30), torch.randint(0, 2, (64, 1)).float())
