# update() may replace any entry: pfc cannot tell which loader "train" is
# and says nothing about the literal's.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

device = "cuda"
model = nn.Linear(32, 2).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loaders = {"train": DataLoader(train_set, batch_size=32)}
loaders.update(build_loaders(num_workers=8))

for x, y in loaders["train"]:
    loss = nn.functional.mse_loss(model(x.to(device)), y.to(device))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
