# Validation loop under torch.set_grad_enabled(False): losses carry no graph (not a finding).
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Sequential(nn.Linear(12, 24), nn.ReLU(), nn.Linear(24, 2))
val_data = [(torch.randn(10, 12), torch.randint(0, 2, (10,))) for _ in range(20)]

val_losses = []
model.eval()
with torch.set_grad_enabled(False):
    for x, y in val_data:
        val_losses.append(F.cross_entropy(model(x), y))

print(torch.stack(val_losses).mean())
