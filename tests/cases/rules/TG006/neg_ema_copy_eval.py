# An EMA copy of the model is put in eval mode inside the training loop; the
# model that is trained never is (not a finding: nothing trains the copy).
import copy
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Sequential(nn.Linear(32, 64), nn.Dropout(0.2), nn.Linear(64, 4)).cuda()
ema = copy.deepcopy(model)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)

for step, (x, y) in enumerate(loader):
    loss = F.cross_entropy(model(x.cuda()), y.cuda())
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        for p_ema, p in zip(ema.parameters(), model.parameters()):
            p_ema.mul_(0.999).add_(p, alpha=0.001)
    if step % 1000 == 0:
        ema.eval()
        with torch.no_grad():
            print(step, F.cross_entropy(ema(x_val.cuda()), y_val.cuda()).item())
