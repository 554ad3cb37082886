# setup() rebinds the global dict (declared global there): the module-level
# literal is not the only definition, so pfc does not read it.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

loaders = {"train": DataLoader(train_set, batch_size=32)}


def setup():
    global loaders
    loaders = {"train": DataLoader(train_set, batch_size=32, num_workers=8)}


def train(model, optimizer, device):
    for x, y in loaders["train"]:
        loss = nn.functional.mse_loss(model(x.to(device)), y.to(device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


setup()
model = nn.Linear(32, 2).to("cuda")
train(model, torch.optim.SGD(model.parameters(), lr=0.1), "cuda")
