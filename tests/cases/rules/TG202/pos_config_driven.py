# The sampler follows the config; the epoch loop has a validation pass but no
# set_epoch().
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def run(cfg):
    dist.init_process_group(backend=cfg.backend)
    model = DDP(build(cfg).cuda(), device_ids=[cfg.local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=cfg.lr, momentum=0.9)
    train_sampler = DistributedSampler(cfg.train_set, drop_last=True)
    train_loader = DataLoader(cfg.train_set, batch_size=cfg.batch_size, sampler=train_sampler,
                              num_workers=cfg.workers)
    for epoch in range(cfg.start_epoch, cfg.epochs):
        model.train()
        for images, target in train_loader:
            loss = torch.nn.functional.cross_entropy(model(images.cuda()), target.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()
        validate(model, cfg)
