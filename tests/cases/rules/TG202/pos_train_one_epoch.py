# The inner loop lives in train_one_epoch(); the epoch loop that calls it never
# calls set_epoch().
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def train_one_epoch(model, loader, opt):
    for batch in loader:
        loss = model(**batch).loss
        opt.zero_grad()
        loss.backward()
        opt.step()


def main():
    dist.init_process_group("nccl")
    model = DDP(load_model().cuda())
    opt = torch.optim.AdamW(model.parameters())
    sampler = DistributedSampler(dataset, shuffle=True, seed=0)
    loader = DataLoader(dataset, batch_size=16, sampler=sampler, num_workers=4)
    for epoch in range(3):
        train_one_epoch(model, loader, opt)
