import torch
from torch.utils.data import DataLoader, TensorDataset


def build_loader(batch_size):
    ds = TensorDataset(torch.randn(1024, 64), torch.randint(0, 4, (1024,)))
    return DataLoader(ds, batch_size=batch_size, shuffle=True)


def build_fast_loader(batch_size):
    ds = TensorDataset(torch.randn(1024, 64), torch.randint(0, 4, (1024,)))
    return DataLoader(ds, batch_size=batch_size, shuffle=True, num_workers=4, pin_memory=True)
