# The loop at the top of the epoch puts only the discriminator back in
# train mode; the generator evaluated for samples stays in eval mode.
import torch
import torch.nn as nn

G = nn.Sequential(nn.Linear(16, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 32)).cuda()
D = nn.Sequential(nn.Linear(32, 64), nn.Dropout(0.3), nn.Linear(64, 1)).cuda()
opt_g = torch.optim.Adam(G.parameters())
opt_d = torch.optim.Adam(D.parameters())

for epoch in range(100):
    for net in [D]:
        net.train()
    for real in loader:
        real = real.cuda()
        fake = G(torch.randn(real.size(0), 16, device="cuda"))
        opt_d.zero_grad()
        d_loss = nn.functional.softplus(D(fake.detach())).mean() + nn.functional.softplus(-D(real)).mean()
        d_loss.backward()
        opt_d.step()
        opt_g.zero_grad()
        g_loss = nn.functional.softplus(-D(fake)).mean()
        g_loss.backward()
        opt_g.step()
    G.eval()
    with torch.no_grad():
        samples = G(torch.randn(64, 16, device="cuda"))
