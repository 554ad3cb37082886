# Epoch loop: training batches call backward(), but the inner validation loop never does and runs without no_grad (TG003).
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
train_data, val_data = torch.load("train.pt"), torch.load("val.pt")

for epoch in range(10):
    for x, y in train_data:
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
    val_loss = 0.0
    for x, y in val_data:
        val_loss += F.cross_entropy(model(x), y).item()
    print(epoch, val_loss / len(val_data))
