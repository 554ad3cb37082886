# In-file model with nn.Dropout: eval() at the end of each epoch, the next epoch trains in eval mode (TG006).
import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(100, 200)
        self.drop = nn.Dropout(0.5)
        self.fc2 = nn.Linear(200, 10)

    def forward(self, x):
        return self.fc2(self.drop(F.relu(self.fc1(x))))


model = MLP()
opt = torch.optim.Adam(model.parameters())
for epoch in range(20):
    for x, y in torch.load("train.pt"):
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
    model.eval()
    torch.save(model.state_dict(), f"ckpt_{epoch}.pt")
