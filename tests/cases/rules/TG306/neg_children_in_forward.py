# forward runs whatever self.children() yields: every registered layer is
# reached, pfc cannot list them by name and says nothing.
import torch
import torch.nn as nn


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(16, 16)
        self.l2 = nn.Linear(16, 16)

    def forward(self, x):
        for layer in self.children():
            x = torch.relu(layer(x))
        return x


model = Stack()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x in loader:
    loss = model(x).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
