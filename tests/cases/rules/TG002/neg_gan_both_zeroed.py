# GAN with two optimizers, each zeroed before its own backward (not a finding).
import torch
import torch.nn as nn

G = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 784), nn.Tanh())
D = nn.Sequential(nn.Linear(784, 128), nn.LeakyReLU(0.2), nn.Linear(128, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=2e-4)
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4)
bce = nn.BCEWithLogitsLoss()

for real in torch.load("mnist_flat.pt"):
    n = real.size(0)
    fake = G(torch.randn(n, 64))
    opt_d.zero_grad()
    d_loss = bce(D(real), torch.ones(n, 1)) + bce(D(fake.detach()), torch.zeros(n, 1))
    d_loss.backward()
    opt_d.step()
    opt_g.zero_grad()
    g_loss = bce(D(fake), torch.ones(n, 1))
    g_loss.backward()
    opt_g.step()
