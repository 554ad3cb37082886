# Gradient accumulation: the logged accumulator `accum_loss += loss` is never backpropagated itself (TG001 warning).
import torch
from torch import nn

model = nn.Linear(128, 128)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
accum = 4
batches = [torch.randn(8, 128) for _ in range(64)]

accum_loss = 0.0
for i, x in enumerate(batches):
    loss = (model(x) - x).pow(2).mean()
    (loss / accum).backward()
    accum_loss += loss
    if (i + 1) % accum == 0:
        optimizer.step()
        optimizer.zero_grad()
        print("loss", accum_loss.item() / accum)
        accum_loss = 0.0
