# forward returns logits when self.training, probabilities otherwise (path-sensitive, not a finding).
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        out = self.fc(x)
        if self.training:
            return out
        return out.softmax(dim=1)


def train_step(model, criterion, opt, x, y):
    opt.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    opt.step()


net = Net()
train_step(net, nn.CrossEntropyLoss(), torch.optim.SGD(net.parameters(), lr=0.1),
           torch.randn(4, 32), torch.randint(0, 10, (4,)))
