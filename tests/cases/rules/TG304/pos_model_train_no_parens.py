# `model.train` without parentheses after a validation pass: the model stays in eval mode (TG304).
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Sequential(nn.Linear(10, 40), nn.Dropout(0.1), nn.Linear(40, 2))
opt = torch.optim.Adam(model.parameters())

for epoch in range(5):
    model.train
    for x, y in torch.load("train.pt"):
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
    model.eval()
