# to_device(x) returns what it is given: each call keeps its own argument's facts.
import copy

import torch
import torch.nn as nn

device = torch.device("cuda")


def to_device(x):
    return x.to(device)


model = to_device(nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.1)))
ema = to_device(copy.deepcopy(model))
batch = to_device(torch.randn(2, 4))
out = model(batch)
