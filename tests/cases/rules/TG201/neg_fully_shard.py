# FSDP2: fully_shard() shards the module in place and keeps its identity.
import torch
import torch.distributed as dist
from torch.distributed.fsdp import fully_shard

dist.init_process_group("nccl")
model = Transformer().cuda()
for layer in model.layers:
    fully_shard(layer)
fully_shard(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for tokens in loader:
    loss = model(tokens.cuda()).loss
    loss.backward()
    opt.step()
    opt.zero_grad()
