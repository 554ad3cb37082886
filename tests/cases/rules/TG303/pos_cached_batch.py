# One batch taken before the loop for a quick check, and never replaced.
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader


def train(model, dataset, epochs, device):
    loader = DataLoader(dataset, batch_size=64, shuffle=True, num_workers=4)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    fixed_x, fixed_y = next(iter(loader))
    fixed_x, fixed_y = fixed_x.to(device), fixed_y.to(device)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            out = model(fixed_x)
            loss = F.cross_entropy(out, fixed_y)
            loss.backward()
            optimizer.step()
