# One head per task, picked with getattr and a computed name: pfc cannot tell
# which heads forward reaches, so it says nothing.
import torch
import torch.nn as nn


class MultiTask(nn.Module):
    def __init__(self, dim, tasks):
        super().__init__()
        self.trunk = nn.Linear(dim, dim)
        self.head_cls = nn.Linear(dim, 10)
        self.head_reg = nn.Linear(dim, 1)

    def forward(self, x, task):
        head = getattr(self, f"head_{task}")
        return head(torch.relu(self.trunk(x)))


model = MultiTask(64, ["cls", "reg"])
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y, task in loader:
    loss = (model(x, task) - y).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
