# log_softmax into nll_loss: the classic correct pairing (not a finding).
import torch
import torch.nn as nn
import torch.nn.functional as F


def train_one_epoch(model, loader, opt):
    for x, y in loader:
        opt.zero_grad()
        loss = F.nll_loss(F.log_softmax(model(x), dim=1), y)
        loss.backward()
        opt.step()


net = nn.Sequential(nn.Flatten(), nn.Linear(784, 10))
train_one_epoch(net, torch.load("mnist.pt"), torch.optim.Adadelta(net.parameters()))
