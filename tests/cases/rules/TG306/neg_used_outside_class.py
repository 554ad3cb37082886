# The auxiliary head is called by the training loop on the features forward
# returns: used, from outside the class.
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Linear(64, 32)
        self.aux_head = nn.Linear(32, 4)

    def forward(self, x):
        return torch.relu(self.features(x))


model = Net()
opt = torch.optim.Adam(model.parameters())
for x, y in loader:
    loss = nn.functional.cross_entropy(model.aux_head(model(x)), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
