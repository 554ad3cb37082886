# Two loaders drawn together with zip() feed a CUDA training loop; the
# first one (labelled data) keeps the default num_workers=0. The loader's
# origin is followed through zip, not just the last argument.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

labelled = DataLoader(labelled_set, batch_size=64, shuffle=True)
unlabelled = DataLoader(unlabelled_set, batch_size=64, shuffle=True, num_workers=4)
model = nn.Linear(128, 10).cuda()
opt = torch.optim.Adam(model.parameters())
for (x, y), (u, _) in zip(labelled, unlabelled):
    x, y, u = x.cuda(), y.cuda(), u.cuda()
    loss = F.cross_entropy(model(x), y) + model(u).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
