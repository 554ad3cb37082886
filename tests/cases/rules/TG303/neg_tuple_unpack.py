# enumerate + tuple unpack + .to(device): the loss depends on this batch.
import torch
import torch.nn.functional as F


def train(model, loader, optimizer, device, accum=4):
    model.train()
    for step, (data, target) in enumerate(loader):
        data, target = data.to(device), target.to(device)
        output = model(data)
        loss = F.nll_loss(output, target) / accum
        loss.backward()
        if (step + 1) % accum == 0:
            optimizer.step()
            optimizer.zero_grad()
