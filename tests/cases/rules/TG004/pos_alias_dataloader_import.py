# `from torch.utils.data import DataLoader as DL` and `import torch as th`: default workers feeding a CUDA loop (TG004).
import torch as th
from torch import nn
from torch.utils.data import DataLoader as DL

model = nn.Linear(20, 1).cuda()
opt = th.optim.Adam(model.parameters())
dl = DL(th.load("regression.pt"), batch_size=128, shuffle=True)

for epoch in range(100):
    for x, y in dl:
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x.cuda()), y.cuda())
        loss.backward()
        opt.step()
