# The generator wraps the evaluation loader only, drawn where nothing
# backpropagates; the training loader has workers.
import torch
import torch.nn as nn
from torch.utils import data


def forever(loader):
    while True:
        for batch in loader:
            yield batch


device = "cuda"
model = nn.Linear(64, 10).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
train_loader = data.DataLoader(train_set, batch_size=64, shuffle=True, num_workers=8)
val_batches = forever(data.DataLoader(val_set, batch_size=64))

for epoch in range(90):
    for x, y in train_loader:
        loss = nn.functional.cross_entropy(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        for _ in range(10):
            vx, vy = next(val_batches)
            print(nn.functional.cross_entropy(model(vx.to(device)), vy.to(device)).item())
