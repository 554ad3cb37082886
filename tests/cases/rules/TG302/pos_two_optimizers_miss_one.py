# A multi-task model with one optimizer per part; the second task head is
# in neither.
import torch
import torch.nn as nn
import torch.nn.functional as F


class MultiTask(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Linear(64, 64)
        self.task_a = nn.Linear(64, 3)
        self.task_b = nn.Linear(64, 7)

    def forward(self, x):
        h = F.relu(self.trunk(x))
        return self.task_a(h), self.task_b(h)


def main():
    model = MultiTask()
    opt_trunk = torch.optim.SGD(model.trunk.parameters(), lr=0.01)
    opt_a = torch.optim.Adam(model.task_a.parameters(), lr=1e-3)
    for x, ya, yb in loader:
        a, b = model(x)
        loss = F.cross_entropy(a, ya) + F.cross_entropy(b, yb)
        opt_trunk.zero_grad()
        opt_a.zero_grad()
        loss.backward()
        opt_trunk.step()
        opt_a.step()


main()
