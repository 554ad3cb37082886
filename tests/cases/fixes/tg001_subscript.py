# TG001 on item assignments: `d[k] += loss` gets .detach() on the added value
# (not on the target, which would not parse); `d[k] = last = loss` gets no fix,
# since `last` shares the value.
import torch
import torch.nn.functional as F

model = torch.nn.Linear(4, 2)
sums, kept = {"loss": 0.0}, {}
for i, (x, y) in enumerate(torch.load("val.pt")):
    loss = F.cross_entropy(model(x), y)
    sums["loss"] += loss
    kept[i] = last = loss * 2
print(sums, kept, last)
