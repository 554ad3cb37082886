# Raw logits into F.cross_entropy: the correct usage (not a finding).
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Linear(20, 5)
opt = torch.optim.SGD(model.parameters(), lr=0.1)


def train_step(x, y):
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()


train_step(torch.randn(32, 20), torch.randint(0, 5, (32,)))
