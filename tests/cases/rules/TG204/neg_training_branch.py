# The auxiliary head runs whenever the module trains: DDP sees it every
# training step.
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


class Inception(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(64, 64)
        self.aux_logits = nn.Linear(64, 10)
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        h = self.body(x)
        if self.training:
            return self.fc(h), self.aux_logits(h)
        return self.fc(h)


model = DDP(Inception().cuda(), device_ids=[0])
