# Loop-carried variables become phis at the loop header; `total` joins a
# detached constant with attached losses: maybe, then attached after +=.
import torch.nn.functional as F

def train(model, loader, opt):
    total = 0.0
    history = []
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        total += loss
        history.append(loss.item())
        if total > 10:
            break
    return total, history
