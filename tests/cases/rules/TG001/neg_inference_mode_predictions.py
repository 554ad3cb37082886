# Predictions gathered under torch.inference_mode(): nothing is attached (not a finding).
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(100, 50), nn.ReLU(), nn.Linear(50, 2))
model.load_state_dict(torch.load("model.pt"))
test_batches = torch.load("test.pt")

all_scores = []
with torch.inference_mode():
    for x in test_batches:
        scores = model(x)
        all_scores.append(scores)

torch.save(torch.cat(all_scores), "scores.pt")
