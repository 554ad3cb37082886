# validate() runs its loop under torch.set_grad_enabled(False) (not a finding).
import torch
import torch.nn as nn


def validate(model, loader):
    model.eval()
    errs = []
    with torch.set_grad_enabled(False):
        for x, y in loader:
            errs.append((model(x) - y).abs().mean().item())
    return sum(errs) / len(errs)


reg = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
print(validate(reg, torch.load("val.pt")))
