# `scheduler.step` without parentheses at the end of each epoch: the learning rate never changes (TG304).
import torch
import torch.nn as nn

model = nn.Linear(16, 4)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.1)

for epoch in range(30):
    for x, y in torch.load("train.pt"):
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
    scheduler.step
