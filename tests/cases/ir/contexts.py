# What dump-ir shows of each function beside its IR: the code context the
# rules give it (model code from forward, unit tests, the rest) and its
# effects, transitive over in-file calls (train_epoch steps through
# train_step; main evaluates through evaluate).
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return scale(self.fc(x))

def scale(h):
    return h * 2

def train_step(model, opt, x, y):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()

def train_epoch(model, opt, loader):
    model.train()
    for x, y in loader:
        train_step(model, opt, x, y)

def evaluate(model, loader):
    model.eval()
    with torch.no_grad():
        return [model(x) for x, _ in loader]

def penalty(model, x):
    return torch.autograd.grad(model(x).sum(), x)

def test_net_shape():
    assert Net()(torch.zeros(1, 4)).shape == (1, 2)

def main(loader):
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    train_epoch(model, opt, loader)
    evaluate(model, loader)
