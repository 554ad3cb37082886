# F.softmax output passed to F.cross_entropy, which applies log_softmax itself (TG005 at the softmax'd argument).
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Linear(20, 5)
opt = torch.optim.SGD(model.parameters(), lr=0.1)

for step in range(100):
    x, y = torch.randn(32, 20), torch.randint(0, 5, (32,))
    probs = F.softmax(model(x), dim=1)
    loss = F.cross_entropy(probs, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
