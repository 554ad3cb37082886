# WGAN: the critic steps every batch, the generator every n_critic batches with its own guarded zero_grad (not a finding).
import torch
import torch.nn as nn

G = nn.Sequential(nn.Linear(100, 256), nn.ReLU(), nn.Linear(256, 784), nn.Tanh())
D = nn.Sequential(nn.Linear(784, 256), nn.LeakyReLU(0.2), nn.Linear(256, 1))
opt_g = torch.optim.RMSprop(G.parameters(), lr=5e-5)
opt_d = torch.optim.RMSprop(D.parameters(), lr=5e-5)
n_critic = 5


def train_epoch(loader):
    for i, real in enumerate(loader):
        opt_d.zero_grad()
        fake = G(torch.randn(real.size(0), 100)).detach()
        d_loss = D(fake).mean() - D(real).mean()
        d_loss.backward()
        opt_d.step()
        if i % n_critic == 0:
            opt_g.zero_grad()
            g_loss = -D(G(torch.randn(real.size(0), 100))).mean()
            g_loss.backward()
            opt_g.step()


train_epoch(torch.load("mnist_flat.pt"))
