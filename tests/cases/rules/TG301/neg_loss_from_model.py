# The correct version: .item() only for the log.
import torch
import torch.nn.functional as F

model = torch.nn.Linear(16, 4)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
history = []
for x, y in loader:
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    history.append(loss.item())
