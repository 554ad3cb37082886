# TG003: an evaluation loop nested in the epoch loop is wrapped in no_grad;
# comments and blank lines inside it move with it.
import torch

model = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(3):
    for x, y in torch.load("train.pt"):
        model(x).sum().backward()
        opt.step()
        opt.zero_grad()
    with torch.no_grad():
        for x, y in torch.load("val.pt"):
            # score the validation batch

            scores = model(x)
            print(scores.mean().item(), (
                y.float().mean().item()))
