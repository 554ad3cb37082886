# GAN loop zeroes only the discriminator's optimizer; the generator's grads accumulate (TG002 at opt_g.step()).
import torch
import torch.nn as nn

G = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 784), nn.Tanh())
D = nn.Sequential(nn.Linear(784, 128), nn.LeakyReLU(0.2), nn.Linear(128, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=2e-4)
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4)
bce = nn.BCEWithLogitsLoss()
real_batches = torch.load("mnist_flat.pt")

for real in real_batches:
    z = torch.randn(real.size(0), 64)
    fake = G(z)
    opt_d.zero_grad()
    d_loss = bce(D(real), torch.ones(real.size(0), 1)) + bce(D(fake.detach()), torch.zeros(real.size(0), 1))
    d_loss.backward()
    opt_d.step()
    g_loss = bce(D(fake), torch.ones(real.size(0), 1))
    g_loss.backward()
    opt_g.step()
