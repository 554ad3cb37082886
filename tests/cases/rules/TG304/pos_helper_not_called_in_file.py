# A library training step (callers elsewhere) writes `optimizer.zero_grad` without the call (TG304).
import torch.nn.functional as F


def training_step(model, batch, optimizer, scheduler):
    optimizer.zero_grad
    logits = model(batch["x"])
    loss = F.cross_entropy(logits, batch["y"])
    loss.backward()
    optimizer.step()
    scheduler.step()
    return loss.item()
