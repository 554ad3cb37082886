# Softmax computed for a confidence metric; the loss receives logits (not a finding).
import torch
import torch.nn as nn
import torch.nn.functional as F


def train_step(model, opt, x, y):
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    confidence = F.softmax(logits.detach(), dim=-1).max(dim=-1).values.mean()
    return loss.item(), confidence.item()


m = nn.Linear(10, 3)
print(train_step(m, torch.optim.SGD(m.parameters(), lr=0.1), torch.randn(8, 10), torch.randint(0, 3, (8,))))
