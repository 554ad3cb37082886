# PlainNet (model.py) has no dropout or BatchNorm: eval() changes nothing, no TG006.
import torch
import torch.nn.functional as F
from model import PlainNet

model = PlainNet()
opt = torch.optim.Adam(model.parameters())
val_x, val_y = torch.randn(256, 64), torch.randint(0, 4, (256,))

model.train()
for step in range(1000):
    x, y = torch.randn(32, 64), torch.randint(0, 4, (32,))
    opt.zero_grad()
    F.cross_entropy(model(x), y).backward()
    opt.step()
    if step % 100 == 0:
        model.eval()
        with torch.no_grad():
            print(step, F.cross_entropy(model(val_x), val_y).item())
