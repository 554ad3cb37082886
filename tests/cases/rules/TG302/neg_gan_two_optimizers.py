# A GAN: one optimizer per network, together they hold every part.
import torch
import torch.nn as nn
import torch.nn.functional as F


class GAN(nn.Module):
    def __init__(self):
        super().__init__()
        self.generator = nn.Sequential(nn.Linear(100, 784), nn.Tanh())
        self.discriminator = nn.Sequential(nn.Linear(784, 1))

    def forward(self, z):
        return self.discriminator(self.generator(z))


gan = GAN()
opt_g = torch.optim.Adam(gan.generator.parameters(), lr=2e-4)
opt_d = torch.optim.Adam(gan.discriminator.parameters(), lr=2e-4)
for real in loader:
    z = torch.randn(real.shape[0], 100)
    loss_g = F.binary_cross_entropy_with_logits(gan(z), torch.ones(real.shape[0], 1))
    opt_g.zero_grad()
    loss_g.backward()
    opt_g.step()
    opt_d.step()
