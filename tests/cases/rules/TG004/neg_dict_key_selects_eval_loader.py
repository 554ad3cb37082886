# Only the "val" entry lacks workers, and only evaluation draws from it:
# the key decides which loader feeds training.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

device = "cuda"
model = nn.Linear(32, 2).to(device)
optimizer = torch.optim.Adam(model.parameters())
loaders = {
    "train": DataLoader(train_set, batch_size=64, shuffle=True, num_workers=8),
    "val": DataLoader(val_set, batch_size=64),
}

for epoch in range(10):
    model.train()
    for x, y in loaders["train"]:
        x, y = x.to(device), y.to(device)
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        for x, y in loaders["val"]:
            print(model(x.to(device)).argmax(1).eq(y.to(device)).sum().item())
