# A trainer class: the loader is made in __init__, fit() runs the epochs.
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


class Trainer:
    def __init__(self, model, ds, cfg):
        self.model = DDP(model.cuda())
        self.opt = torch.optim.SGD(self.model.parameters(), lr=cfg.lr)
        self.sampler = DistributedSampler(ds)
        self.loader = DataLoader(ds, batch_size=cfg.bs, sampler=self.sampler, num_workers=4)

    def fit(self, epochs):
        for epoch in range(epochs):
            for x, y in self.loader:
                loss = torch.nn.functional.mse_loss(self.model(x.cuda()), y.cuda())
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
