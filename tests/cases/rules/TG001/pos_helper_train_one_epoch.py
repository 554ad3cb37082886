# A helper keeps each step's loss in a list that survives the batch loop (TG001 warning, after backward).
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def train_one_epoch(model, loader, opt):
    step_losses = []
    for x, y in loader:
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        step_losses.append(loss)
    return step_losses


net = nn.Linear(10, 2)
dl = DataLoader(TensorDataset(torch.randn(256, 10), torch.randint(0, 2, (256,))), batch_size=32)
train_one_epoch(net, dl, torch.optim.SGD(net.parameters(), lr=0.1))
