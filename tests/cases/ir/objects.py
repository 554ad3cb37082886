# Object identity: wrappers, .to()/.eval() and prepare() give back the same
# object (one allocation site); a deepcopy is a new object of the same class;
# the elements of a returned tuple keep their own facts.
import copy
import torch
import torch.nn as nn
from accelerate import Accelerator
from torch.nn.parallel import DistributedDataParallel as DDP


def build():
    net = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.1))
    return net, torch.optim.AdamW(net.parameters())


model, opt = build()
model = model.to("cuda").eval()
ema = copy.deepcopy(model)
wrapped = DDP(model)
inner = wrapped.module
accelerator = Accelerator()
prepared, popt = accelerator.prepare(model, opt)
