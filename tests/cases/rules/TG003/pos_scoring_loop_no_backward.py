# A scoring loop at top level calls the model but never backward(): an evaluation region without no_grad (TG003).
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(40, 40), nn.ReLU(), nn.Linear(40, 1))
model.load_state_dict(torch.load("regressor.pt"))
batches = torch.load("holdout.pt")

sq_err = 0.0
n = 0
for x, y in batches:
    pred = model(x)
    sq_err += ((pred - y) ** 2).sum().item()
    n += y.numel()
print("rmse", (sq_err / n) ** 0.5)
