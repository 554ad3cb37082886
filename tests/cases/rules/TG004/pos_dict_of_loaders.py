# The loaders live in a dict literal; the training loop draws from one entry
# by its constant key.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

device = "cuda"
model = nn.Linear(32, 2).to(device)
optimizer = torch.optim.Adam(model.parameters())
loaders = {
    "train": DataLoader(train_set, batch_size=64, shuffle=True),
    "val": DataLoader(val_set, batch_size=64, num_workers=4),
}

for epoch in range(10):
    for x, y in loaders["train"]:
        x, y = x.to(device), y.to(device)
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
