# softmax (not log_softmax) into F.nll_loss, which expects log-probabilities (TG005).
import torch
import torch.nn as nn
import torch.nn.functional as F


def train_one_epoch(model, loader, opt):
    for x, y in loader:
        opt.zero_grad()
        probs = torch.softmax(model(x), dim=-1)
        loss = F.nll_loss(probs, y)
        loss.backward()
        opt.step()


net = nn.Linear(50, 7)
train_one_epoch(net, torch.load("train.pt"), torch.optim.SGD(net.parameters(), lr=0.1))
