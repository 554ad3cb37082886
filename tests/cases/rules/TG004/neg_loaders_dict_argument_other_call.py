# The training function is called with a dict pfc reads and, elsewhere,
# with loaders built by a helper it cannot see: which loader "train" is
# stays unknown, so the literal's loader is not reported.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader


def fit(model, loaders, optimizer, epochs):
    for epoch in range(epochs):
        for x, y in loaders["train"]:
            loss = nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


net = nn.Linear(16, 4).cuda()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
if quick:
    fit(net, {"train": DataLoader(small_set, batch_size=16)}, opt, 1)
else:
    fit(net, build_loaders(num_workers=8), opt, 90)
