# Unused layers without parameters (an activation, dropout, a loss module, an
# empty ModuleList) cost nothing and never break DDP: not reported.
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 2)
        self.act = nn.ReLU()
        self.drop = nn.Dropout(0.1)
        self.criterion = nn.CrossEntropyLoss()
        self.extra_layers = nn.ModuleList()

    def forward(self, x):
        return self.fc(x)


model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
