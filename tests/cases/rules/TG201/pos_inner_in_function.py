# In a function: the FSDP wrapper is made, the plain module is trained.
import torch
import torch.distributed as dist
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP


def main():
    dist.init_process_group("nccl")
    base = Transformer().cuda()
    sharded = FSDP(base)
    opt = torch.optim.AdamW(sharded.parameters(), lr=1e-4)
    for tokens in loader:
        loss = base(tokens.cuda()).loss
        loss.backward()
        opt.step()
        opt.zero_grad()
