# The correct version: set_epoch at the top of every epoch.
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

dist.init_process_group("nccl")
model = DDP(Net().cuda())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sampler = DistributedSampler(train_ds)
loader = DataLoader(train_ds, batch_size=64, sampler=sampler, num_workers=4)
for epoch in range(90):
    sampler.set_epoch(epoch)
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        opt.zero_grad()
        loss.backward()
        opt.step()
