# A hand-written validation loop turns grad off with the statement form of
# torch.set_grad_enabled(False): what follows runs without autograd.
import torch


def validate(model, loader):
    model.eval()
    torch.set_grad_enabled(False)
    total = 0.0
    for x, y in loader:
        total += (model.validation_step(x, y)).item()
    torch.set_grad_enabled(True)
    model.train()
    return total
