# A step loop over next(it) whose loss is built from tensors made before it.
import torch
import torch.nn.functional as F


def train(model, loader, steps, warm_x, warm_y):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    it = iter(loader)
    step = 0
    while step < steps:
        batch = next(it)
        logits = model(warm_x)
        loss = F.nll_loss(F.log_softmax(logits, dim=-1), warm_y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        step += 1
