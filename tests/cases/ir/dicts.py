# Entries of dicts pfc can read whole: by constant key, by any key, through
# values() and items(), get(), stores, a global read in a function; and the
# dicts it cannot (a ** splat, update()).
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

nets = {"gen": nn.Linear(8, 8), "disc": nn.Linear(8, 1)}
opts = {}
opts["gen"] = torch.optim.Adam(nets["gen"].parameters())
loaders = {split: DataLoader(sets[split], batch_size=8) for split in ["train", "val"]}
mixed = {"a": DataLoader(a), **extra}
grown = {"a": nn.Linear(2, 2)}
grown.update(more)


def step(name):
    net = nets[name]
    opt = opts.get("gen")
    for key, loader in loaders.items():
        for batch in loader:
            net(batch)
    for m in nets.values():
        m.train()
    return mixed["a"], grown["a"], opt
