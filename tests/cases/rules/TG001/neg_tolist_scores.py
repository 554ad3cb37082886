# `.tolist()` turns the attached scores into Python floats before they are kept (not a finding).
import torch
import torch.nn as nn

scorer = nn.Linear(256, 1)
scorer.load_state_dict(torch.load("scorer.pt"))
candidates = torch.load("candidates.pt")

ranking = []
for batch in candidates:
    scores = scorer(batch).squeeze(-1)
    ranking.extend(scores.tolist())

print(sorted(ranking, reverse=True)[:10])
