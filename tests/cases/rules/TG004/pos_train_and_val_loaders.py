# Two loaders: the training one (num_workers=0) feeds backward() on CUDA (TG004 on it); the val one (workers=2) is fine.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

model = nn.Linear(32, 3).cuda()
opt = torch.optim.Adam(model.parameters())
train_dl = DataLoader(torch.load("train.pt"), batch_size=64, shuffle=True, num_workers=0)
val_dl = DataLoader(torch.load("val.pt"), batch_size=256, num_workers=2)

for epoch in range(5):
    for x, y in train_dl:
        opt.zero_grad()
        nn.functional.cross_entropy(model(x.cuda()), y.cuda()).backward()
        opt.step()
    with torch.no_grad():
        acc = sum((model(x.cuda()).argmax(1) == y.cuda()).sum().item() for x, y in val_dl)
