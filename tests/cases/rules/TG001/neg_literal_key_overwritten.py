# A dict with literal keys gets the latest losses every step: each
# assignment replaces the previous entry, so nothing accumulates across
# iterations (the loss of the last step stays, not every step's).
import torch
import torch.nn.functional as F

model = torch.nn.Linear(16, 16)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loss_dict = {}
for x, y in loader:
    out = model(x)
    d_loss = F.mse_loss(out, y)
    opt.zero_grad()
    d_loss.backward()
    opt.step()
    loss_dict["d"] = d_loss
    loss_dict["real_score"] = out.mean()
