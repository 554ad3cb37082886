# The LayerNorm is built but forward never applies it: its parameters get no
# gradient and the model trains without the normalisation it was meant to have.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Classifier(nn.Module):
    def __init__(self, dim, classes):
        super().__init__()
        self.body = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        return self.head(F.gelu(self.body(x)))


model = Classifier(128, 10).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for x, y in loader:
    loss = F.cross_entropy(model(x.cuda()), y.cuda())
    opt.zero_grad()
    loss.backward()
    opt.step()
