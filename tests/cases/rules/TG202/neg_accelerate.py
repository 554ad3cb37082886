# Accelerate shards the loader itself and sets the epoch: no DistributedSampler
# by hand.
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader

accelerator = Accelerator()
loader = DataLoader(ds, batch_size=32, shuffle=True, num_workers=4)
model, opt, loader = accelerator.prepare(Net(), torch.optim.AdamW(params), loader)
for epoch in range(10):
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x), y)
        accelerator.backward(loss)
        opt.step()
        opt.zero_grad()
