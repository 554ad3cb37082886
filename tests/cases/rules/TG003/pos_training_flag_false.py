# `model.training = False` is what eval() sets: the forward after it records autograd for nothing (TG003).
import torch as t
from torch import nn


class ResNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 4)
        self.drop = nn.Dropout()

    def forward(self, x):
        return self.drop(self.fc(x))


model = ResNet()
model.training = False
out = model(t.randn(1, 3))
print(out.shape)
