# BCEWithLogitsLoss receives logits; sigmoid is applied afterwards for accuracy (not a finding).
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 1))
loss_fn = nn.BCEWithLogitsLoss()
opt = torch.optim.Adam(model.parameters())


def train_step(x, y):
    logits = model(x)
    loss = loss_fn(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return ((torch.sigmoid(logits) > 0.5).float() == y).float().mean().item()


train_step(torch.randn(32, 8), torch.rand(32, 1).round())
