# A while loop over epochs and tqdm over the loader.
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from tqdm import tqdm

dist.init_process_group("nccl")
model = DDP(Net().cuda())
opt = torch.optim.Adam(model.parameters())
sampler = DistributedSampler(ds, num_replicas=dist.get_world_size(), rank=dist.get_rank())
loader = DataLoader(ds, batch_size=32, sampler=sampler, pin_memory=True, num_workers=4)
epoch = 0
while epoch < 10:
    for x, y in tqdm(loader):
        loss = model(x.cuda()).sub(y.cuda()).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    epoch += 1
