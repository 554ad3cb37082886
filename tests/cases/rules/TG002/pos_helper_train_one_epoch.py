# train_one_epoch(model, loader, opt) runs backward and opt.step() with no zeroing anywhere (TG002 at opt.step()).
import torch
import torch.nn as nn
import torch.nn.functional as F


def train_one_epoch(model, loader, opt):
    model.train()
    for x, y in loader:
        loss = F.nll_loss(F.log_softmax(model(x), dim=-1), y)
        loss.backward()
        opt.step()


net = nn.Sequential(nn.Linear(20, 20), nn.ReLU(), nn.Linear(20, 5))
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
for epoch in range(10):
    train_one_epoch(net, torch.load("train.pt"), optimizer)
