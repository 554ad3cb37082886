# Gradients reset by hand: `p.grad = None` for every parameter each step (not a finding).
import torch
import torch.nn as nn

model = nn.Linear(20, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.CrossEntropyLoss()

for step in range(100):
    x, y = torch.randn(8, 20), torch.randint(0, 2, (8,))
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    for p in model.parameters():
        p.grad = None
