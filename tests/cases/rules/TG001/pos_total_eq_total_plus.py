# `total = total + loss` in a scoring loop with no backward and no no_grad keeps every batch's activations (TG001 error).
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4))
model.load_state_dict(torch.load("ckpt.pt"))
batches = [(torch.randn(64, 32), torch.randint(0, 4, (64,))) for _ in range(50)]

total = torch.zeros(())
for x, y in batches:
    logits = model(x)
    total = total + F.cross_entropy(logits, y)

print("mean loss:", total.item() / len(batches))
