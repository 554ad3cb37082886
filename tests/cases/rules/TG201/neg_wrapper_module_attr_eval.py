# Wrapped in DDP and trained through the wrapper; the inner module is only
# used for evaluation under no_grad.
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("nccl")
net = Net().cuda()
ddp = DDP(net, device_ids=[0])
opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
for x, y in loader:
    loss = torch.nn.functional.cross_entropy(ddp(x.cuda()), y.cuda())
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        print(net(x.cuda()).argmax(-1).float().mean().item())
