# Per-parameter gradient norms logged each step: `p.grad` is a leaf gradient with no graph (not a finding).
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
grad_norms = []

for step in range(200):
    x, y = torch.randn(16, 32), torch.randint(0, 4, (16,))
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    for p in model.parameters():
        grad_norms.append(p.grad.norm())
    opt.step()
