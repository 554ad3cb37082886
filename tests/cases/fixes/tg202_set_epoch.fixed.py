import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def main():
    dist.init_process_group("nccl")
    model = DDP(Net().cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    train_sampler = DistributedSampler(train_ds)
    loader = DataLoader(train_ds, batch_size=64, sampler=train_sampler, num_workers=4)
    for ep in range(90):
        # one pass over the shard
        train_sampler.set_epoch(ep)
        model.train()
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()
