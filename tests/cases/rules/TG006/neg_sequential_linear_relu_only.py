# nn.Sequential of Linear/ReLU only: no Dropout or BatchNorm, so eval() mid-training changes nothing (not a finding).
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Sequential(nn.Linear(12, 48), nn.ReLU(), nn.Linear(48, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
val_x, val_y = torch.randn(100, 12), torch.randint(0, 3, (100,))

for step in range(2000):
    x, y = torch.randn(16, 12), torch.randint(0, 3, (16,))
    opt.zero_grad()
    F.cross_entropy(model(x), y).backward()
    opt.step()
    if step % 250 == 0:
        model.eval()
        with torch.no_grad():
            print(step, F.cross_entropy(model(val_x), val_y).item())
