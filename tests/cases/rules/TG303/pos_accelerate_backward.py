# Accelerate: accelerator.backward() on a loss from a batch cached at setup.
import torch
from accelerate import Accelerator


def main(model, loader, optimizer, loss_fn, sample_batch):
    accelerator = Accelerator()
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    inputs, targets = sample_batch
    for batch in loader:
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = torch.nn.functional.mse_loss(outputs, targets)
        accelerator.backward(loss)
        optimizer.step()
