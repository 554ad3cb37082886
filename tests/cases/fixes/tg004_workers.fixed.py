# TG004: worker processes added to a call split over lines, with comments
# between the arguments and a trailing comma; `import os` added.
import os
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda")
loader = DataLoader(
    dataset,  # the dataset
    # shuffle every epoch
    shuffle=True,
    batch_size=64, num_workers=min(8, os.cpu_count()), pin_memory=True, persistent_workers=True,
)
model = torch.nn.Linear(2, 2).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    model(x.to(device, non_blocking=True)).sum().backward()
    opt.step()
    opt.zero_grad()
