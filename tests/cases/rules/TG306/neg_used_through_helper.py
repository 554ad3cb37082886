# The decoder is reached from forward through self.decode(): used.
import torch
import torch.nn as nn


class AutoEncoder(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.encoder = nn.Linear(dim, hidden)
        self.decoder = nn.Linear(hidden, dim)

    def decode(self, z):
        return torch.sigmoid(self.decoder(z))

    def forward(self, x):
        return self.decode(torch.relu(self.encoder(x)))


model = AutoEncoder(784, 32)
opt = torch.optim.Adam(model.parameters())
for x in loader:
    loss = (model(x) - x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
