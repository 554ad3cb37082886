# set_train(m) trains the object each call passes: here the evaluated model itself (not a finding).
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


def set_train(m):
    m.train()


model = nn.Sequential(nn.Linear(20, 50), nn.Dropout(0.1), nn.ReLU(), nn.Linear(50, 2))
ema = copy.deepcopy(model)
set_train(ema)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
train_data, val_data = torch.load("train.pt"), torch.load("val.pt")
for epoch in range(10):
    for step, (x, y) in enumerate(train_data):
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
        if step % 100 == 0:
            model.eval()
            with torch.no_grad():
                print(sum(F.cross_entropy(model(a), b).item() for a, b in val_data))
            set_train(model)
