# TG005: the softmax is dropped, in function and method form, also when the
# call is split over lines.
import torch.nn.functional as F


def train(model, loader, opt):
    for x, y in loader:
        a = F.cross_entropy(
            model(x),
            y,
        )
        b = F.cross_entropy(model(x), y)
        (a + b).backward()
        opt.step()
        opt.zero_grad()


train(None, [], None)
