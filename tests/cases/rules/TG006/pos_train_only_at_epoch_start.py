# model.train() runs at epoch start, but eval() runs every N steps inside the batch loop: the rest of the epoch trains in eval mode (TG006).
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Sequential(nn.Linear(10, 40), nn.Dropout(0.1), nn.Linear(40, 2))
opt = torch.optim.Adam(model.parameters())
data = torch.load("train.pt")

for epoch in range(5):
    model.train()
    for i, (x, y) in enumerate(data):
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
        if i % 200 == 0:
            model.eval()
            with torch.no_grad():
                print(i, F.cross_entropy(model(x), y).item())
