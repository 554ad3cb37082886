import torch
from torch.utils.data import DataLoader, RandomSampler
from torch.utils.data.distributed import DistributedSampler


def main(args):
    sampler = DistributedSampler(ds) if args.distributed else RandomSampler(ds)
    loader = DataLoader(ds, sampler=sampler, batch_size=8, num_workers=4)
    for epoch in range(3):
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            opt.zero_grad()
