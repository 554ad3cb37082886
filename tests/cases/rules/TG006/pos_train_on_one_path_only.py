# model.train() runs only when the checkpoint is the best so far: on the
# other path the next backward() runs in eval mode (finding at the eval()).
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Sequential(nn.Linear(32, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 4)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
best = float("inf")

for step, (x, y) in enumerate(loader):
    loss = F.cross_entropy(model(x.cuda()), y.cuda())
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 500 == 0:
        model.eval()
        with torch.no_grad():
            val = F.cross_entropy(model(x_val.cuda()), y_val.cuda()).item()
        if val < best:
            best = val
            torch.save(model.state_dict(), "best.pt")
            model.train()
