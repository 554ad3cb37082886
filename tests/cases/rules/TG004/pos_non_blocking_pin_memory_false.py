# Default workers and pin_memory=False while batches move with non_blocking=True: TG004, and the message should carry the pin_memory remark.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader


def train_one_epoch(model, loader, opt):
    for x, y in loader:
        x = x.cuda(non_blocking=True)
        y = y.cuda(non_blocking=True)
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()


net = nn.Linear(32, 4).cuda()
train_loader = DataLoader(torch.load("train.pt"), batch_size=64, shuffle=True, pin_memory=False)
train_one_epoch(net, train_loader, torch.optim.SGD(net.parameters(), lr=0.1))
