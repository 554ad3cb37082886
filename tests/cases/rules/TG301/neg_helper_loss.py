# The loss comes from a helper pfc reads: it returns the model's loss.
import torch


def compute_loss(model, batch):
    out = model(batch["x"])
    return torch.nn.functional.cross_entropy(out, batch["y"])


for batch in loader:
    loss = compute_loss(model, batch)
    logged = torch.tensor(loss.item())
    loss.backward()
    opt.step()
    opt.zero_grad()
