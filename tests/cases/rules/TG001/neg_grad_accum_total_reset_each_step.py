# Gradient accumulation: the logged accumulator `accum_loss += loss` is set back to 0.0 after every optimizer step, so it holds one window of graph nodes (their saved tensors already freed by backward), not every step's: not a finding (it was a warning before the reset was seen; see pos_never_reset for the unbounded case).
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
