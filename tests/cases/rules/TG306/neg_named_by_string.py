# The adapter is run through get_submodule("adapter") by the script: a string
# names it, so it is used.
import torch
import torch.nn as nn


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(32, 32)
        self.adapter = nn.Linear(32, 32)

    def forward(self, x):
        return self.body(x)


model = Backbone()
adapter = model.get_submodule("adapter")
opt = torch.optim.Adam(adapter.parameters())
for x in loader:
    loss = adapter(model(x)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
