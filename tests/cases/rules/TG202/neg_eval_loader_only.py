# The DistributedSampler feeds only the evaluation loader, which no backward()
# follows; order does not matter there.
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

dist.init_process_group("nccl")
model = DDP(Net().cuda())
val_loader = DataLoader(val_ds, batch_size=64, sampler=DistributedSampler(val_ds), num_workers=4)
for epoch in range(10):
    train_epoch(model)
    with torch.no_grad():
        for x, y in val_loader:
            print(model(x.cuda()).argmax(-1).eq(y.cuda()).float().mean().item())
