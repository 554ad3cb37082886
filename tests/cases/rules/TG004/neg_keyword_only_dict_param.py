# Keyword-only parameters after a bare *: the dict bound to 'dataloaders' is
# the one passed by that keyword (with workers), not the evalsets one.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader


def fit(model, opt, *, dataloaders, evalsets):
    for x, y in dataloaders["train"]:
        loss = nn.functional.mse_loss(model(x.cuda()), y.cuda())
        opt.zero_grad()
        loss.backward()
        opt.step()


model = nn.Linear(32, 2).cuda()
fit(model, torch.optim.SGD(model.parameters(), lr=0.1),
    dataloaders={"train": DataLoader(train_set, batch_size=32, num_workers=8)},
    evalsets={"train": DataLoader(train_set, batch_size=32)})
