# Softmax probabilities (not a scalar) kept per batch in an epoch-level list after backward (TG001 error).
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 5))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
train_data = torch.load("train.pt")

for epoch in range(5):
    epoch_probs = []
    for x, y in train_data:
        optimizer.zero_grad()
        logits = model(x)
        loss = F.cross_entropy(logits, y)
        loss.backward()
        optimizer.step()
        epoch_probs.append(F.softmax(logits, dim=-1))
    calib = torch.cat(epoch_probs).max(dim=-1).values.mean()
