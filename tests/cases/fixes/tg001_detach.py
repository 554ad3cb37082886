# TG001 fixes: .detach() after a name, parentheses around an operator expression,
# a comment between the arguments kept.
import torch.nn.functional as F


def train(model, loader, opt):
    losses, total = [], 0.0
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        losses.append(
            loss  # the step's loss
        )
        total += loss * 2
    return losses, total


train(None, [], None)
