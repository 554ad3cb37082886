# The loss is computed on what the previous step kept, detached, not on this batch.
import torch
import torch.nn as nn


def train(model, loader, optimizer):
    criterion = nn.MSELoss()
    prev_inputs = None
    prev_target = None
    for inputs, target in loader:
        if prev_inputs is not None:
            optimizer.zero_grad()
            loss = criterion(model(prev_inputs), prev_target)
            loss.backward()
            optimizer.step()
        prev_inputs = inputs.detach()
        prev_target = target.detach()
