# A regulariser scaled by the batch size: the dependence runs through len(batch).
import torch


def train(model, loader, optimizer, weight_decay=1e-4):
    for batch in loader:
        n = len(batch)
        penalty = sum((p ** 2).sum() for p in model.parameters())
        loss = weight_decay * penalty * n
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
