# set_epoch through the loader's sampler attribute, in a helper.
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def train_one_epoch(model, loader, opt, epoch):
    loader.sampler.set_epoch(epoch)
    for x, y in loader:
        loss = model(x.cuda(), y.cuda())
        opt.zero_grad()
        loss.backward()
        opt.step()


def main():
    dist.init_process_group("nccl")
    model = DDP(Net().cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(ds, batch_size=8, sampler=DistributedSampler(ds), num_workers=2)
    for epoch in range(5):
        train_one_epoch(model, loader, opt, epoch)
