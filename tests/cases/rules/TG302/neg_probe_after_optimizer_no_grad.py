# A linear probe created after the optimizer is only evaluated under no_grad.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(32, 32)

    def forward(self, x):
        return self.fc(x)


model = Net()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
probe = nn.Linear(32, 2)
for x, y in loader:
    loss = F.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        acc = (probe(model(x)).argmax(-1) == y).float().mean()
