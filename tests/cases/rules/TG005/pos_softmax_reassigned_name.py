# `out = out.softmax(1)` then `criterion(out, y)`: the reassigned name carries probabilities into CrossEntropyLoss (TG005).
import torch
import torch.nn as nn

net = nn.Sequential(nn.Conv2d(1, 8, 3), nn.ReLU(), nn.Flatten(), nn.Linear(8 * 26 * 26, 10))
criterion = nn.CrossEntropyLoss()
opt = torch.optim.SGD(net.parameters(), lr=0.01)


def train_step(images, labels):
    out = net(images)
    out = out.softmax(1)
    loss = criterion(out, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()


train_step(torch.randn(4, 1, 28, 28), torch.randint(0, 10, (4,)))
