# An nn.Module subclass: attributes from __init__, forward reached from
# model(x), a softmax only when not training (must-facts: no softmax role
# on the result), and interprocedural parameter facts from the call site.
import torch.nn as nn
import torch.nn.functional as F

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(8, 4)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        h = self.body(self.drop(x))
        if not self.training:
            h = F.softmax(h, dim=-1)
        return h

def step(model, x, y):
    return F.cross_entropy(model(x), y)

net = Net()
loss = step(net, None, None)
