# The default-workers loader only feeds an evaluation loop (no backward); the training loader has workers (not a finding).
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

model = nn.Linear(32, 3).cuda()
opt = torch.optim.Adam(model.parameters())
train_dl = DataLoader(torch.load("train.pt"), batch_size=64, shuffle=True, num_workers=8)
val_dl = DataLoader(torch.load("val.pt"), batch_size=256)

for epoch in range(5):
    for x, y in train_dl:
        opt.zero_grad()
        nn.functional.cross_entropy(model(x.cuda()), y.cuda()).backward()
        opt.step()
    with torch.no_grad():
        for x, y in val_dl:
            print((model(x.cuda()).argmax(1) == y.cuda()).float().mean().item())
