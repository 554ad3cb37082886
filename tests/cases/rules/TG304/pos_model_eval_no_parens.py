# `model.eval` without parentheses before validation: dropout stays on (TG304).
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(20, 20), nn.Dropout(0.5), nn.Linear(20, 2))
model.load_state_dict(torch.load("model.pt"))
model.eval
with torch.no_grad():
    preds = model(torch.load("x_val.pt")).argmax(1)
print(preds.float().mean())
