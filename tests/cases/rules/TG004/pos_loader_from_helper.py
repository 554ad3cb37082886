# The loader is built by a helper and returned; the training loop on the GPU
# iterates what the helper returned. The report points at the DataLoader(...)
# call inside the helper.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader


def build_loader(dataset, batch_size):
    return DataLoader(dataset, batch_size=batch_size, shuffle=True)


def train(dataset):
    device = torch.device("cuda")
    model = nn.Linear(20, 2).to(device)
    opt = torch.optim.Adam(model.parameters())
    for x, y in build_loader(dataset, 128):
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
