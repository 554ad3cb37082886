# A helper sums a loss over feature layers in a loop and returns it to a caller
# that backpropagates it: the kept graph is the point, not a finding (and
# detaching it would stop the gradient).
import torch
import torch.nn.functional as F


def feature_loss(feats_a, feats_b):
    total = F.mse_loss(feats_a[0], feats_b[0])
    for i in range(1, len(feats_a)):
        total += F.mse_loss(feats_a[i], feats_b[i])
    return total / len(feats_a)


def train(model, loader, opt):
    for x, y in loader:
        out = model(x)
        loss = F.cross_entropy(out, y) + feature_loss([out], [y])
        opt.zero_grad()
        loss.backward()
        opt.step()


net = torch.nn.Linear(4, 2)
train(net, [], torch.optim.SGD(net.parameters(), lr=0.1))
