# The loader (default workers) is iterated by train_one_epoch, whose loop reaches backward() on CUDA (TG004 at DataLoader().
import torch
import torch.nn as nn
from torch.utils.data import DataLoader


def train_one_epoch(model, loader, opt):
    for x, y in loader:
        x, y = x.cuda(), y.cuda()
        opt.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()


model = nn.Linear(10, 1).cuda()
optimizer = torch.optim.Adam(model.parameters())
train_loader = DataLoader(torch.load("pairs.pt"), batch_size=64, shuffle=True)
for epoch in range(5):
    train_one_epoch(model, train_loader, optimizer)
