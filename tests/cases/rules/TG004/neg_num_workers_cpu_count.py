# num_workers=min(8, os.cpu_count()) as the fix suggests (not a finding).
import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

device = "cuda" if torch.cuda.is_available() else "cpu"
loader = DataLoader(torch.load("ds.pt"), batch_size=64, shuffle=True,
                    num_workers=min(8, os.cpu_count()), pin_memory=True, persistent_workers=True)
model = nn.Linear(40, 4).to(device)
opt = torch.optim.Adam(model.parameters())
for x, y in loader:
    opt.zero_grad()
    nn.functional.cross_entropy(model(x.to(device)), y.to(device)).backward()
    opt.step()
