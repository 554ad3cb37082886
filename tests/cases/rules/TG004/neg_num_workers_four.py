# CUDA training loop, but the DataLoader has num_workers=4 and pin_memory=True (not a finding).
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

loader = DataLoader(torch.load("ds.pt"), batch_size=128, shuffle=True, num_workers=4, pin_memory=True)
model = nn.Linear(64, 8).cuda()
opt = torch.optim.Adam(model.parameters())

for x, y in loader:
    x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
    opt.zero_grad()
    nn.functional.cross_entropy(model(x), y).backward()
    opt.step()
