# Softmax probabilities into MSELoss (Brier-style score): not a double softmax (not a finding).
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Linear(16, 4)
mse = nn.MSELoss()
opt = torch.optim.Adam(model.parameters())


def train_step(x, y):
    probs = F.softmax(model(x), dim=-1)
    loss = mse(probs, F.one_hot(y, 4).float())
    opt.zero_grad()
    loss.backward()
    opt.step()


train_step(torch.randn(8, 16), torch.randint(0, 4, (8,)))
