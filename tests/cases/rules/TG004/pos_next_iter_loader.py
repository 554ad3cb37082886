# Steps are drawn with next(iter(loader)) in a step-count loop on the GPU;
# the loader keeps the default num_workers=0.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader


def main():
    loader = DataLoader(train_set, batch_size=32, shuffle=True)
    model = nn.Linear(64, 3).to("cuda")
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    it = iter(loader)
    for step in range(10_000):
        x, y = next(it)
        loss = F.cross_entropy(model(x.to("cuda")), y.to("cuda"))
        opt.zero_grad()
        loss.backward()
        opt.step()


main()
