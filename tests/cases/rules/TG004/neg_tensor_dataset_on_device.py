# The dataset is tensors already on the GPU: workers would not help (not a finding).
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

X = torch.randn(50_000, 32).cuda()
Y = torch.randint(0, 10, (50_000,)).cuda()
loader = DataLoader(TensorDataset(X, Y), batch_size=512, shuffle=True)
model = nn.Linear(32, 10).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)

for epoch in range(10):
    for x, y in loader:
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
