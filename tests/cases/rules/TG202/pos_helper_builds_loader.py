# The loader is built by a helper; the epoch loop in main() never re-seeds it.
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def make_loader(ds, batch_size):
    return DataLoader(ds, batch_size=batch_size, sampler=DistributedSampler(ds), num_workers=8)


def main(args):
    dist.init_process_group("nccl")
    model = DDP(build_model(args).cuda())
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    loader = make_loader(train_set, args.batch_size)
    for epoch in range(args.epochs):
        model.train()
        for step, (x, y) in enumerate(loader):
            loss = model(x.cuda(), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()
