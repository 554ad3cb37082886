# The correct version: the model is wrapped and the wrapper is trained.
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("nccl")
model = DDP(torch.nn.Linear(128, 10).cuda(), device_ids=[0])
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
    opt.zero_grad()
    loss.backward()
    opt.step()
