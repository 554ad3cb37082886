# Wrapped, but the loop keeps calling the inner model: the hooks DDP installs
# on the wrapper never run, so no gradient is all-reduced.
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("nccl")
net = ResNet18().cuda()
ddp_net = DDP(net, device_ids=[0])
opt = torch.optim.SGD(ddp_net.parameters(), lr=0.1, momentum=0.9)
for images, labels in loader:
    loss = torch.nn.functional.cross_entropy(net(images.cuda()), labels.cuda())
    opt.zero_grad()
    loss.backward()
    opt.step()
