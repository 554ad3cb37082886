# TG006: model.train() inserted after the evaluation block (an if-body that
# ends in a nested loop) and after the call of an evaluating helper.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.1), nn.Linear(4, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)


def evaluate(net):
    net.eval()
    with torch.no_grad():
        return sum(net(x).sum().item() for x in [])


for step in range(100):
    model(torch.randn(2, 4)).sum().backward()
    opt.step()
    opt.zero_grad()
    if step % 10 == 0:
        model.eval()
        with torch.no_grad():
            for _ in range(3):
                model(torch.randn(2, 4))
    evaluate(model)
