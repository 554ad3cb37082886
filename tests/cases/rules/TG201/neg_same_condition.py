# Initialisation and wrapping under the same `if args.distributed:`: correct.
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def main(args):
    model = Net().cuda()
    if args.distributed:
        dist.init_process_group("nccl")
        model = DistributedDataParallel(model, device_ids=[args.gpu])
    opt = torch.optim.SGD(model.parameters(), lr=args.lr)
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        opt.zero_grad()
        loss.backward()
        opt.step()
