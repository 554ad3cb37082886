# num_workers comes from the command line: not provably zero (not a finding).
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument("--workers", type=int, default=8)
args = parser.parse_args()

loader = DataLoader(torch.load("ds.pt"), batch_size=64, shuffle=True, num_workers=args.workers)
model = nn.Linear(100, 2).cuda()
opt = torch.optim.Adam(model.parameters())
for x, y in loader:
    opt.zero_grad()
    nn.functional.cross_entropy(model(x.cuda()), y.cuda()).backward()
    opt.step()
