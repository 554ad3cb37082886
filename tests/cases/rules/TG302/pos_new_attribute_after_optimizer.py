# A classifier attribute is added to the model after its optimizer exists.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.body = nn.Linear(32, dim)

    def forward(self, x):
        return torch.tanh(self.body(x))


model = Encoder(64)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
model.classifier = nn.Linear(64, 5)
for x, y in loader:
    loss = F.cross_entropy(model.classifier(model(x)), y)
    loss.backward()
    opt.step()
    opt.zero_grad()
