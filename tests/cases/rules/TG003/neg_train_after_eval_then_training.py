# model.eval() + no_grad for a sanity check, then model.train() before the training loop: training calls are not an eval region (not a finding).
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Sequential(nn.Linear(20, 20), nn.Dropout(0.1), nn.Linear(20, 2))
opt = torch.optim.Adam(model.parameters())
x, y = torch.randn(128, 20), torch.randint(0, 2, (128,))

model.eval()
with torch.no_grad():
    print("initial loss", F.cross_entropy(model(x), y).item())
model.train()
for step in range(100):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
