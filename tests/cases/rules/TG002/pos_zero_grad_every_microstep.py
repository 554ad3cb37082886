# zero_grad() on every micro-step while step() is guarded by the accumulation condition: accumulation is silently disabled (TG002).
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Linear(256, 16)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
accum = 8
batches = [(torch.randn(4, 256), torch.randint(0, 16, (4,))) for _ in range(128)]

for i, (x, y) in enumerate(batches):
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), y) / accum
    loss.backward()
    if (i + 1) % accum == 0:
        optimizer.step()
