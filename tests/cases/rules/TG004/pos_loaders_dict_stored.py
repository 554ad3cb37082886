# An empty dict filled by stores; iterating its values() draws from both.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

device = "cuda"
model = nn.Linear(32, 2).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loaders = {}
loaders["a"] = DataLoader(set_a, batch_size=32, shuffle=True)
loaders["b"] = DataLoader(set_b, batch_size=32, shuffle=True, num_workers=4)

for epoch in range(3):
    for loader in loaders.values():
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x.to(device)), y.to(device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
