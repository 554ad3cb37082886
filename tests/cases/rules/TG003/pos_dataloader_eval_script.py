# An evaluation script iterates a DataLoader and calls the model with no no_grad and no backward (TG003).
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

model = nn.Sequential(nn.Linear(40, 40), nn.ReLU(), nn.Linear(40, 1))
model.load_state_dict(torch.load("regressor.pt"))
loader = DataLoader(torch.load("holdout.pt"), batch_size=256)

abs_err = 0.0
for x, y in loader:
    pred = model(x)
    abs_err += (pred - y).abs().sum().item()
print("mae", abs_err / len(loader.dataset))
