# torch.device("cuda:0") proves CUDA; the loader is left at default workers (TG004).
import torch
from torch import nn
from torch.utils.data import DataLoader

dev = torch.device("cuda:0")
net = nn.Sequential(nn.Conv1d(1, 8, 5), nn.ReLU(), nn.Flatten(), nn.LazyLinear(2)).to(dev)
opt = torch.optim.Adam(net.parameters())
signals = DataLoader(torch.load("signals.pt"), batch_size=16, shuffle=True)

for epoch in range(20):
    for sig, label in signals:
        sig, label = sig.to(dev), label.to(dev)
        loss = nn.functional.cross_entropy(net(sig), label)
        opt.zero_grad()
        loss.backward()
        opt.step()
