# Optimizers in a dict: D's is zeroed by its key, G's never is.
import torch
import torch.nn as nn

G = nn.Linear(16, 32).cuda()
D = nn.Linear(32, 1).cuda()
opt = {"G": torch.optim.Adam(G.parameters()), "D": torch.optim.Adam(D.parameters())}

for real in loader:
    real = real.cuda()
    fake = G(torch.randn(real.size(0), 16, device="cuda"))
    opt["D"].zero_grad()
    d_loss = D(real).mean() - D(fake.detach()).mean()
    d_loss.backward()
    opt["D"].step()
    g_loss = -D(fake).mean()
    g_loss.backward()
    opt["G"].step()
