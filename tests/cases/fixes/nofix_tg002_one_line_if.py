# TG002 where step() is the body of a one-line `if`: a zero_grad() on the next
# line would not share the condition, so no fix is offered.
import torch

model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for i, (x,) in enumerate(torch.load("batches.pt")):
    model(x).sum().backward()
    if x.abs().max() < 10: opt.step()
