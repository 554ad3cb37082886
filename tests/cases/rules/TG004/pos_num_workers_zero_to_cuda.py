# Explicit num_workers=0 with .to("cuda") in a training loop (TG004).
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

ds = TensorDataset(torch.randn(10_000, 64), torch.randint(0, 4, (10_000,)))
loader = DataLoader(ds, batch_size=256, shuffle=True, num_workers=0)
model = nn.Linear(64, 4).to("cuda")
opt = torch.optim.Adam(model.parameters())

for x, y in loader:
    x, y = x.to("cuda"), y.to("cuda")
    opt.zero_grad()
    nn.functional.cross_entropy(model(x), y).backward()
    opt.step()
