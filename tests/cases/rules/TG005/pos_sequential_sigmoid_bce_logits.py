# nn.Sequential ending in nn.Sigmoid() fed to BCEWithLogitsLoss: double sigmoid (TG005).
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 1), nn.Sigmoid())
loss_fn = nn.BCEWithLogitsLoss()
opt = torch.optim.Adam(model.parameters())


def train_step(x, y):
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()


train_step(torch.randn(32, 8), torch.rand(32, 1).round())
