# An nn.Softmax(dim=1) module applied before nn.CrossEntropyLoss (TG005).
import torch
import torch.nn as nn

backbone = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
to_probs = nn.Softmax(dim=1)
loss_fn = nn.CrossEntropyLoss()
opt = torch.optim.SGD(backbone.parameters(), lr=0.01)


def step(x, y):
    probs = to_probs(backbone(x))
    loss = loss_fn(probs, y)
    opt.zero_grad()
    loss.backward()
    opt.step()


step(torch.randn(16, 64), torch.randint(0, 10, (16,)))
