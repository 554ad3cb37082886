# Two evaluation loops in one function: each gets its own `with torch.no_grad():`.
import torch
import torch.nn as nn

model = nn.Linear(8, 2).cuda()


def report(val_loader, test_loader):
    correct = 0
    with torch.no_grad():
        for x, y in val_loader:
            correct += (model(x.cuda()).argmax(-1) == y.cuda()).sum().item()
    print("val", correct)
    correct = 0
    with torch.no_grad():
        for x, y in test_loader:
            correct += (model(x.cuda()).argmax(-1) == y.cuda()).sum().item()
    print("test", correct)
