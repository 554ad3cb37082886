# Features go into a bank kept across steps; the loss reads the bank.
import torch


def train(encoder, loader, optimizer, size=4096):
    bank = []
    for images in loader:
        feats = encoder(images)
        bank.append(feats)
        if len(bank) > size:
            bank.pop(0)
        loss = -torch.logsumexp(torch.cat(bank[-8:]), dim=0).mean()
        optimizer.zero_grad()
        loss.backward(retain_graph=True)
        optimizer.step()
