# In-file model built from another in-file block; neither has Dropout or BatchNorm (not a finding).
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lin = nn.Linear(d, d)
        self.norm = nn.LayerNorm(d)

    def forward(self, x):
        return x + self.lin(self.norm(x))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(32) for _ in range(4)])

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return x


net = Net()
opt = torch.optim.Adam(net.parameters())
for step, x in enumerate(torch.load("batches.pt")):
    opt.zero_grad()
    (net(x) - x).pow(2).mean().backward()
    opt.step()
    if step % 100 == 0:
        net.eval()
