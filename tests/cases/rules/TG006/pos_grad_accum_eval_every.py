# Gradient accumulation with an eval every eval_every optimizer steps and no model.train() after (TG006).
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(64, 64), nn.GELU(), nn.Dropout(0.1), nn.Linear(64, 64))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
accum, eval_every = 4, 50
batches = torch.load("batches.pt")

for i, x in enumerate(batches):
    loss = (model(x) - x).pow(2).mean() / accum
    loss.backward()
    if (i + 1) % accum == 0:
        optimizer.step()
        optimizer.zero_grad()
        if ((i + 1) // accum) % eval_every == 0:
            model.eval()
            with torch.no_grad():
                print("recon", (model(x) - x).pow(2).mean().item())
