# Each epoch compares two networks on a test batch: the inner loop walks the
# list of models (two iterations), and the lists are made again every epoch.
# What they keep is one forward per model, not one per training step (the
# evaluation without no_grad is TG003's finding, not TG001's).
import torch
import torch.nn as nn
import torch.nn.functional as F

net = nn.Sequential(nn.Linear(1, 10), nn.ReLU(), nn.Linear(10, 1))
net_bn = nn.Sequential(nn.Linear(1, 10), nn.BatchNorm1d(10), nn.ReLU(), nn.Linear(10, 1))
nets = [net, net_bn]
opts = [torch.optim.Adam(n.parameters()) for n in nets]
for epoch in range(10):
    outputs = []
    for n, o in zip(nets, opts):
        n.eval()
        outputs.append(n(test_x))
        n.train()
    show(outputs)
    for x, y in loader:
        for n, o in zip(nets, opts):
            loss = F.mse_loss(n(x), y)
            o.zero_grad()
            loss.backward()
            o.step()
