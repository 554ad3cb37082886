# A top-level training loop calls backward() and step() but never zero_grad(): gradients add up (TG002 at optimizer.step()).
import torch
import torch.nn as nn

model = nn.Linear(10, 1)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
X, Y = torch.randn(1000, 10), torch.randn(1000, 1)

for epoch in range(20):
    for i in range(0, 1000, 50):
        loss = criterion(model(X[i:i + 50]), Y[i:i + 50])
        loss.backward()
        optimizer.step()
