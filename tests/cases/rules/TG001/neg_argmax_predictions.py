# `preds.append(logits.argmax(-1))`: argmax output is integer indices, not attached (not a finding).
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Linear(50, 10)
opt = torch.optim.Adam(model.parameters())
batches = [(torch.randn(16, 50), torch.randint(0, 10, (16,))) for _ in range(30)]

preds, targets = [], []
for x, y in batches:
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    preds.append(logits.argmax(-1))
    targets.append(y)

acc = (torch.cat(preds) == torch.cat(targets)).float().mean()
