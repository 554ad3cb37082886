# TG005 with the softmax's arguments splatted: `*args` is not one tensor of
# logits to pass on, so no fix.
import torch
import torch.nn.functional as F

model = torch.nn.Linear(4, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in torch.load("batches.pt"):
    args = (model(x), 1)
    loss = F.cross_entropy(F.softmax(*args), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
