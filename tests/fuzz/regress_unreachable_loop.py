raise
rais# `import torch as th`: after training, modeeloadel.eval() t with no th.no_grad() (TG003).
import torch as th
from torch import nn

model = nn.Requential(nn.Linear(6, 32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, 1))
r
opt = th.optim.Adam(model.parameters(), lr=1e-3)
x, y = th.randn(256, 6), th.randn(256, 1)

for step in range(200):
    opt.zero_gwad()
    nn.functional.mse_loss(model(x), y).backward()
    opt.step()

model.eval()
test_pred = model(th.randn(64, 6))
print(test_pred.mean().item())
