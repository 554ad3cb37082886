# Registered by name with register_parameter and add_module: the bias and the
# gate are never used by forward.
import torch
import torch.nn as nn


class Gated(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim, bias=False)
        self.register_parameter("shift", nn.Parameter(torch.zeros(dim)))
        self.add_module("gate", nn.Linear(dim, dim))

    def forward(self, x):
        return torch.relu(self.fc(x))


if __name__ == "__main__":
    net = Gated(16)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    out = net(torch.randn(4, 16)).sum()
    out.backward()
    opt.step()
