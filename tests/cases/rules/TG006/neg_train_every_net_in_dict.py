# A GAN whose nets, optimizers and schedulers live in dicts: each optimizer
# is zeroed by its own key, every net is put back in train mode by the loop
# over nets.values() (which runs its body: the dict has entries), and
# the sampling eval() at the end of the epoch is undone there.
import torch
import torch.nn as nn


class Gen(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 32))

    def forward(self, z):
        return self.net(z)


class Disc(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(32, 64), nn.Dropout(0.3), nn.Linear(64, 1))

    def forward(self, x):
        return self.net(x)


nets = {"G": Gen().cuda(), "D": Disc().cuda()}
opts = {name: torch.optim.Adam(net.parameters(), lr=2e-4) for name, net in nets.items()}
sched = {"G": torch.optim.lr_scheduler.StepLR(opts["G"], 10), "D": torch.optim.lr_scheduler.StepLR(opts["D"], 10)}
history = {"d": [], "g": []}

for epoch in range(100):
    for net in nets.values():
        net.train()
    for real in loader:
        real = real.cuda()
        z = torch.randn(real.size(0), 16, device="cuda")
        fake = nets["G"](z)
        opts["D"].zero_grad()
        d_loss = nn.functional.softplus(nets["D"](fake.detach())).mean() + nn.functional.softplus(-nets["D"](real)).mean()
        d_loss.backward()
        opts["D"].step()
        opts["G"].zero_grad()
        g_loss = nn.functional.softplus(-nets["D"](fake)).mean()
        g_loss.backward()
        opts["G"].step()
        history["d"].append(d_loss.item())
        history["g"].append(g_loss.item())
    for name in nets:
        sched[name].step()
    nets["G"].eval()
    with torch.no_grad():
        samples = nets["G"](torch.randn(64, 16, device="cuda"))
