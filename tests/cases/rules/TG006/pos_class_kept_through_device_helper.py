# to_device(x) gives back what it is given, and is called with the model and with each batch: the model stays a Net, which has Dropout, and nothing switches it back to train mode (TG006).
import torch
import torch.nn as nn
import torch.nn.functional as F

device = torch.device("cuda")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(20, 50)
        self.fc2 = nn.Linear(50, 2)
        self.drop = nn.Dropout(0.2)

    def forward(self, x):
        return self.fc2(self.drop(F.relu(self.fc1(x))))


def to_device(x):
    return x.to(device)


model = to_device(Net())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
train_data, val_data = torch.load("train.pt"), torch.load("val.pt")
for epoch in range(10):
    for step, (x, y) in enumerate(train_data):
        x, y = to_device(x), to_device(y)
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
        if step % 100 == 0:
            model.eval()
            with torch.no_grad():
                print(sum(F.cross_entropy(model(to_device(a)), to_device(b)).item() for a, b in val_data))
