# TG004: `num_workers=num_workers` with `num_workers = 0` set once for two
# loaders: the value in the flagged call is replaced, not the shared setting.
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda")
num_workers = 0
train_loader = DataLoader(TensorDataset(torch.zeros(8, 4)), batch_size=2, num_workers=num_workers)
val_loader = DataLoader(TensorDataset(torch.zeros(8, 4)), batch_size=2, num_workers=num_workers)
model = torch.nn.Linear(4, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for (x,) in train_loader:
    loss = model(x.to(device)).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
