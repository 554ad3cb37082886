# Micro-batch losses summed into `total`, which is itself backpropagated after the loop (not a finding).
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Linear(64, 8)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
micro_batches = [(torch.randn(4, 64), torch.randint(0, 8, (4,))) for _ in range(8)]

optimizer.zero_grad()
total = 0.0
for x, y in micro_batches:
    total = total + F.cross_entropy(model(x), y)
total.backward()
optimizer.step()
