# The literal's starved loader is replaced through the helper's parameter
# before training draws from it: the dict's entries are every store, through
# aliases too, and two values under one key are not a loader pfc can name.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader


def use_workers(loaders):
    loaders["train"] = DataLoader(train_set, batch_size=32, num_workers=8)


device = "cuda"
model = nn.Linear(32, 2).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loaders = {"train": DataLoader(train_set, batch_size=32)}
use_workers(loaders)

for x, y in loaders["train"]:
    loss = nn.functional.mse_loss(model(x.to(device)), y.to(device))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
