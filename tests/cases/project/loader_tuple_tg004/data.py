# Builds both loaders: the training one is left at num_workers=0.
import torch
from torch.utils.data import DataLoader


def get_loaders(name, batch_size=128):
    if name == "cifar10":
        train_loader = DataLoader(train_set(name), batch_size=batch_size, shuffle=True)
        val_loader = DataLoader(val_set(name), batch_size=1000, num_workers=4)
    else:
        raise ValueError(name)
    return train_loader, val_loader


def get_eval_loaders(name):
    return DataLoader(val_set(name), batch_size=1000), DataLoader(test_set(name), batch_size=1000)
