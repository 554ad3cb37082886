# net.eval() puts one object in eval mode; `model` is then bound to a fresh ResNet(), which starts in train mode: its forward is no evaluation (not a finding).
import torch as t
from torch import nn


class ResNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 4)
        self.drop = nn.Dropout()

    def forward(self, x):
        return self.drop(self.fc(x))


net = ResNet()
net.eval()
print(net.training)
model = nn.Dropout()
model.training = False
print(model.training)
model = ResNet()
out = model(t.randn(1, 3))
print(out.shape)
