# A unit test that provokes DDP's unused-parameter error on purpose (torch's
# own DDP tests do): not training code.
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


class Branchy(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 4)

    def forward(self, x):
        if x.sum() > 0:
            x = self.b(x)
        return self.a(x)


def test_unused_parameter_error():
    model = DDP(Branchy().cuda(0), device_ids=[0], find_unused_parameters=False)
    model(torch.ones(2, 4).cuda(0)).sum().backward()
