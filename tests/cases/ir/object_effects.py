# Effects per object: each function's header names what it does to which
# object (objects=): a site (fnF%V) or a parameter (pN), mapped to the
# arguments at each call.
import torch
import torch.nn as nn


def set_train(m):
    m.train()


def evaluate(m, data):
    m.eval()
    with torch.no_grad():
        return [m(x) for x in data]


def step(opt):
    opt.step()
    opt.zero_grad()


model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.1))
ema = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = torch.utils.data.DataLoader(list(range(8)), batch_size=2)
for x in loader:
    model(x).sum().backward()
    step(optimizer)
evaluate(model, [torch.randn(2, 4)])
set_train(ema)
model = nn.Sequential(nn.Linear(4, 4))
model.training = False
