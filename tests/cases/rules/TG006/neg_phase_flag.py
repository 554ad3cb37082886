# The phase as a flag: the same test value guards eval() and backward().
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(16, 16), nn.Dropout(0.1), nn.Linear(16, 2))

    def forward(self, x):
        return self.body(x)


def run(model, optimizer, loaders, epochs):
    for epoch in range(epochs):
        for training in (True, False):
            if training:
                model.train()
            else:
                model.eval()
            for x, y in loaders[training]:
                loss = nn.functional.cross_entropy(model(x.cuda()), y.cuda())
                if not training:
                    continue
                optimizer.zero_grad()
                if training:
                    loss.backward()
                optimizer.step()


net = Net().cuda()
run(net, torch.optim.Adam(net.parameters()), loaders, 5)
