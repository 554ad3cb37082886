# forward picks a task head with getattr and a computed name: pfc cannot tell
# which heads run, so it says nothing.
import torch
import torch.nn as nn
import torch.nn.functional as F


class MultiHead(nn.Module):
    def __init__(self, tasks):
        super().__init__()
        self.trunk = nn.Linear(64, 64)
        self.head_cls = nn.Linear(64, 10)
        self.head_reg = nn.Linear(64, 1)

    def forward(self, x, task):
        return getattr(self, f"head_{task}")(self.trunk(x))


model = MultiHead(["cls", "reg"])
opt = torch.optim.Adam(model.trunk.parameters(), lr=1e-3)
for x, y in loader:
    loss = F.cross_entropy(model(x, "cls"), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
