# model.eval() every 100 steps inside the training loop, never model.train() again (TG006 at model.eval()).
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Dropout(0.3), nn.Linear(64, 4))
opt = torch.optim.Adam(model.parameters())
val_x, val_y = torch.randn(256, 32), torch.randint(0, 4, (256,))

model.train()
for step in range(1000):
    x, y = torch.randn(32, 32), torch.randint(0, 4, (32,))
    opt.zero_grad()
    F.cross_entropy(model(x), y).backward()
    opt.step()
    if step % 100 == 0:
        model.eval()
        with torch.no_grad():
            print(step, F.cross_entropy(model(val_x), val_y).item())
