# `logits.softmax(dim=-1)` passed to an nn.CrossEntropyLoss() instance (TG005).
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 3))
criterion = nn.CrossEntropyLoss()
opt = torch.optim.Adam(model.parameters())


def train_step(x, y):
    opt.zero_grad()
    logits = model(x)
    loss = criterion(logits.softmax(dim=-1), y)
    loss.backward()
    opt.step()
    return loss.item()


for _ in range(50):
    train_step(torch.randn(8, 10), torch.randint(0, 3, (8,)))
