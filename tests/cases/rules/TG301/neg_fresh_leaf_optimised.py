# Optimising a tensor itself: the leaf is fresh, not rebuilt from a graph.
import torch

x = torch.tensor([0.5, -1.0], requires_grad=True)
opt = torch.optim.SGD([x], lr=0.1)
for _ in range(100):
    loss = ((x - 2.0) ** 2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
