# Every training method is called with parentheses (not a finding).
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(10, 10), nn.Dropout(0.1), nn.Linear(10, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=5)

for epoch in range(10):
    model.train()
    for x, y in torch.load("train.pt"):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
    scheduler.step()
    model.eval()
