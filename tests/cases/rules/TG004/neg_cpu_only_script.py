# A CPU-only script (no .cuda(), no cuda device): default num_workers is not a finding.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

ds = TensorDataset(torch.randn(2000, 16), torch.randint(0, 2, (2000,)))
loader = DataLoader(ds, batch_size=64, shuffle=True)
model = nn.Linear(16, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)

for epoch in range(5):
    for x, y in loader:
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
