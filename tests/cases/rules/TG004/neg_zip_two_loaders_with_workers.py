# Both loaders zipped into the CUDA training loop load in worker processes:
# nothing to report.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

labelled = DataLoader(labelled_set, batch_size=64, shuffle=True, num_workers=8)
unlabelled = DataLoader(unlabelled_set, batch_size=64, shuffle=True, num_workers=4)
model = nn.Linear(128, 10).cuda()
opt = torch.optim.Adam(model.parameters())
for (x, y), (u, _) in zip(labelled, unlabelled):
    x, y, u = x.cuda(), y.cuda(), u.cuda()
    loss = F.cross_entropy(model(x), y) + model(u).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
