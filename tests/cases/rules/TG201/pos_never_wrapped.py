# The process group is set up, but each rank trains its own plain model.
import os
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

dist.init_process_group("nccl")
local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
model = torch.nn.Linear(128, 10).cuda(local_rank)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sampler = DistributedSampler(train_ds)
loader = DataLoader(train_ds, batch_size=64, sampler=sampler, num_workers=4)
for epoch in range(10):
    sampler.set_epoch(epoch)
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        opt.zero_grad()
        loss.backward()
        opt.step()
