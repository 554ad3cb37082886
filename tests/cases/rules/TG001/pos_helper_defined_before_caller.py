# A helper defined above its caller: its parameters must not be fixed at 'maybe'
# before the call is seen. The running total keeps every batch's graph (TG001)
# in an evaluation function without no_grad (TG003), whatever the order of the
# definitions (tests/order.sh reorders them).
import torch
import torch.nn as nn

criterion = nn.CrossEntropyLoss()


def evaluate(net, loader):
    total = 0.0
    for x, y in loader:
        total += criterion(net(x.cuda()), y.cuda())
    return total / len(loader)


def train(net, opt, loader):
    for x, y in loader:
        loss = criterion(net(x.cuda()), y.cuda())
        opt.zero_grad()
        loss.backward()
        opt.step()


def main(train_loader, val_loader):
    net = nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10)).cuda()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for epoch in range(10):
        train(net, opt, train_loader)
        print(evaluate(net, val_loader))
