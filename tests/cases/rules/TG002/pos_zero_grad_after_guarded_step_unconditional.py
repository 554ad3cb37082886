# zero_grad() runs unconditionally after a step() guarded by the accumulation condition: gradients never accumulate (TG002).
import torch
import torch.nn as nn


def train(model, loader, optimizer, accum_steps=4):
    for i, (x, y) in enumerate(loader):
        loss = nn.functional.cross_entropy(model(x), y) / accum_steps
        loss.backward()
        if (i + 1) % accum_steps == 0:
            optimizer.step()
        optimizer.zero_grad()


net = nn.Linear(64, 10)
train(net, torch.load("train.pt"), torch.optim.SGD(net.parameters(), lr=0.1))
