# model.eval() only after the training loop has finished (not a finding).
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Sequential(nn.Linear(6, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.Adam(model.parameters())
x, y = torch.randn(512, 6), torch.randn(512, 1)

for step in range(300):
    opt.zero_grad()
    F.mse_loss(model(x), y).backward()
    opt.step()

model.eval()
with torch.no_grad():
    print("final mse", F.mse_loss(model(x), y).item())
