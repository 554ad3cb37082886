# evaluate(m, data) is called in the epoch loop with the model that has Dropout, and after training with one that has none: the call in the loop leaves the trained model in eval mode (TG006 at the eval() in the helper).
import torch
import torch.nn as nn
import torch.nn.functional as F


class Small(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(20, 2)

    def forward(self, x):
        return self.fc(x)


class Big(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(20, 2)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        return self.fc(self.drop(x))


@torch.no_grad()
def evaluate(m, data):
    m.eval()
    return sum(F.cross_entropy(m(x), y).item() for x, y in data) / len(data)


big, small = Big(), Small()
opt = torch.optim.SGD(big.parameters(), lr=0.1)
train_data, val_data = torch.load("train.pt"), torch.load("val.pt")
for epoch in range(10):
    for x, y in train_data:
        opt.zero_grad()
        F.cross_entropy(big(x), y).backward()
        opt.step()
    print(epoch, evaluate(big, val_data))
print("small, untrained", evaluate(small, val_data))
