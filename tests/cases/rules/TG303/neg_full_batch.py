# Full-batch training: no loader, the same tensors on purpose every epoch.
import torch
import torch.nn as nn

X = torch.randn(256, 8)
Y = X.sum(dim=1, keepdim=True)
model = nn.Linear(8, 1)
optimizer = torch.optim.LBFGS(model.parameters()) if False else torch.optim.SGD(model.parameters(), lr=0.01)
criterion = nn.MSELoss()

for epoch in range(500):
    optimizer.zero_grad()
    loss = criterion(model(X), Y)
    loss.backward()
    optimizer.step()
