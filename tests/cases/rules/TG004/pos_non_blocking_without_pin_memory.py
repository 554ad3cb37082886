# num_workers=0 and batches moved with non_blocking=True but no pin_memory: TG004 whose message adds the pin_memory remark.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

device = torch.device("cuda")
loader = DataLoader(torch.load("dataset.pt"), batch_size=32, shuffle=True, num_workers=0)
model = nn.Linear(128, 2).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)

for inputs, targets in loader:
    inputs = inputs.to(device, non_blocking=True)
    targets = targets.to(device, non_blocking=True)
    opt.zero_grad()
    nn.functional.cross_entropy(model(inputs), targets).backward()
    opt.step()
