# A validate_step helper (called from the training loop with grad on) runs the model with autograd recording (TG003).
import torch
import torch.nn as nn
import torch.nn.functional as F


def validate_step(model, x, y):
    logits = model(x)
    return F.cross_entropy(logits, y).item()


model = nn.Linear(30, 3)
opt = torch.optim.Adam(model.parameters())
for step in range(1000):
    x, y = torch.randn(16, 30), torch.randint(0, 3, (16,))
    opt.zero_grad()
    F.cross_entropy(model(x), y).backward()
    opt.step()
    if step % 100 == 0:
        print(validate_step(model, torch.randn(64, 30), torch.randint(0, 3, (64,))))
