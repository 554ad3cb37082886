# `net = model.to(device)` is the same object as `model`: the loop trains
# `net` and puts `model` in eval mode every 500 steps without switching it
# back. Found because .to() keeps the object's identity.
import torch
import torch.nn as nn
import torch.nn.functional as F

device = torch.device("cuda")
model = nn.Sequential(nn.Linear(64, 64), nn.Dropout(0.1), nn.Linear(64, 10))
net = model.to(device)
opt = torch.optim.AdamW(net.parameters())
for step, (x, y) in enumerate(loader):
    loss = F.cross_entropy(net(x.to(device)), y.to(device))
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 500 == 0:
        model.eval()
        with torch.no_grad():
            print(F.cross_entropy(model(xv.to(device)), yv.to(device)).item())
